package main

import "fmt"

// The AES-XTS routines of the armv8-ce variant, built from phases shared by
// the unit routine and the sector-batch routine: arguments, round-key
// loading, tweak encryption, the blocks (an 8-block main step, then 4, 2
// and 1-block steps for the rest) and ciphertext stealing.
//
// Vector registers:
//
//	V0-V7    data blocks of one step
//	V8-V15   their tweaks
//	V16      the tweak being encrypted
//	V17-V31  round keys, key-schedule row r in V17+r (AES-256 rows 0-14,
//	         AES-192 rows 2-14, AES-128 rows 4-14: the schedule is
//	         right-aligned, so every key size ends in the same registers)
//
// The tweak of the next block lives in two general registers (lo, hi) and
// is doubled there (three instructions), then moved into a vector register
// for its block: cheaper on these cores than doubling in vectors.
//
// While the data key is loaded, the last round key K14 is folded into
// both ends of the cipher, saving one vector instruction per block: the
// vector made for block j is U = T ^ K14 (two integer EORs with K14, kept
// in general registers, before the move), and the entry round's key
// register holds K_first ^ K14. Then AESE(K_first ^ K14, P ^ U) is
// AESE(K_first, P ^ T), and the output is the last AESE's result ^ U: two
// vector EORs per block instead of three. Only the data-key phases use
// this; the tweak encryption runs on the plain tweak key. Decryption is
// the same with AESD/AESIMC and the decryption keys (in order of use, so
// its "K14" is row 14 of dec, the first encryption round key).

const (
	dataV  vreg = 0  // V0-V7
	tweakV vreg = 8  // V8-V15
	ivV    vreg = 16 // tweak encryption
	keyV   vreg = 17 // V17-V31: round keys
	stepN       = 8  // blocks per main step

	offEnc    = 0   // keySchedule.enc
	offDec    = 240 // keySchedule.dec
	offTweak  = 480 // keySchedule.tweak
	offRounds = 720 // keySchedule.rounds
)

// keyRegs is where a key schedule is loaded: row r in register base+r.
type keyRegs vreg

// dataKeys: the key of the blocks, V17-V31. The unit routine's tweak key
// goes to V0-V14 instead, free until the blocks start, so that both keys
// load at once and the tweak's encryption overlaps the data key's loads.
const (
	dataKeys  = keyRegs(keyV)
	unitTweak = keyRegs(0)
)

func (k keyRegs) row(r int) vreg { return vreg(k) + vreg(r) }

// keyRow is the register holding data-key row r.
func keyRow(r int) vreg { return dataKeys.row(r) }

// regs is the general-register plan of a routine: what each one holds.
type regs struct {
	ks, dst, src    gpr // key schedule, destination, source
	lo, hi          gpr // tweak of the next block
	rounds          gpr // 10, 12 or 14
	c87, tmp        gpr // the constant 0x87, a scratch register for doubling
	count           gpr // bytes left for the block phase
	ptr             gpr // scratch pointer
	k14lo, k14hi    gpr // the data key's last round key
	uhi             gpr // high half of T ^ K14 (tmp holds the low half)
	tail, tab, tab2 gpr // unit routine: len%16 and stealing table pointers
}

// loadKeys loads the 15 rows of the key schedule at ks+off into k's
// registers (AES-128 and -192 rows below their start are zero, loaded and
// unused).
func (f *file) loadKeys(p regs, off int, k keyRegs) {
	if off == 0 {
		f.mov(p.ptr, p.ks)
	} else {
		f.addImm(p.ptr, p.ks, off)
	}
	f.vld(p.ptr, true, vrange(k.row(0), 4)...)
	f.vld(p.ptr, true, vrange(k.row(4), 4)...)
	f.vld(p.ptr, true, vrange(k.row(8), 4)...)
	f.vld(p.ptr, false, vrange(k.row(12), 3)...)
}

// cipher runs every round on the blocks, round by round across them (each
// AESE with its AESMC right after it), entering where the key size starts,
// and then adds last[j] to block j: the last round key itself (plain
// keys), or block j's U = T ^ K14 (folded keys). dec selects the inverse
// cipher with the decryption keys.
func (f *file) cipher(p regs, k keyRegs, blocks []vreg, dec bool, last []vreg) {
	l128, l192 := f.newLabel("aes128_"), f.newLabel("aes192_")
	f.tbz(2, p.rounds, l128) // 10 = 0b1010
	f.tbz(1, p.rounds, l192) // 12 = 0b1100, 14 = 0b1110
	for r := 0; r < 14; r++ {
		switch r {
		case 2:
			f.label(l192)
		case 4:
			f.label(l128)
		}
		for j, x := range blocks {
			f.aesRound(k.row(r), x, dec, r == 13)
			if r == 13 {
				f.veor(x, x, last[j])
			}
		}
	}
}

