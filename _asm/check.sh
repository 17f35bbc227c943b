#!/bin/sh
# CI check for the generated assembly:
#  1. every generated file is exactly what its generator writes now:
#     zasm_amd64.s and its Go declarations zasm_amd64.go (package xts),
#     zserpent_amd64.{s,go} (Serpent-XTS, _asm/serpent, whose S-box
#     circuits TestSboxCircuits checks on every input),
#     zcamellia_amd64.{s,go} (Camellia-XTS, _asm/camellia, whose GFNI
#     S-box maps TestGFNIDerivation checks on every input),
#     ztwofish_amd64.{s,go} (Twofish-XTS, _asm/twofish, whose GFNI
#     matrices TestMulMatrix checks on every byte),
#     zkuznyechik_amd64.{s,go} (Kuznyechik-XTS, _asm/kuznyechik, whose
#     multiplication matrices and transposition TestMulMatrices and
#     TestTransposePlan check),
#     internal/cpuid/zcpuid_amd64.{s,go} (the CPUID probes),
#     internal/peak/peak_amd64.s (TestGeneratedFileIsCurrent in ./peak),
#     internal/argon2/zblamka_amd64.s (the same in ./argon2), and for
#     arm64 zxts_arm64.{s,go} and internal/peak/peak_arm64.s (_asm/arm64);
#     and `go generate ./...` in both modules (the root and _asm), run on a
#     copy of the tree, changes no file at all, first lines included (they
#     record the generator's command line and so its output path);
#  2. they obey the encoding rules (TestGeneratedAssemblyRules in the root
#     package: no register >= 16, Z/K register or EVEX-only instruction in
#     routines for CPUs without AVX-512, no SSE/VEX mixing, VZEROUPPER
#     before RET in ymm/zmm code, no stack frame), and expandKey and the
#     sector routines zero the vector registers they wrote
#     (TestGeneratedAssemblyClearsVectors), and the same for
#     zserpent_amd64.s, ztwofish_amd64.s, zkuznyechik_amd64.s and
#     zcamellia_amd64.s (TestGeneratedCipherAssembly: mask registers
#     cleared too, no indexed memory operand); on arm64
#     TestGeneratedARM64Rules (reserved registers, encodable immediates,
#     fused AES pairs, no SHA3, no frame) and TestGeneratedARM64ClearsVectors
#     (expandKey and the sector routines zero their vector registers), run
#     under qemu-aarch64, with no hidden R27 expansion in the built routines.
# Run from anywhere: sh _asm/check.sh
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
stale=0

# same GENERATED FRESH REGENERATE: compare all but the first line (it
# records the command line, which names the output path).
same() {
	tail -n +2 "$1" >"$tmp/committed"
	tail -n +2 "$2" >"$tmp/fresh"
	if ! cmp -s "$tmp/committed" "$tmp/fresh"; then
		echo "$1 is stale: run '$3'" >&2
		diff -u "$tmp/committed" "$tmp/fresh" | head -40 >&2
		stale=1
	fi
}

