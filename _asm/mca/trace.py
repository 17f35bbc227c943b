#!/usr/bin/env python3
# trace.py BINARY FUNC DECISIONS: print the straight-line path through the
# assembly routine FUNC (package xts) in BINARY, for llvm-mca: from the
# entry, following unconditional jumps and taking each conditional branch
# as the next letter of DECISIONS says (t taken, n not), up to RET; the
# branches themselves are dropped. The decisions taken are listed on
# standard error.
import re, subprocess, sys
binf, func, dec = sys.argv[1], sys.argv[2], list(sys.argv[3])
out = subprocess.run(['objdump', '-d', '--no-show-raw-insn', '-M', 'att', binf,
                      '--disassemble=github.com/fastxts/xts.' + func + '.abi0'],
                     capture_output=True, text=True).stdout
ins = []
for l in out.splitlines():
    m = re.match(r'\s+([0-9a-f]+):\s+(.*)$', l)
    if m:
        ins.append((int(m.group(1), 16), re.sub(r'\s+', ' ', m.group(2).strip())))
idx = {a: i for i, (a, t) in enumerate(ins)}
i, n = 0, 0
while True:
    a, t = ins[i]
    n += 1
    if n > 5000: sys.exit('runaway')
    if t.startswith('ret'):
        break
    m = re.match(r'(j\w+) ([0-9a-f]+)', t)
    if m:
        target = idx[int(m.group(2), 16)]
        if m.group(1) == 'jmp':
            i = target; continue
        d = dec.pop(0)
        print('#', t, d, file=sys.stderr)
        i = target if d == 't' else i + 1
        continue
    if not t.startswith('nop'):
        print(t)
    i += 1
if dec: sys.exit('unused decisions: %s' % ''.join(dec))