// plainLast is the last-round addition for plain keys.
func plainLast(k keyRegs, n int) []vreg {
	vs := make([]vreg, n)
	for i := range vs {
		vs[i] = k.row(14)
	}
	return vs
}

// foldKeys folds the last round key into the loaded data key: K14 into
// k14lo, k14hi (p.ptr points at row 12 after loadKeys), and the entry
// row's register (row 0, 2 or 4 by key size) ^= K14.
func (f *file) foldKeys(p regs) {
	f.ins("LDP", mem(32, p.ptr), fmt.Sprintf("(%s, %s)", p.k14lo, p.k14hi))
	l128, l192, done := f.newLabel("fold128_"), f.newLabel("fold192_"), f.newLabel("folded")
	f.tbz(2, p.rounds, l128)
	f.tbz(1, p.rounds, l192)
	f.veor(keyRow(0), keyRow(0), keyRow(14))
	f.b(done)
	f.label(l192)
	f.veor(keyRow(2), keyRow(2), keyRow(14))
	f.b(done)
	f.label(l128)
	f.veor(keyRow(4), keyRow(4), keyRow(14))
	f.label(done)
}

// tweakVec sets v to U = T ^ K14 for the folded data key.
func (f *file) tweakVec(p regs, v vreg) {
	f.ins("EOR", p.k14lo.String(), p.lo.String(), p.tmp.String())
	f.ins("EOR", p.k14hi.String(), p.hi.String(), p.uhi.String())
	f.toVec(v, p.tmp, p.uhi)
}

// encryptTweak replaces the tweak in lo, hi by its encryption with the
// tweak key loaded in k (flags bit 0 set: it holds the IV).
func (f *file) encryptTweak(p regs, k keyRegs) {
	f.toVec(ivV, p.lo, p.hi)
	f.cipher(p, k, []vreg{ivV}, false, plainLast(k, 1))
	f.fromVec(p.lo, p.hi, ivV)
}

// loadDataKeys loads the data key's rounds for the direction into V17-V31,
// folded.
func (f *file) loadDataKeys(p regs, dec bool) {
	if dec {
		f.loadKeys(p, offDec, dataKeys)
	} else {
		f.loadKeys(p, offEnc, dataKeys)
	}
	f.foldKeys(p)
}

// step processes n blocks from src to dst, advancing both and the tweak:
// each block gets the current tweak, which is then doubled.
func (f *file) step(p regs, n int, dec bool) {
	data := vrange(dataV, n)
	tw := vrange(tweakV, n)
	for i := 0; i < n; i += 4 {
		f.vld(p.src, true, data[i:min(i+4, n)]...)
	}
	for j := range n {
		f.tweakVec(p, tw[j])
		f.double(p.lo, p.hi, p.c87, p.tmp)
		f.veor(data[j], data[j], tw[j])
	}
	f.cipher(p, dataKeys, data, dec, tw)
	for i := 0; i < n; i += 4 {
		f.vst(p.dst, true, data[i:min(i+4, n)]...)
	}
}

// blocks processes p.count bytes (a multiple of 16, possibly 0): 8-block
// steps while 128 bytes remain, then one step each of 4, 2 and 1 blocks as
// the remainder's bits say. p.count is consumed.
func (f *file) blocks(p regs, dec bool) {
	loop, tail := f.newLabel("loop"), f.newLabel("tail")
	f.subsImm(p.count, 16*stepN)
	f.blt(tail)
	f.label(loop)
	f.step(p, stepN, dec)
	f.subsImm(p.count, 16*stepN)
	f.bge(loop)
	f.label(tail)
	// count is now (bytes mod 128) - 128: its bits 6..4 are those of the
	// remainder.
	for _, n := range []int{4, 2, 1} {
		skip := f.newLabel("skip")
		f.tbz(4+log2(n), p.count, skip)
		f.step(p, n, dec)
		f.label(skip)
	}
}

func log2(n int) int {
	k := 0
	for n > 1 {
		n >>= 1
		k++
	}
	return k
}