go run . -out "$tmp/zasm_amd64.s" -stubs "$tmp/zasm_amd64.go" -pkg xts
same ../zasm_amd64.s "$tmp/zasm_amd64.s" "cd _asm && go generate ."
same ../zasm_amd64.go "$tmp/zasm_amd64.go" "cd _asm && go generate ."
go run ./cpuid -out "$tmp/zcpuid_amd64.s" -stubs "$tmp/zcpuid_amd64.go" -pkg cpuid
same ../internal/cpuid/zcpuid_amd64.s "$tmp/zcpuid_amd64.s" "cd _asm/cpuid && go generate ."
same ../internal/cpuid/zcpuid_amd64.go "$tmp/zcpuid_amd64.go" "cd _asm/cpuid && go generate ."
go run ./serpent -out "$tmp/zserpent_amd64.s" -stubs "$tmp/zserpent_amd64.go" -pkg xts
same ../zserpent_amd64.s "$tmp/zserpent_amd64.s" "cd _asm/serpent && go generate ."
same ../zserpent_amd64.go "$tmp/zserpent_amd64.go" "cd _asm/serpent && go generate ."
go run ./twofish -out "$tmp/ztwofish_amd64.s" -stubs "$tmp/ztwofish_amd64.go" -pkg xts
same ../ztwofish_amd64.s "$tmp/ztwofish_amd64.s" "cd _asm/twofish && go generate ."
same ../ztwofish_amd64.go "$tmp/ztwofish_amd64.go" "cd _asm/twofish && go generate ."
go run ./kuznyechik -out "$tmp/zkuznyechik_amd64.s" -stubs "$tmp/zkuznyechik_amd64.go" -pkg xts
same ../zkuznyechik_amd64.s "$tmp/zkuznyechik_amd64.s" "cd _asm/kuznyechik && go generate ."
same ../zkuznyechik_amd64.go "$tmp/zkuznyechik_amd64.go" "cd _asm/kuznyechik && go generate ."
go run ./camellia -out "$tmp/zcamellia_amd64.s" -stubs "$tmp/zcamellia_amd64.go" -pkg xts
same ../zcamellia_amd64.s "$tmp/zcamellia_amd64.s" "cd _asm/camellia && go generate ."
same ../zcamellia_amd64.go "$tmp/zcamellia_amd64.go" "cd _asm/camellia && go generate ."
go test -count=1 ./peak ./argon2 ./arm64 ./serpent ./kuznyechik ./twofish ./camellia
go run ./arm64 -out "$tmp/zxts_arm64.s" -stubs "$tmp/zxts_arm64.go"
same ../zxts_arm64.s "$tmp/zxts_arm64.s" "cd _asm/arm64 && go generate ."
same ../zxts_arm64.go "$tmp/zxts_arm64.go" "cd _asm/arm64 && go generate ."
go run ./arm64 -peak "$tmp/peak_arm64.s"
same ../internal/peak/peak_arm64.s "$tmp/peak_arm64.s" "cd _asm/arm64 && go generate ."
[ "$stale" = 0 ] || exit 1

# go generate in both modules, on a copy of the tracked and untracked (not
# ignored) files, must leave every file as it is, byte for byte: the loop
# above compares bodies only, this catches a header that names another
# path than the //go:generate line does.
git -C .. ls-files -z -c -o --exclude-standard >"$tmp/files"
mkdir "$tmp/before" "$tmp/after"
(cd .. && tar --null -T "$tmp/files" -cf -) | tar -xf - -C "$tmp/before"
(cd .. && tar --null -T "$tmp/files" -cf -) | tar -xf - -C "$tmp/after"
(cd "$tmp/after" && go generate ./... && cd _asm && go generate ./...)
if ! diff -r "$tmp/before" "$tmp/after" >"$tmp/drift"; then
	echo "go generate ./... (root and _asm) changes the tree: regenerate with it and commit" >&2
	head -40 "$tmp/drift" >&2
	exit 1
fi

cd ..
go vet ./...
go test -count=1 -run 'TestGeneratedAssembly(Rules|ClearsVectors)$|TestGeneratedCipherAssembly$' .
# arm64: vet (asmdecl), no R27 in the built routines (the assembler builds
# an immediate that does not encode in R27, behind the program's back),
# and the rules test under qemu-aarch64.
CGO_ENABLED=0 GOARCH=arm64 go vet ./...
CGO_ENABLED=0 GOARCH=arm64 go test -c -o "$tmp/arm64.test" .
if go tool objdump -s '^github.com/fastxts/xts\.(expandKey|(en|de)crypt(Sectors)?ARMv8)\.abi0$' "$tmp/arm64.test" | grep -w R27 >&2; then
	echo "zxts_arm64.s: the assembler expanded an instruction through R27" >&2
	exit 1
fi
qemu-aarch64 -cpu max "$tmp/arm64.test" -test.count=1 -test.run 'TestGeneratedARM64(Rules|ClearsVectors)|TestExpandKey|TestNewKeySchedule'
echo "generated files: current and within the encoding rules"
