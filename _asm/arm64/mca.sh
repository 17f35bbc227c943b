#!/bin/sh
# Speed model of the armv8-ce main loops with llvm-mca, as
# ../shared/tools/armmca/mca.sh does, but choosing the innermost loop that
# holds a whole main step (BLOCKS*14 AESE/AESD): the sector routine's
# longest loop is its batch loop around the IV encryption and the units.
# usage: sh _asm/arm64/mca.sh [BINARY]   (default: builds the root package's
# arm64 test binary into a temporary directory)
# Prints, for the unit and sector routines (encryption and decryption),
# cycles per byte on five cores, as modelled and with AESMC/AESIMC
# deleted (the fused AESE+AESMC pairs that LLVM 19 does not model), then
# the same for a whole batch of the sector routine.
set -eu
command -v llvm-mca-19 >/dev/null || { echo "needs llvm-19: apt-get install -y llvm-19" >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
bin=${1:-}
if [ -z "$bin" ]; then
	bin=$tmp/x.test
	(cd "$(dirname "$0")/../.." && GOARCH=arm64 go test -c -o "$bin" .)
fi
blocks=8

# model FILE BYTES ITERATIONS: cycles per byte of FILE's straight-line
# code, repeated, for five cores, as modelled and with AESMC/AESIMC deleted.
model() {
	grep -v '^aes\(i\)\?mc' "$1" >"$tmp/fused.s"
	for cpu in cortex-a72 neoverse-n1 neoverse-n2 neoverse-v1 neoverse-v2; do
		u=$(llvm-mca-19 -mtriple=aarch64 -mcpu=$cpu -mattr=+aes,+sha3 -iterations=$3 "$1" | awk '/Total Cycles/{print $3}')
		f=$(llvm-mca-19 -mtriple=aarch64 -mcpu=$cpu -mattr=+aes,+sha3 -iterations=$3 "$tmp/fused.s" | awk '/Total Cycles/{print $3}')
		python3 -c "print('  %-12s %.3f cycles/byte as modelled, %.3f fused' % ('$cpu', $u/$3/$2, $f/$3/$2))"
	done
}
llvm-objdump-19 -d --no-show-raw-insn "$bin" >"$tmp/all.dis"
for fn in encryptARMv8 decryptARMv8 encryptSectorsARMv8 decryptSectorsARMv8; do
	sym="github.com/fastxts/xts.$fn.abi0"
	awk -v s="<$sym>:" '$0 ~ s {f=1; next} f && /^$/ {exit} f' "$tmp/all.dis" >"$tmp/f.dis"
	python3 - "$tmp/f.dis" "$((blocks * 14))" >"$tmp/loop.s" <<'PY'
import re, sys
ins = []
for line in open(sys.argv[1]):
    m = re.match(r'\s*([0-9a-f]+):\s+(.*)', line)
    if m:
        ins.append((int(m.group(1), 16), m.group(2).split('//')[0].strip()))
need = int(sys.argv[2])
best = None
for a, t in ins:
    m = re.match(r'(?:b\.\w+|b|cbn?z\s+\w+,|tbn?z\s+\w+,\s*#\d+,)\s*0x([0-9a-f]+)', t)
    if not m or int(m.group(1), 16) >= a:
        continue
    lo = int(m.group(1), 16)
    aes = sum(1 for b, u in ins if lo <= b <= a and re.match(r'aes[ed]\s', u))
    if aes >= need and (best is None or a - lo < best[1] - best[0]):
        best = (lo, a)
if best is None:
    sys.exit("no loop with a whole main step")
for a, t in ins:
    if best[0] <= a <= best[1] and not re.match(r'(b\.\w+|b|cbn?z|tbn?z)\s', t):
        print(re.sub(r'\s*<[^>]*>', '', t))
PY
	printf '%s: loop of %d instructions for %d blocks (%d AESE/AESD, %d AESMC/AESIMC)\n' "$fn" \
		"$(wc -l <"$tmp/loop.s")" "$blocks" "$(grep -c '^aes[ed][[:space:]]' "$tmp/loop.s")" "$(grep -c '^aes\(i\)\?mc' "$tmp/loop.s")"
	model "$tmp/loop.s" $((16 * blocks)) 200
done

# A whole batch of the sector routine, AES-256: the IV encryption of four
# units, then four 512-byte units (each its prologue and four main steps),
# straight-line, repeated. This includes what the loop figures leave out.
awk -v s="<github.com/fastxts/xts.encryptSectorsARMv8.abi0>:" '$0 ~ s {f=1; next} f && /^$/ {exit} f' "$tmp/all.dis" >"$tmp/f.dis"
python3 - "$tmp/f.dis" >"$tmp/batch.s" <<'PY'
import re, sys
ins = []
for line in open(sys.argv[1]):
    m = re.match(r'\s*([0-9a-f]+):\s+(.*)', line)
    if m:
        ins.append((int(m.group(1), 16), m.group(2).split('//')[0].strip()))
br = re.compile(r'(b\.\w+|b|cbn?z\s+\w+,|tbn?z\s+\w+,\s*#\d+,)\s*0x([0-9a-f]+)')
back = {}
for a, t in ins:
    m = br.match(t)
    if m and int(m.group(2), 16) < a:
        back[m.group(1)] = (int(m.group(2), 16), a)
batch, unit, step = back['b'], back['b.ne'], back['b.ge']
def code(lo, hi):
    return [re.sub(r'\s*<[^>]*>', '', t) for a, t in ins
            if lo <= a < hi and not re.match(r'(b\.\w+|b|cbn?z|tbn?z)\s', t)]
out = code(batch[0], unit[0])
for _ in range(4):
    out += code(unit[0], step[0]) + 4 * code(step[0], step[1] + 4)
print('\n'.join(out))
PY
echo "encryptSectorsARMv8: a batch of four 512-byte units with their IV encryption, $(wc -l <"$tmp/batch.s") instructions"
model "$tmp/batch.s" 2048 20