// steal finishes a data unit of 16m+r bytes, 0 < r < 16, after the first
// m-1 blocks: src and dst point at block m-1, lo, hi hold T(m-1). Both
// source pieces are loaded before anything is stored, so it works in
// place. Encryption: CC = E(P(m-1), T(m-1)); the output's partial block is
// CC's first r bytes; P(m) followed by CC's last 16-r bytes is encrypted
// with T(m) into block m-1. Decryption swaps the two tweaks. The partial
// pieces move with TBL/TBX through 16-byte windows that end at the
// buffers' ends (no byte loops, no access outside the buffers):
// stealTable[n] = n-32 (mod 256) yields the index vectors.
//
// On return lo, hi hold T(m), the tweak after the last full block.
func (f *file) steal(p regs, dec bool) {
	const (
		full   vreg = 0 // block m-1 of src, then its result
		window vreg = 1 // src[len-16:len]: the last r bytes are P(m)
		idxOut vreg = 2 // picks the partial output from full's result
		idxIn  vreg = 3 // picks P(m) from window
		out    vreg = 4 // dst[len-16:len]
		t1     vreg = 8 // tweak of the first block processed here
		t2     vreg = 9 // tweak of the second
	)
	f.vld(p.src, false, full)
	f.add(p.ptr, p.src, p.tail)
	f.vld(p.ptr, false, window)
	// Index vectors: idxOut[j] = j+r-16 at stealTable+16+r, idxIn[i] =
	// i+16-r at stealTable+48-r.
	f.addr(p.tab, "stealTable<>")
	f.add(p.tab2, p.tab, p.tail)
	f.addImm(p.tab2, p.tab2, 16)
	f.vld(p.tab2, false, idxOut)
	f.addImm(p.tab2, p.tab, 48)
	f.sub(p.tab2, p.tab2, p.tail)
	f.vld(p.tab2, false, idxIn)
	first, second := t1, t2
	if dec {
		first, second = t2, t1
	}
	f.tweakVec(p, t1)
	f.double(p.lo, p.hi, p.c87, p.tmp)
	f.tweakVec(p, t2)

	f.veor(full, full, first)
	f.cipher(p, dataKeys, []vreg{full}, dec, []vreg{first})
	// out: full's first r bytes at its end; full: P(m) in its first r bytes.
	f.vtbl(out, full, idxOut)
	f.vtbx(full, window, idxIn)
	f.veor(full, full, second)
	f.cipher(p, dataKeys, []vreg{full}, dec, []vreg{second})
	f.add(p.ptr, p.dst, p.tail)
	f.vst(p.ptr, false, out) // dst[len-16:len], then block m-1 over its start
	f.vst(p.dst, false, full)
}

// stealTable is 64 bytes, byte n = n-32 mod 256: 16-byte windows of it are
// TBL index vectors that shift a block by r bytes either way, with
// out-of-range (>= 16) indices where bytes are to be zeroed or kept.
func (f *file) stealTable() {
	f.raw("\n")
	for q := 0; q < 8; q++ {
		var v uint64
		for i := 7; i >= 0; i-- {
			v = v<<8 | uint64(byte(8*q+i-32))
		}
		f.raw("DATA stealTable<>+%d(SB)/8, $0x%016x\n", 8*q, v)
	}
	f.raw("GLOBL stealTable<>(SB), RODATA|NOPTR, $64\n")
}

// routineName is encrypt<kind>ARMv8 or decrypt<kind>ARMv8.
func routineName(kind string, dec bool) string {
	if dec {
		return "decrypt" + kind + "ARMv8"
	}
	return "encrypt" + kind + "ARMv8"
}

// sliceArgs loads the arguments every XTS routine starts with: the key
// schedule, dst's and src's bases, and len(src) into length.
func (f *file) sliceArgs(p regs, length gpr) {
	f.ldArg(p.ks, "ks", 0)
	f.ldArg(p.dst, "dst_base", 8)
	f.ldArg(p.src, "src_base", 32)
	f.ldArg(length, "src_len", 40)
}

// unitRoutine emits encryptARMv8 or decryptARMv8: one data unit, or part
// of one, per call (the contract is in the Go declarations).
func (f *file) unitRoutine(dec bool) {
	name := routineName("", dec)
	f.text(name, "func "+name+"(ks *keySchedule, dst, src []byte, tweakLo, tweakHi, flags uint64) (lo, hi uint64)", 96)
	p := regs{
		ks: newGPR(0), dst: newGPR(1), src: newGPR(2), count: newGPR(3),
		lo: newGPR(4), hi: newGPR(5), rounds: newGPR(7), c87: newGPR(8), tmp: newGPR(9),
		ptr: newGPR(10), tail: newGPR(11), tab: newGPR(12), tab2: newGPR(13),
		k14lo: newGPR(14), k14hi: newGPR(15), uhi: newGPR(16),
	}
	flags := newGPR(6)
	f.sliceArgs(p, p.count)
	f.ldArg(p.lo, "tweakLo", 56)
	f.ldArg(p.hi, "tweakHi", 64)
	f.ldArg(flags, "flags", 72)
	done := f.newLabel("done")
	// Defensive: below 16 bytes (outside the contract) touch no memory.
	f.cmpImm(p.count, 16)
	f.blt(done)
	f.ld64(p.rounds, offRounds, p.ks)
	f.movImm(p.c87, 0x87)

	// Both keys load at once; the tweak's encryption then overlaps the
	// data key's loads and folding.
	noIV, noIV2 := f.newLabel("noiv"), f.newLabel("noiv")
	f.tbz(0, flags, noIV)
	f.loadKeys(p, offTweak, unitTweak)
	f.label(noIV)
	f.loadDataKeys(p, dec)
	f.tbz(0, flags, noIV2)
	f.encryptTweak(p, unitTweak)
	f.label(noIV2)

	// With a partial last block the last full one is left to steal.
	f.andImm(p.tail, p.count, 15)
	f.sub(p.count, p.count, p.tail)
	whole := f.newLabel("whole")
	f.cbz(p.tail, whole)
	f.subsImm(p.count, 16)
	f.label(whole)
	f.blocks(p, dec)
	f.cbz(p.tail, done)
	f.steal(p, dec)
	f.label(done)
	f.stArg(p.lo, "lo", 80)
	f.stArg(p.hi, "hi", 88)
	f.ret()
}

