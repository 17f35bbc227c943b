package main

// The key schedule's vector registers: the zero key, the S-box word (and
// a round key being inverted), the inverted key.
const (
	zero vreg = 0
	sub  vreg = 1
	row  vreg = 1
	inv  vreg = 2
)

// keyExpansion emits expandKey: the AES key schedule (FIPS 197, 5.2) in
// straight-line code, one path per key size, in constant time. SubWord is
// AESE with an all-zero round key on the word copied into all four columns
// (ShiftRows then moves nothing, since every row holds one byte value), so
// no table is indexed by key bytes. The words are kept in general
// registers and stored right-aligned into enc, the rows before the first
// zeroed; dec, if not nil, receives
// the equivalent inverse cipher's keys in order of use: dec[s] = enc[14],
// dec[s+i] = InvMixColumns(enc[14-i]) for 0 < i < rounds, dec[14] =
// enc[s], where s = 14-rounds is the first row (the order AESD/AESIMC
// consume them: AESD adds the key before its inverse steps, so the
// sequence is the same as AESDEC's). It zeroes the vector registers it
// used before returning.
func (f *file) keyExpansion() {
	f.text("expandKey", "func expandKey(key *byte, rounds int, enc, dec *[15][16]byte)", 32)
	key, rounds, enc, dec := newGPR(0), newGPR(1), newGPR(2), newGPR(3)
	f.ldArg(key, "key", 0)
	f.ldArg(rounds, "rounds", 8)
	f.ldArg(enc, "enc", 16)
	f.ldArg(dec, "dec", 24)
	f.vzero(zero)
	l192, l256, done := f.newLabel("aes192_"), f.newLabel("aes256_"), f.newLabel("done")
	f.cmpImm(rounds, 12)
	f.beq(l192)
	f.bge(l256)
	f.expandWords(key, enc, dec, 4, 10, done)
	f.label(l192)
	f.expandWords(key, enc, dec, 6, 12, done)
	f.label(l256)
	f.expandWords(key, enc, dec, 8, 14, done)
	f.label(done)
	f.clearVectors(sub, inv) // row is sub's register; zero stayed zero
	f.ret()
}

// expandWords emits the schedule for an nk-word key with the given
// rounds, then the decryption keys, then branches to done.
func (f *file) expandWords(key, enc, dec gpr, nk, rounds int, done string) {
	f.comment("AES-%d: %d rounds", 32*nk, rounds)
	ring := make([]gpr, nk) // ring[i%nk] holds w[i-nk] until w[i] replaces it
	for i := range ring {
		ring[i] = newGPR(4 + i)
	}
	t, c := newGPR(12), newGPR(13)
	base := 16 * (14 - rounds)
	for i := range nk {
		f.ld32(ring[i], 4*i, key)
		f.st32(ring[i], base+4*i, enc)
	}
	rcon := 1
	for i := nk; i < 4*(rounds+1); i++ {
		prev, w := ring[(i-1)%nk], ring[i%nk]
		switch {
		case i%nk == 0: // SubWord(RotWord(w[i-1])) ^ Rcon
			f.subWord(t, prev)
			f.rorw(t, 8)
			f.movImm(c, rcon)
			f.eorw(t, c)
			f.eorw(w, t)
			rcon <<= 1
			if rcon == 0x100 {
				rcon = 0x1b
			}
		case nk == 8 && i%nk == 4: // SubWord(w[i-1])
			f.subWord(t, prev)
			f.eorw(w, t)
		default:
			f.eorw(w, prev)
		}
		f.st32(w, base+4*i, enc)
	}

	s := 14 - rounds
	for r := range s { // rows before the key size's first are zero
		f.ins("FMOVQ", zero.f(), mem(16*r, enc))
	}
	f.cbz(dec, done)
	for r := range s {
		f.ins("FMOVQ", zero.f(), mem(16*r, dec))
	}
	for i := 0; i <= rounds; i++ {
		f.ins("FMOVQ", mem(16*(14-i), enc), row.f())
		if i == 0 || i == rounds {
			f.ins("FMOVQ", row.f(), mem(16*(s+i), dec))
			continue
		}
		f.aesInvMix(inv, row)
		f.ins("FMOVQ", inv.f(), mem(16*(s+i), dec))
	}
	f.b(done)
}

// subWord sets t to SubWord(w) through the AES S-box (AESE with the zero key).
func (f *file) subWord(t, w gpr) {
	f.vdup32(sub, w)
	f.aesSub(zero, sub)
	f.vlane32(t, sub)
}
