#!/bin/sh
# CI check for the generated assembly:
#  1. zasm_amd64.s is exactly what this generator writes now;
#  2. it obeys the encoding rules (TestGeneratedAssemblyRules in the root
#     package: no register >= 16, Z/K register or EVEX-only instruction in
#     routines for CPUs without AVX-512, no SSE/VEX mixing, VZEROUPPER
#     before RET in ymm/zmm code, no stack frame).
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
cd ..
go vet ./...
go test -count=1 -run 'TestGeneratedAssemblyRules' .
echo "zasm_amd64.s: current and within the encoding rules"