// sectorRoutine emits encryptSectorsARMv8 or decryptSectorsARMv8: whole
// data units, unit k with the IV first + k*step. Like the amd64 sector
// routines it zeroes every vector register before returning (both keys'
// round keys, tweaks, data: U = T ^ K14 of consecutive blocks gives K14
// away); one call is a whole bulk request, where 32 zeroing instructions
// cost nothing measurable. The unit routines leave them, as on amd64. The IVs of four units are
// encrypted together (four independent AES chains instead of one each),
// with the tweak key loaded for that and the data key reloaded after;
// the encrypted tweaks wait in general registers.
func (f *file) sectorRoutine(dec bool) {
	name := routineName("Sectors", dec)
	f.text(name, "func "+name+"(ks *keySchedule, dst, src []byte, sectorSize int, first, step uint64)", 80)
	p := regs{
		ks: newGPR(0), dst: newGPR(1), src: newGPR(2), count: newGPR(10),
		lo: newGPR(4), hi: newGPR(5), rounds: newGPR(7), c87: newGPR(8), tmp: newGPR(9),
		ptr: newGPR(13), k14lo: newGPR(24), k14hi: newGPR(25),
	}
	p.uhi = p.ptr // the pointer is only used while keys load
	units, size, iv, step, batch := newGPR(3), newGPR(6), newGPR(11), newGPR(12), newGPR(14)
	const batchN = 4
	ivs := [batchN][2]gpr{{15, 16}, {17, 19}, {20, 21}, {22, 23}}
	f.sliceArgs(p, units)
	f.ldArg(size, "sectorSize", 56)
	f.ldArg(iv, "first", 64)
	f.ldArg(step, "step", 72)
	done := f.newLabel("done")
	// Defensive: a sectorSize that is not a positive multiple of 16 does
	// nothing; a partial last unit is left alone.
	f.cmpImm(size, 16)
	f.blt(done)
	f.andImm(p.tmp, size, 15)
	f.cbnz(p.tmp, done)
	f.udiv(units, units, size)
	f.cbz(units, done)
	f.ld64(p.rounds, offRounds, p.ks)
	f.movImm(p.c87, 0x87)

	outer, inner := f.newLabel("batch"), f.newLabel("unit")
	f.label(outer)
	f.comment("Encrypt the next %d IVs with the tweak key.", batchN)
	f.loadKeys(p, offTweak, dataKeys)
	blocks := vrange(dataV, batchN)
	for _, b := range blocks {
		f.ins("FMOVD", iv.String(), b.f()) // IV = little-endian number, 8 zero bytes
		f.add(iv, iv, step)
	}
	f.cipher(p, dataKeys, blocks, false, plainLast(dataKeys, batchN))
	for i, b := range blocks {
		f.fromVec(ivs[i][0], ivs[i][1], b)
	}
	f.loadDataKeys(p, dec)
	f.movImm(batch, batchN)
	f.label(inner)
	f.mov(p.lo, ivs[0][0])
	f.mov(p.hi, ivs[0][1])
	for i := 0; i+1 < batchN; i++ {
		f.mov(ivs[i][0], ivs[i+1][0])
		f.mov(ivs[i][1], ivs[i+1][1])
	}
	f.mov(p.count, size)
	f.blocks(p, dec)
	f.subsImm(units, 1)
	f.beq(done)
	f.subsImm(batch, 1)
	f.bne(inner)
	f.b(outer)
	f.label(done)
	f.clearVectors(vrange(0, 32)...)
	f.ret()
}
