package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// genKeyExpansion emits expandKey (its Go declaration is generated too).
//
// It uses only legacy-SSE encodings on X0-X4, so it runs on every CPU with
// AES-NI, AVX or not, and mixes no VEX into the caller's state. There is no
// stack frame: round keys live in X1-X4 and are stored only into enc and dec,
// and those registers are cleared before returning. The only branches are on
// rounds (the key size, which is public) and on dec being nil.
//
// Round keys are right-aligned in enc (see keySchedule): the first round key
// of AES-128 goes to row 4, of AES-192 to row 2, of AES-256 to row 0, and the
// rows before it are zeroed.
func genKeyExpansion() {
	TEXT("expandKey", NOSPLIT, "func(key *byte, rounds int, enc, dec *[15][16]byte)")
	Pragma("noescape")
	Doc("expandKey expands an AES key of 16, 24 or 32 bytes (rounds 10, 12 or 14)",
		"into right-aligned encryption round keys and, if dec is not nil, the",
		"decryption round keys of the equivalent inverse cipher in order of use:",
		"dec[last-r] = InvMixColumns(enc[r]) for the middle rounds, with the first",
		"and last rows copied unchanged. Requires AES-NI.")

	key, rounds, enc, dec := RAX, RCX, RDX, RBX
	Load(Param("key"), key)
	Load(Param("rounds"), rounds)
	Load(Param("enc"), enc)
	Load(Param("dec"), dec)

	zero := X0
	PXOR(zero, zero)

	CMPQ(rounds, Imm(12))
	JEQ(LabelRef("aes192"))
	JHI(LabelRef("aes256"))

	// AES-128, rows 4..14.
	for r := 0; r < 4; r++ {
		MOVOU(zero, row(enc, r))
	}
	MOVOU(Mem{Base: key}, X1)
	MOVOU(X1, row(enc, 4))
	for i, rcon := range []int{0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36} {
		Comment(fmt.Sprintf("AES-128 round key %d", i+1))
		// X2 = broadcast of RotWord(SubWord(w[i-1])) ^ rcon, from dword 3.
		AESKEYGENASSIST(U8(rcon), X1, X2)
		PSHUFD(U8(0xff), X2, X2)
		prefixXOR(X1, X4, 3)
		PXOR(X2, X1)
		MOVOU(X1, row(enc, 5+i))
	}
	JMP(LabelRef("decrypt"))

	// AES-192, rows 2..14. The 52 key words w0..w51 lie contiguously from
	// row 2 on, so each step's six new words are stored as 16 bytes (X1:
	// four words) then 8 bytes (the low half of X3: two words) at a 24-byte
	// stride. The key is read as 16 + 8 bytes, never past its 24 bytes.
	Label("aes192")
	for r := 0; r < 2; r++ {
		MOVOU(zero, row(enc, r))
	}
	MOVOU(Mem{Base: key}, X1)          // w0..w3
	MOVQ(Mem{Base: key, Disp: 16}, X3) // w4, w5 (upper half zeroed)
	MOVOU(X1, Mem{Base: enc, Disp: 32})
	MOVQ(X3, Mem{Base: enc, Disp: 48})
	for j, rcon := range []int{0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80} {
		Comment(fmt.Sprintf("AES-192 key words %d..%d", 6*(j+1), 6*(j+1)+5))
		// X2 = broadcast of RotWord(SubWord(w5)) ^ rcon, from dword 1 (w5 is
		// dword 1 of X3).
		AESKEYGENASSIST(U8(rcon), X3, X2)
		PSHUFD(U8(0x55), X2, X2)
		prefixXOR(X1, X4, 3)
		PXOR(X2, X1) // X1 = w6..w9
		off := 32 + 24*(j+1)
		MOVOU(X1, Mem{Base: enc, Disp: off})
		if j == 7 {
			break // w48..w51 end the schedule
		}
		// w10 = w4 ^ w9, w11 = w5 ^ w10: prefix XOR of the low two words
		// of X3, plus w9 broadcast. The upper half of X3 becomes garbage
		// but only dword 1 and the low 8 bytes are ever used.
		PSHUFD(U8(0xff), X1, X2)
		prefixXOR(X3, X4, 1)
		PXOR(X2, X3)
		MOVQ(X3, Mem{Base: enc, Disp: off + 16})
	}
	JMP(LabelRef("decrypt"))

	// AES-256, rows 0..14. Even steps derive a new X1 from the previous
	// X1 and RotWord(SubWord()) of the last word of X3; odd steps derive a
	// new X3 from the previous X3 and SubWord() of the last word of X1.
	Label("aes256")
	MOVOU(Mem{Base: key}, X1)
	MOVOU(Mem{Base: key, Disp: 16}, X3)
	MOVOU(X1, row(enc, 0))
	MOVOU(X3, row(enc, 1))
	for i, rcon := range []int{0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40} {
		Comment(fmt.Sprintf("AES-256 round key %d", 2+2*i))
		AESKEYGENASSIST(U8(rcon), X3, X2)
		PSHUFD(U8(0xff), X2, X2)
		prefixXOR(X1, X4, 3)
		PXOR(X2, X1)
		MOVOU(X1, row(enc, 2+2*i))
		if i == 6 {
			break // round key 14 is the last
		}
		Comment(fmt.Sprintf("AES-256 round key %d", 3+2*i))
		AESKEYGENASSIST(U8(0), X1, X2)
		PSHUFD(U8(0xaa), X2, X2) // SubWord(dword 3), no rotation
		prefixXOR(X3, X4, 3)
		PXOR(X2, X3)
		MOVOU(X3, row(enc, 3+2*i))
	}

	// Decryption keys, if asked for: with s = 14-rounds the first used
	// row, dec[s] = enc[14], dec[s+i] = InvMixColumns(enc[14-i]) for
	// i = 1..rounds-1, dec[14] = enc[s]; rows before s are zeroed.
	Label("decrypt")
	TESTQ(dec, dec)
	JEQ(LabelRef("done"))
	s, src := R8, RSI
	MOVQ(U32(14), s)
	SUBQ(rounds, s)
	JEQ(LabelRef("decfirst"))
	Label("deczero")
	MOVOU(zero, Mem{Base: dec})
	ADDQ(Imm(16), dec)
	DECQ(s)
	JNE(LabelRef("deczero"))
	Label("decfirst") // dec now points at row s
	MOVOU(row(enc, 14), X1)
	MOVOU(X1, Mem{Base: dec})
	ADDQ(Imm(16), dec)
	LEAQ(row(enc, 13), src)
	DECQ(rounds) // rounds-1 middle round keys
	Label("decmiddle")
	MOVOU(Mem{Base: src}, X1)
	AESIMC(X1, X1)
	MOVOU(X1, Mem{Base: dec})
	SUBQ(Imm(16), src)
	ADDQ(Imm(16), dec)
	DECQ(rounds)
	JNE(LabelRef("decmiddle"))
	// src = &enc[s], dec = &dec[14].
	MOVOU(Mem{Base: src}, X1)
	MOVOU(X1, Mem{Base: dec})

	Label("done")
	Comment("Clear the registers that held key material.")
	PXOR(X1, X1)
	PXOR(X2, X2)
	PXOR(X3, X3)
	PXOR(X4, X4)
	RET()
}

// row is the memory operand of round key r of the [15][16]byte at base.
func row(base Register, r int) Mem {
	return Mem{Base: base, Disp: 16 * r}
}

// prefixXOR replaces the dwords of x by their running XOR from dword 0 up
// (x[k] = x[0] ^ ... ^ x[k]) for the low n+1 dwords, using tmp: it adds
// x shifted up by one, two, ... n dwords. The key schedule's chain
// w[i] = w[i-Nk] ^ w[i-1] within one step is exactly this running XOR.
func prefixXOR(x, tmp VecPhysical, n int) {
	MOVOU(x, tmp)
	for k := 0; k < n; k++ {
		PSLLDQ(U8(4), tmp)
		PXOR(tmp, x)
	}
}
