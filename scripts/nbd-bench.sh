#!/usr/bin/env bash
# nbd-bench.sh: nbdcopy (export -> null:, or with WRITE=1 a file -> the
# export) against several servers on the same data, interleaved runs,
# medians of the copy's wall time and of the CPU time the server process
# used (utime+stime from /proc, which a machine shared with other work
# disturbs far less than wall time):
#   nbdkit-file   nbdkit's file plugin on a plain file
#   xts-file      internal/nbd on the same plain file (internal/nbd/nbdfile)
#   xts-luks2     xts luks serve on a LUKS2 image of that data
#                 (aes-xts-plain64, 512-bit key, 4096-byte sectors)
#   xts-luks1     xts luks serve on a LUKS1 image of that data
#                 (aes-xts-plain64, 512-bit key, 512-byte sectors)
#   nbdkit-luks1  nbdkit's luks filter on the same LUKS1 image
#   qemu-nbd-luks1  qemu-nbd's luks driver on the same LUKS1 image
# Reads are served read-only. The goals: xts-file at least as fast as
# nbdkit-file, xts-luks* >= 0.8 x nbdkit-file, and >= 3 x nbdkit-luks1
# and qemu-nbd-luks1 (reads), >= 2 x nbdkit-luks1 (writes).
#
# Usage: [WRITE=1] [NAMES="..."] scripts/nbd-bench.sh [SIZE_MIB [RUNS [NBDCOPY FLAGS...]]]
#   defaults: 1024 MiB, 5 runs, every server above that is installed,
#   nbdcopy's own defaults.
# Needs nbdkit, nbdcopy, bc and Go (Linux: /proc), qemu-nbd for its row;
# writes 3 x SIZE in a temporary directory (under $TMPDIR) and reads it
# once into the page cache.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

size_mib=${1:-1024}
runs=${2:-5}
shift $(($# < 2 ? $# : 2))
copyflags=("$@")

for tool in nbdkit nbdcopy bc go; do
	command -v "$tool" >/dev/null || { echo "nbd-bench.sh: $tool is not installed" >&2; exit 1; }
done

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/xts" ./cmd/xts
go build -o "$dir/nbdfile" ./internal/nbd/nbdfile

echo "making ${size_mib} MiB of random data and its LUKS2 and LUKS1 images in $dir" >&2
head -c "$((size_mib << 20))" /dev/urandom >"$dir/raw"
printf 'bench' >"$dir/pass"
"$dir/xts" luks encrypt -d "$dir/pass" --pbkdf pbkdf2 --pbkdf-force-iterations 1000 "$dir/raw" "$dir/img2"
"$dir/xts" luks encrypt --type luks1 -d "$dir/pass" --pbkdf pbkdf2 --pbkdf-force-iterations 1000 "$dir/raw" "$dir/img1"
cat "$dir/raw" "$dir/img2" "$dir/img1" >/dev/null # into the page cache
write=${WRITE:-}
ro=(-r) xro=(--readonly) nro=(-readonly)
if [[ -n $write ]]; then
	ro=() xro=() nro=()
	cp "$dir/raw" "$dir/data" # a writable copy for the plain servers
else
	ln -s raw "$dir/data"
fi

tick=$(getconf CLK_TCK)
sock="$dir/nbd.sock"

# run_one NAME: starts the server on $sock, copies, prints "WALL CPU"
# (seconds), stops the server.
run_one() {
	rm -f "$sock"
	case $1 in
	nbdkit-file) nbdkit "${ro[@]}" -f -U "$sock" file "$dir/data" & ;;
	xts-file) "$dir/nbdfile" "${nro[@]}" -socket "$sock" "$dir/data" & ;;
	xts-luks2) "$dir/xts" luks serve "${xro[@]}" -d "$dir/pass" --socket "$sock" "$dir/img2" 2>/dev/null & ;;
	xts-luks1) "$dir/xts" luks serve "${xro[@]}" -d "$dir/pass" --socket "$sock" "$dir/img1" 2>/dev/null & ;;
	nbdkit-luks1) nbdkit "${ro[@]}" -f -U "$sock" --filter=luks file "$dir/img1" passphrase=+"$dir/pass" & ;;
	qemu-nbd-luks1) qemu-nbd "${ro[@]}" --socket="$sock" --object secret,id=s0,file="$dir/pass" \
		--image-opts driver=luks,key-secret=s0,file.filename="$dir/img1" --persistent & ;;
	esac
	local pid=$! i
	for ((i = 0; i < 500; i++)); do
		[[ -S $sock ]] && nbdinfo --size "nbd+unix:///?socket=$sock" >/dev/null 2>&1 && break
		sleep 0.02
	done
	local cpu0 t0 t1 cpu1
	cpu0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	t0=$(date +%s.%N)
	if [[ -n $write ]]; then
		nbdcopy "${copyflags[@]}" "$dir/raw" "nbd+unix:///?socket=$sock"
	else
		nbdcopy "${copyflags[@]}" "nbd+unix:///?socket=$sock" null:
	fi
	t1=$(date +%s.%N)
	cpu1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	kill -TERM "$pid"
	wait "$pid" || true
	echo "$(echo "$t1 - $t0" | bc -l) $(echo "($cpu1 - $cpu0) / $tick" | bc -l)"
}

if [[ -n ${NAMES:-} ]]; then
	read -r -a names <<<"$NAMES"
else
	names=(nbdkit-file xts-file xts-luks2 xts-luks1 nbdkit-luks1)
	command -v qemu-nbd >/dev/null && names+=(qemu-nbd-luks1)
fi
declare -A wall cpu
for ((i = 0; i < runs; i++)); do
	for n in "${names[@]}"; do
		read -r w c < <(run_one "$n")
		wall[$n]+="$w "
		cpu[$n]+="$c "
	done
done

mode="export -> null:"
[[ -z $write ]] || mode="FILE -> export"
echo "nbdcopy ${copyflags[*]} $mode, ${size_mib} MiB, ${runs} interleaved runs, $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
base=""
for n in "${names[@]}"; do
	w=$(echo "${wall[$n]}" | median)
	c=$(echo "${cpu[$n]}" | median)
	mbs=$(echo "$size_mib * 1048576 / $w / 1000000" | bc -l)
	[[ -n $base ]] || base=$mbs
	printf '%-12s wall %6.3f s %6.0f MB/s (%4.2fx nbdkit-file)  server CPU %6.3f s\n' "$n" "$w" "$mbs" "$(echo "$mbs / $base" | bc -l)" "$c"
	printf '%-12s   walls: %s\n%-12s   CPUs:  %s\n' "" "${wall[$n]}" "" "${cpu[$n]}"
done
