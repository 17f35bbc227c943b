#!/bin/sh
# CI check for the generated assembly:
#  1. zasm_amd64.s is exactly what this generator writes now;
#  2. it obeys the encoding rules (TestGeneratedAssemblyRules in the root
#     package: no register >= 16, Z/K register or EVEX-only instruction in
#     routines for CPUs without AVX-512, no SSE/VEX mixing, VZEROUPPER
#     before RET in ymm/zmm code, no stack frame);
#  3. zxts_arm64.s, zxts_arm64.go and internal/peak/peak_arm64.s are what
#     _asm/arm64 writes now, zxts_arm64.s with no
#     hidden R27 expansion and within TestGeneratedARM64Rules (run under
#     qemu-aarch64).
# Run from anywhere: sh _asm/check.sh
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
go run . -out "$tmp/zasm_amd64.s"
# The first line records the command line, which names the output path:
# compare the rest.
tail -n +2 ../zasm_amd64.s >"$tmp/committed"
tail -n +2 "$tmp/zasm_amd64.s" >"$tmp/fresh"
if ! cmp -s "$tmp/committed" "$tmp/fresh"; then
	echo "zasm_amd64.s is stale: run 'cd _asm && go generate .'" >&2
	diff -u "$tmp/committed" "$tmp/fresh" | head -40 >&2
	exit 1
fi
# The same for arm64: zxts_arm64.s, zxts_arm64.go and peak_arm64.s as
# _asm/arm64 writes them now.
go run ./arm64 -out "$tmp/zxts_arm64.s" -stubs "$tmp/zxts_arm64.go"
go run ./arm64 -peak "$tmp/peak_arm64.s"
for f in zxts_arm64.s zxts_arm64.go internal/peak/peak_arm64.s; do
	tail -n +2 "../$f" >"$tmp/committed"
	tail -n +2 "$tmp/$(basename "$f")" >"$tmp/fresh"
	if ! cmp -s "$tmp/committed" "$tmp/fresh"; then
		echo "$f is stale: run 'cd _asm/arm64 && go generate .'" >&2
		diff -u "$tmp/committed" "$tmp/fresh" | head -40 >&2
		exit 1
	fi
done
cd ..
go vet ./...
go test -count=1 -run 'TestGeneratedAssemblyRules' .
echo "zasm_amd64.s: current and within the encoding rules"
# arm64: vet (asmdecl) for arm64, no hidden R27 in the built routines (the
# assembler uses R27 to build an immediate that does not encode), and the
# rules test (TestGeneratedARM64Rules) under qemu-aarch64.
GOARCH=arm64 go vet ./...
GOARCH=arm64 go test -c -o "$tmp/arm64.test" .
if go tool objdump -s '^github.com/fastxts/xts\.(expandKey|(en|de)crypt(Sectors)?ARMv8)\.abi0$' "$tmp/arm64.test" | grep -w R27 >&2; then
	echo "zxts_arm64.s: the assembler expanded an instruction through R27" >&2
	exit 1
fi
qemu-aarch64 -cpu max "$tmp/arm64.test" -test.count=1 -test.run 'TestGeneratedARM64Rules|TestExpandKeyARM64'
echo "zxts_arm64.s: current and within the encoding rules"
