#!/usr/bin/env python3
# extract.py BINARY FUNC [INDEX [list]]: print the body of one loop of the
# assembly routine FUNC (package xts) in BINARY, for llvm-mca: the
# instructions from the target of a backward branch to the branch, in
# AT&T syntax, with every branch (and padding) dropped, so that the
# straight-line path is the one that falls through every conditional
# branch (the AES-256 path of the round-count dispatch). INDEX picks the
# backward branch in address order (default: the one with the longest
# span); "list" prints them instead.
import re, subprocess, sys
binf, func = sys.argv[1], sys.argv[2]
which = int(sys.argv[3]) if len(sys.argv) > 3 else -1
out = subprocess.run(['objdump', '-d', '--no-show-raw-insn', '-M', 'att', binf,
                      '--disassemble=github.com/fastxts/xts.' + func + '.abi0'],
                     capture_output=True, text=True).stdout
ins = []
for l in out.splitlines():
    m = re.match(r'\s+([0-9a-f]+):\s+(.*)$', l)
    if m:
        ins.append((int(m.group(1), 16), m.group(2).strip()))
back = []
for a, t in ins:
    m = re.match(r'j\w+\s+([0-9a-f]+)\s+<', t)
    if m and int(m.group(1), 16) < a:
        back.append((int(m.group(1), 16), a))
if len(sys.argv) > 4 and sys.argv[4] == 'list':
    for b in back: print(hex(b[0]), hex(b[1]))
    sys.exit()
lo, hi = back[which] if which >= 0 else max(back, key=lambda b: b[1] - b[0])
for a, t in ins:
    if lo <= a <= hi:
        if t.startswith('j') or t.startswith('nop') or t.startswith('int3'):
            continue
        t = re.sub(r'\s+', ' ', t)
        print(t)
