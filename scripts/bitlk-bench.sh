#!/usr/bin/env bash
# bitlk-bench.sh: decrypting a whole BitLocker volume with its key given
# (no key derivation timed), output to /dev/shm, interleaved runs, medians
# of the wall time and of the CPU time (user + system, from bash's time):
#   dislocker  dislocker-file -k FVEK-FILE -V IMAGE OUT (Debian dislocker)
#   xts        xts bitlk decrypt --volume-key-file KEY IMAGE OUT
#   xts@REV    the same, built from git revision REV (BASE=REV): before/after
#   go-floor   scripts/bitlkfloor IMAGE KEY OUT: the same decryption in as
#              little Go as it takes (the bitlocker package, one goroutine a
#              core, no command line, signals or atomic output): what the
#              Go runtime and the package cost here, without the command
#   cp         cp IMAGE OUT: what copying the image's bytes from /dev/shm to
#              /dev/shm costs here, no cipher (the floor of any decrypt)
# The image is cryptsetup's bitlk-aes-xts-128.img (100 MiB) from
# ../shared/fde-images/bitlk-images.tar.xz, unpacked as a dense copy (the
# archive's file is sparse) into a temporary directory in /dev/shm and read
# once into the page cache; its volume key comes from
# `xts bitlk dump --dump-volume-key` with the password. Every output is
# removed before the next run, and each tool's output is compared with
# dislocker's once (cmp). The goal: xts >= 5 x dislocker (wall).
#
# Usage: [BASE=REV] [IMAGE=bitlk-aes-xts-256] [PASSWORD=anaconda] scripts/bitlk-bench.sh [RUNS]
#   default 9 runs. IMAGE names an AES-XTS or AES-CBC (no Elephant: there
#   is no FVEK file for it here) image of the archive.
# Needs dislocker-file, tar, xz, xxd, awk and Go; about 3 x 100 MiB of /dev/shm
# (DIR=... to use another directory).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

runs=${1:-9}
image=${IMAGE:-bitlk-aes-xts-128}
password=${PASSWORD:-anaconda}
archive=../shared/fde-images/bitlk-images.tar.xz
for tool in dislocker-file tar xxd awk go; do
	command -v "$tool" >/dev/null || { echo "bitlk-bench.sh: $tool is not installed" >&2; exit 1; }
done
[[ -f $archive ]] || { echo "bitlk-bench.sh: $archive not found" >&2; exit 1; }

base=${DIR:-/dev/shm}
dir=$(mktemp -d "$base/bitlk-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/xts" ./cmd/xts
names=(dislocker xts)
if [[ -n ${BASE:-} ]]; then
	mkdir "$dir/base-src"
	git archive "$BASE" | tar -x -C "$dir/base-src"
	(cd "$dir/base-src" && go build -o "$dir/xts-base" ./cmd/xts)
	rm -rf "$dir/base-src"
	names+=("xts@$BASE")
fi
go build -o "$dir/go-floor" ./scripts/bitlkfloor
names+=(go-floor cp)

tar -xJf "$archive" -C "$dir" "bitlk-images/$image.img"
cp --sparse=never "$dir/bitlk-images/$image.img" "$dir/img"
rm -rf "$dir/bitlk-images"
cat "$dir/img" >/dev/null
printf '%s' "$password" >"$dir/pass"

# The volume key, raw for xts, and as dislocker's FVEK file: the method's
# 16-bit code (little-endian) then the key in 64 bytes.
dump=$("$dir/xts" bitlk dump --dump-volume-key -d "$dir/pass" "$dir/img")
hex=$(awk '/^Volume key:/ { f = 1; sub(/^Volume key:/, "") } f && NF { gsub(/[ \t]/, ""); printf "%s", $0 }' <<<"$dump")
mode=$(awk -F'\t' '/^Cipher mode:/ { print $NF; exit }' <<<"$dump")
keybits=$((${#hex} * 4))
case "$mode/$keybits" in
xts-plain64/256) method=0480 ;; # 0x8004: AES-XTS-128 (two 128-bit keys)
xts-plain64/512) method=0580 ;; # 0x8005: AES-XTS-256
cbc-eboiv/128) method=0280 ;;   # 0x8002: AES-CBC-128
cbc-eboiv/256) method=0380 ;;   # 0x8003: AES-CBC-256
*) echo "bitlk-bench.sh: $image is aes-$mode with a $keybits-bit key: no FVEK file for dislocker here" >&2; exit 1 ;;
esac
printf '%s' "$hex" | xxd -r -p >"$dir/vk"
pad=$((128 - ${#hex}))
{ printf '%s%s' "$method" "$hex"; ((pad == 0)) || printf "%0${pad}d" 0; } | xxd -r -p >"$dir/fvek"

# run_one NAME: prints "WALL CPU" (seconds) of one run.
run_one() {
	local TIMEFORMAT='%R %U %S' t out="$dir/out-$1"
	rm -f "$out"
	case $1 in
	dislocker) t=$({ time dislocker-file -k "$dir/fvek" -V "$dir/img" "$out" >/dev/null 2>&1; } 2>&1) ;;
	xts) t=$({ time "$dir/xts" bitlk decrypt --volume-key-file "$dir/vk" "$dir/img" "$out"; } 2>&1) ;;
	xts@*) t=$({ time "$dir/xts-base" bitlk decrypt --volume-key-file "$dir/vk" "$dir/img" "$out"; } 2>&1) ;;
	go-floor) t=$({ time "$dir/go-floor" "$dir/img" "$dir/vk" "$out"; } 2>&1) ;;
	cp) t=$({ time cp "$dir/img" "$out"; } 2>&1) ;;
	esac
	awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }' <<<"$t"
}

declare -A walls cpus
for ((r = 1; r <= runs; r++)); do
	for n in "${names[@]}"; do
		read -r w c < <(run_one "$n")
		walls[$n]+="$w " cpus[$n]+="$c "
		if ((r == 1)) && [[ $n == xts* || $n == go-floor ]] && ! cmp -s "$dir/out-$n" "$dir/out-dislocker"; then
			echo "bitlk-bench.sh: $n's output differs from dislocker's" >&2
			exit 1
		fi
		[[ $n == dislocker ]] || rm -f "$dir/out-$n"
	done
	rm -f "$dir/out-dislocker"
done

size=$(stat -c %s "$dir/img")
echo
echo "$image ($((size >> 20)) MiB), key given, output to $base; median of $runs interleaved runs"
echo "$(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| tool | wall s | CPU s | MB/s (wall) | dislocker / tool (wall) | dislocker / tool (CPU) |"
echo "|---|---:|---:|---:|---:|---:|"
for n in "${names[@]}"; do
	mw=$(median "${walls[$n]}") mc=$(median "${cpus[$n]}")
	rate=$(awk -v s="$size" -v w="$mw" 'BEGIN { printf "%.0f", (w > 0) ? s / w / 1e6 : 0 }')
	echo "| $n | $mw | $mc | $rate | $(ratio "$(median "${walls[dislocker]}")" "$mw") | $(ratio "$(median "${cpus[dislocker]}")" "$mc") |"
done
echo
for n in "${names[@]}"; do
	echo "$n walls: ${walls[$n]}"
done
