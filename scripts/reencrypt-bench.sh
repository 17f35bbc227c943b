#!/usr/bin/env bash
# reencrypt-bench.sh: xts luks reencrypt against cryptsetup reencrypt 2.6
# on the same image in /dev/shm (no disk in the way), interleaved runs,
# medians of the wall time and of the CPU time (user + system, from
# bash's time) of:
#   encrypt    in-place encryption of SIZE MiB of random data followed by
#              32 MiB of free space: reencrypt --encrypt --reduce-device-size 32M
#              (datashift resilience)
#   rotate     a new volume key for a LUKS2 image of that data (checksum
#              resilience, sha256; aes-xts-plain64, 512-bit key, 4096-byte
#              sectors, as xts luks encrypt makes it)
#   reference  xts luks encrypt of the same data into a new image: what
#              streaming the data once through AES-XTS costs here
#   floor      scripts/shiftfloor on the in-place template: the data of
#              the in-place encryption moved up by 16 MiB, hotzone by
#              hotzone, no cipher and no header (its own timer: no process
#              start in it), the least any in-place encryption there costs
# Every run starts from a fresh copy of its image (the copy is not timed)
# and every keyslot is cheap (pbkdf2, 1000 iterations), so the times are
# the data's. The ratios: cryptsetup's median over this tool's (above 1:
# this tool is faster), and each median over the reference's.
#
# Usage: scripts/reencrypt-bench.sh [SIZE_MIB [RUNS]]   (defaults 1024, 5)
# Needs cryptsetup, Go, and about 4 x SIZE of space in /dev/shm
# (DIR=... to use another directory).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

size_mib=${1:-1024}
runs=${2:-5}
for tool in cryptsetup go awk; do
	command -v "$tool" >/dev/null || { echo "reencrypt-bench.sh: $tool is not installed" >&2; exit 1; }
done

base=${DIR:-/dev/shm}
dir=$(mktemp -d "$base/reencrypt-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/xts" ./cmd/xts
go build -o "$dir/shiftfloor" ./scripts/shiftfloor

fast=(--pbkdf pbkdf2 --pbkdf-force-iterations 1000)
re=(--batch-mode --force-offline-reencrypt --key-file "$dir/pass")
echo "making ${size_mib} MiB of random data, its LUKS2 image and the in-place template in $dir" >&2
printf 'bench' >"$dir/pass"
head -c "$((size_mib << 20))" /dev/urandom >"$dir/raw"
"$dir/xts" luks encrypt -d "$dir/pass" "${fast[@]}" "$dir/raw" "$dir/luks.tmpl"
cp "$dir/raw" "$dir/plain.tmpl"
truncate -s "+32M" "$dir/plain.tmpl"

# prepare NAME: the fresh image run NAME works on, as $dir/work.
prepare() {
	rm -f "$dir/work" "$dir/out"
	case $1 in
	*-encrypt | floor) cp "$dir/plain.tmpl" "$dir/work" ;;
	*-rotate) cp "$dir/luks.tmpl" "$dir/work" ;;
	esac
	sync
}

# run_one NAME: prints "WALL CPU" (seconds) of one run.
run_one() {
	local TIMEFORMAT='%R %U %S' t
	case $1 in
	cryptsetup-encrypt) t=$({ time cryptsetup reencrypt "${re[@]}" "${fast[@]}" --encrypt --reduce-device-size 32M "$dir/work" >/dev/null 2>&1; } 2>&1) ;;
	xts-encrypt) t=$({ time "$dir/xts" luks reencrypt "${re[@]}" "${fast[@]}" --encrypt --reduce-device-size 32M "$dir/work" 2>/dev/null; } 2>&1) ;;
	cryptsetup-rotate) t=$({ time cryptsetup reencrypt "${re[@]}" "${fast[@]}" --resilience checksum "$dir/work" >/dev/null 2>&1; } 2>&1) ;;
	xts-rotate) t=$({ time "$dir/xts" luks reencrypt "${re[@]}" "${fast[@]}" --resilience checksum "$dir/work" 2>/dev/null; } 2>&1) ;;
	reference) t=$({ time "$dir/xts" luks encrypt -d "$dir/pass" "${fast[@]}" "$dir/raw" "$dir/out"; } 2>&1) ;;
	floor) t="$("$dir/shiftfloor" "$dir/work" $((16 << 20))) 0 0" ;;
	esac
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' <<<"$t"
}

names=(cryptsetup-encrypt xts-encrypt cryptsetup-rotate xts-rotate reference floor)
declare -A walls cpus
for ((r = 1; r <= runs; r++)); do
	for n in "${names[@]}"; do
		prepare "$n"
		read -r w c < <(run_one "$n")
		walls[$n]+="$w " cpus[$n]+="$c "
		echo "run $r $n: ${w} s wall, ${c} s CPU" >&2
	done
done

declare -A mw mc
for n in "${names[@]}"; do
	mw[$n]=$(median "${walls[$n]}")
	mc[$n]=$(median "${cpus[$n]}")
done
echo
echo "${size_mib} MiB, median of ${runs} interleaved runs, $(nproc) CPUs, $(cryptsetup --version | head -1)"
echo
echo "| operation | tool | wall s | CPU s | MB/s (wall) | cryptsetup / xts (wall) | cryptsetup / xts (CPU) | wall / reference |"
echo "|---|---|---:|---:|---:|---:|---:|---:|"
for n in "${names[@]}"; do
	op=${n#*-} tool=${n%%-*} vs=" " vsc=" "
	if [[ $n == reference ]]; then
		op="reference: xts luks encrypt" tool=xts
	elif [[ $n == floor ]]; then
		op="floor: the in-place data moved, no cipher (scripts/shiftfloor)" tool=-
	elif [[ $tool == xts ]]; then
		vs=$(ratio "${mw[cryptsetup-$op]}" "${mw[$n]}") vsc=$(ratio "${mc[cryptsetup-$op]}" "${mc[$n]}")
	fi
	rate=$(awk -v s="$size_mib" -v w="${mw[$n]}" 'BEGIN { printf "%.0f", (w > 0) ? s * 1048576 / w / 1e6 : 0 }')
	cpu=${mc[$n]}
	[[ $n == floor ]] && cpu=-
	echo "| $op | $tool | ${mw[$n]} | $cpu | $rate | $vs | $vsc | $(ratio "${mw[$n]}" "${mw[reference]}") |"
done
echo
awk -v c="${mw[cryptsetup-encrypt]}" -v x="${mw[xts-encrypt]}" -v f="${mw[floor]}" 'BEGIN {
	printf "in-place encryption: xts %.2fx the floor; a quarter of cryptsetup'"'"'s time is %.3f s, %.2fx the floor\n", x / f, c / 4, c / 4 / f }'

