#!/usr/bin/env bash
# nbd-bench.sh: nbdcopy throughput (export -> null:) from three servers on
# the same data, interleaved runs, medians:
#   nbdkit-file  nbdkit's file plugin on a plain file
#   xts-file     internal/nbd on the same plain file (internal/nbd/nbdfile)
#   xts-luks     xts luks serve --readonly on a LUKS2 image of that data
#                (aes-xts-plain64, 512-bit key, 4096-byte sectors)
# The goal: xts-file >= nbdkit-file, xts-luks >= 0.8 x nbdkit-file.
#
# Usage: scripts/nbd-bench.sh [SIZE_MIB [RUNS [NBDCOPY FLAGS...]]]
#   defaults: 1024 MiB, 5 runs, nbdcopy's own defaults.
# Needs nbdkit, nbdcopy and Go; writes 2 x SIZE in a temporary directory
# (under $TMPDIR) and reads it once to put it in the page cache.
set -euo pipefail
cd "$(dirname "$0")/.."

size_mib=${1:-1024}
runs=${2:-5}
shift $(($# < 2 ? $# : 2))
copyflags=("$@")

for tool in nbdkit nbdcopy go; do
	command -v "$tool" >/dev/null || { echo "nbd-bench.sh: $tool is not installed" >&2; exit 1; }
done

dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/xts" ./cmd/xts
go build -o "$dir/nbdfile" ./internal/nbd/nbdfile

echo "making ${size_mib} MiB of random data and its LUKS2 image in $dir" >&2
head -c "$((size_mib << 20))" /dev/urandom >"$dir/raw"
printf 'bench' >"$dir/pass"
"$dir/xts" luks encrypt -d "$dir/pass" --pbkdf pbkdf2 --pbkdf-force-iterations 1000 "$dir/raw" "$dir/img"
cat "$dir/raw" "$dir/img" >/dev/null # into the page cache

# The copy times itself, so that server start-up (and the LUKS key
# derivation) is not counted.
copy="t0=\$(date +%s.%N); nbdcopy ${copyflags[*]} \"\$uri\" null: && echo \"\$(date +%s.%N) - \$t0\" | bc -l >$dir/t"
run_one() { # run_one NAME: prints the seconds one copy took
	rm -f "$dir/t"
	case $1 in
	nbdkit-file) nbdkit -r -U - file "$dir/raw" --run "$copy" ;;
	xts-file) "$dir/nbdfile" -readonly "$dir/raw" "$copy" ;;
	xts-luks) "$dir/xts" luks serve --readonly -d "$dir/pass" --run "$copy" "$dir/img" 2>/dev/null ;;
	esac
	cat "$dir/t"
}

names=(nbdkit-file xts-file xts-luks)
declare -A times
for ((i = 0; i < runs; i++)); do
	for n in "${names[@]}"; do
		times[$n]+="$(run_one "$n") "
	done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
echo "nbdcopy ${copyflags[*]} export null:, ${size_mib} MiB, ${runs} interleaved runs, $(nproc) CPUs"
base=""
for n in "${names[@]}"; do
	m=$(echo "${times[$n]}" | median)
	mbs=$(echo "$size_mib * 1048576 / $m / 1000000" | bc -l)
	[[ -n $base ]] || base=$mbs
	printf '%-12s median %6.3f s  %7.0f MB/s  %4.2fx nbdkit-file   (runs: %s)\n' "$n" "$m" "$mbs" "$(echo "$mbs / $base" | bc -l)" "${times[$n]}"
done
