#!/bin/sh
# Model the AES-256 decryption hot paths of the AVX-512 variants with
# llvm-mca-19 (LLVM 19 models Zen 5 with its Zen 4 tables: -mcpu=znver5
# and -mcpu=znver4 agree), on the three cores the variant table cares
# about. Prints cycles per 16 bytes:
#   - the main loops (steady state, branches dropped, the AES-256 path),
#     from extract.py over the compiled test binary;
#   - one 512-byte unit call end to end (flags=1, AES-256), from trace.py,
#     repeated back to back (llvm-mca assumes no memory dependencies).
# Usage: sh _asm/mca/run.sh [test-binary]   (default: builds the root
# package's test binary). Needs objdump (binutils), python3, llvm-mca-19.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
bin=${1:-}
if [ -z "$bin" ]; then
	bin=$tmp/xts.test
	(cd "$here/../.." && go test -c -o "$bin" .)
fi
cpus="znver4 znver5 sapphirerapids"
mca() { # file iterations bytes-per-iteration
	for cpu in $cpus; do
		c=$(llvm-mca-19 -mtriple=x86_64 -mcpu="$cpu" -iterations="$2" "$1" 2>&1 | awk '/Total Cycles/ {print $3}')
		printf ' %6.2f' "$(echo "$c / $2 / ($3 / 16)" | bc -l)"
	done
	echo
}
loop() { # function backward-branch-index bytes label
	python3 "$here/extract.py" "$bin" "$1" "$2" >"$tmp/l.s"
	printf '%-44s' "$4"
	mca "$tmp/l.s" 300 "$3"
}
echo "AES-256 decryption, cycles per 16 bytes    znver4 znver5    spr"
loop decryptVAESAVX10_512 0 256 "unit loop, vaes-avx10_512 (256 B/iter)"
loop decryptSectorsVAESAVX10_512 0 512 "sector loop, vaes-avx10_512 (512 B/iter)"
loop decryptVAESAVX10_256 0 128 "unit loop, vaes-avx10_256 (128 B/iter)"
loop decryptSectorsVAESAVX10_256 0 256 "sector loop, vaes-avx10_256 (256 B/iter)"
# The 512-byte call: length checks, tweak encryption (AES-256), four
# tweak vectors, the first step, the loop's last step, return.
python3 "$here/trace.py" "$bin" decryptVAESAVX10_512 nnnnntnnnntnn >"$tmp/c.s" 2>/dev/null
printf '%-44s' "one 512-byte call, vaes-avx10_512"
mca "$tmp/c.s" 100 512
