//go:build (amd64 || arm64) && !purego

package xts

import (
	"bytes"
	"crypto/aes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"testing"
	"unsafe"
)

// The tests check the assembly key expansion (amd64's and arm64's, into
// the same right-aligned schedule) against an independent pure-Go one
// written from FIPS-197 (S-box computed from its definition,
// §5.2 key expansion, §5.3.5 equivalent inverse cipher), and check that
// pure-Go AES rounds driven by the assembly's round keys agree with
// crypto/aes, so that the reference itself is tested too.

// --- Pure-Go AES reference (FIPS-197) ---

// ksGmul multiplies in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1.
func ksGmul(a, b byte) byte {
	var p byte
	for b != 0 {
		if b&1 != 0 {
			p ^= a
		}
		hi := a & 0x80
		a <<= 1
		if hi != 0 {
			a ^= 0x1b
		}
		b >>= 1
	}
	return p
}

// ksRefSbox and ksRefInvSbox are computed from the definition (FIPS-197 §5.1.1):
// multiplicative inverse followed by the affine transformation.
var ksRefSbox, ksRefInvSbox = func() (s, inv [256]byte) {
	for x := 0; x < 256; x++ {
		var b byte // inverse of x; 0 maps to 0
		for y := 1; y < 256 && x != 0; y++ {
			if ksGmul(byte(x), byte(y)) == 1 {
				b = byte(y)
				break
			}
		}
		rotl := func(v byte, n uint) byte { return v<<n | v>>(8-n) }
		s[x] = b ^ rotl(b, 1) ^ rotl(b, 2) ^ rotl(b, 3) ^ rotl(b, 4) ^ 0x63
		inv[s[x]] = byte(x)
	}
	return
}()

// ksRefExpandKey is FIPS-197 §5.2 KeyExpansion, returning Nr+1 round keys.
func ksRefExpandKey(key []byte) [][16]byte {
	nk := len(key) / 4
	nr := nk + 6
	w := make([][4]byte, 4*(nr+1))
	for i := 0; i < nk; i++ {
		copy(w[i][:], key[4*i:])
	}
	rcon := byte(1)
	for i := nk; i < len(w); i++ {
		t := w[i-1]
		if i%nk == 0 {
			t = [4]byte{ksRefSbox[t[1]] ^ rcon, ksRefSbox[t[2]], ksRefSbox[t[3]], ksRefSbox[t[0]]}
			rcon = ksGmul(rcon, 2)
		} else if nk > 6 && i%nk == 4 {
			t = [4]byte{ksRefSbox[t[0]], ksRefSbox[t[1]], ksRefSbox[t[2]], ksRefSbox[t[3]]}
		}
		for j := range t {
			w[i][j] = w[i-nk][j] ^ t[j]
		}
	}
	rk := make([][16]byte, nr+1)
	for i := range w {
		copy(rk[i/4][4*(i%4):], w[i][:])
	}
	return rk
}

// ksRefInvMixColumns applies InvMixColumns to a state (column c = bytes 4c..4c+3).
func ksRefInvMixColumns(s [16]byte) [16]byte {
	var o [16]byte
	for c := 0; c < 4; c++ {
		a := s[4*c : 4*c+4]
		for r := 0; r < 4; r++ {
			o[4*c+r] = ksGmul(a[r], 0x0e) ^ ksGmul(a[(r+1)%4], 0x0b) ^
				ksGmul(a[(r+2)%4], 0x0d) ^ ksGmul(a[(r+3)%4], 0x09)
		}
	}
	return o
}

func ksRefMixColumns(s [16]byte) [16]byte {
	var o [16]byte
	for c := 0; c < 4; c++ {
		a := s[4*c : 4*c+4]
		for r := 0; r < 4; r++ {
			o[4*c+r] = ksGmul(a[r], 2) ^ ksGmul(a[(r+1)%4], 3) ^ a[(r+2)%4] ^ a[(r+3)%4]
		}
	}
	return o
}

func ksXorBlock(a, b [16]byte) [16]byte {
	for i := range a {
		a[i] ^= b[i]
	}
	return a
}

// ksRefEncrypt is the FIPS-197 §5.1 cipher with the given round keys.
func ksRefEncrypt(rk [][16]byte, in [16]byte) [16]byte {
	s := ksXorBlock(in, rk[0])
	for r := 1; r < len(rk); r++ {
		var t [16]byte // SubBytes and ShiftRows
		for c := 0; c < 4; c++ {
			for row := 0; row < 4; row++ {
				t[row+4*c] = ksRefSbox[s[row+4*((c+row)%4)]]
			}
		}
		if r < len(rk)-1 {
			t = ksRefMixColumns(t)
		}
		s = ksXorBlock(t, rk[r])
	}
	return s
}

// ksRefDecryptEquivalent is the FIPS-197 §5.3.5 equivalent inverse cipher
// with decryption round keys in order of use (dw[0] is added first).
func ksRefDecryptEquivalent(dw [][16]byte, in [16]byte) [16]byte {
	s := ksXorBlock(in, dw[0])
	for r := 1; r < len(dw); r++ {
		var t [16]byte // InvSubBytes and InvShiftRows
		for c := 0; c < 4; c++ {
			for row := 0; row < 4; row++ {
				t[row+4*((c+row)%4)] = ksRefInvSbox[s[row+4*c]]
			}
		}
		if r < len(dw)-1 {
			t = ksRefInvMixColumns(t)
		}
		s = ksXorBlock(t, dw[r])
	}
	return s
}

// --- Tests ---

func ksMustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// ksGuardedRows surrounds enc and dec with canaries to catch writes outside them.
type ksGuardedRows struct {
	pre1 [32]byte
	enc  [15][16]byte
	mid  [32]byte
	dec  [15][16]byte
	post [32]byte
}

const ksCanary = 0xa5

func ksNewGuardedRows() *ksGuardedRows {
	g := new(ksGuardedRows)
	p := (*[unsafe.Sizeof(ksGuardedRows{})]byte)(unsafe.Pointer(g))
	for i := range p {
		p[i] = ksCanary
	}
	return g
}

func ksAllBytes(b []byte, v byte) bool {
	for _, x := range b {
		if x != v {
			return false
		}
	}
	return true
}

// ksCheckSchedule checks enc (and dec, if not nil) as right-aligned round keys
// of key, against the reference, and returns the used rows.
func ksCheckSchedule(t *testing.T, key []byte, enc, dec *[15][16]byte) (encRows, decRows [][16]byte) {
	t.Helper()
	ref := ksRefExpandKey(key)
	rounds := len(ref) - 1
	s := 14 - rounds
	for r := 0; r < s; r++ {
		if enc[r] != [16]byte{} {
			t.Errorf("key %x: enc row %d (unused) = %x, want zero", key, r, enc[r])
		}
		if dec != nil && dec[r] != [16]byte{} {
			t.Errorf("key %x: dec row %d (unused) = %x, want zero", key, r, dec[r])
		}
	}
	for i := 0; i <= rounds; i++ {
		if enc[s+i] != ref[i] {
			t.Errorf("key %x: enc row %d = %x, want round key %d = %x", key, s+i, enc[s+i], i, ref[i])
		}
	}
	if dec == nil {
		return enc[s:], nil
	}
	for i := 0; i <= rounds; i++ {
		want := ref[rounds-i]
		if i != 0 && i != rounds {
			want = ksRefInvMixColumns(want)
		}
		if dec[s+i] != want {
			t.Errorf("key %x: dec row %d = %x, want %x", key, s+i, dec[s+i], want)
		}
	}
	return enc[s:], dec[s:]
}

// ksCheckAgainstCryptoAES encrypts and decrypts a block with pure-Go rounds
// driven by the assembly's round keys and compares with crypto/aes.
func ksCheckAgainstCryptoAES(t *testing.T, key []byte, encRows, decRows [][16]byte, pt [16]byte) {
	t.Helper()
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	var want [16]byte
	block.Encrypt(want[:], pt[:])
	if got := ksRefEncrypt(encRows, pt); got != want {
		t.Errorf("key %x: AES with enc rows = %x, crypto/aes = %x", key, got, want)
	}
	if decRows != nil {
		if got := ksRefDecryptEquivalent(decRows, want); got != pt {
			t.Errorf("key %x: inverse AES with dec rows = %x, want %x", key, got, pt)
		}
	}
}

func ksExpandGuarded(t *testing.T, key []byte, withDec bool) *ksGuardedRows {
	t.Helper()
	g := ksNewGuardedRows()
	// Copy the key so that it is not shared with the caller's data.
	k := bytes.Clone(key)
	if withDec {
		expandKey(&k[0], 6+len(k)/4, &g.enc, &g.dec)
	} else {
		expandKey(&k[0], 6+len(k)/4, &g.enc, nil)
	}
	if !bytes.Equal(k, key) {
		t.Errorf("expandKey modified the key: %x -> %x", key, k)
	}
	if !ksAllBytes(g.pre1[:], ksCanary) || !ksAllBytes(g.mid[:], ksCanary) || !ksAllBytes(g.post[:], ksCanary) {
		t.Errorf("key %x: expandKey wrote outside enc/dec", key)
	}
	if !withDec {
		for r := range g.dec {
			if !ksAllBytes(g.dec[r][:], ksCanary) {
				t.Errorf("key %x: expandKey wrote to dec although it was nil", key)
				break
			}
		}
	}
	return g
}

func TestExpandKeyFIPS197(t *testing.T) {
	ksRequireAES(t)
	// Appendix A: key-expansion examples, with the first and last round key
	// (w[Nr*4 .. Nr*4+3]) as printed there; Appendix C: cipher examples.
	tests := []struct {
		key, lastRoundKey string
		cKey, cOut        string
	}{
		{"2b7e151628aed2a6abf7158809cf4f3c", "d014f9a8c9ee2589e13f0cc8b6630ca6",
			"000102030405060708090a0b0c0d0e0f", "69c4e0d86a7b0430d8cdb78070b4c55a"},
		{"8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b", "e98ba06f448c773c8ecc720401002202",
			"000102030405060708090a0b0c0d0e0f1011121314151617", "dda97ca4864cdfe06eaf70a0ec0d7191"},
		{"603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4", "fe4890d1e6188d0b046df344706c631e",
			"000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f", "8ea2b7ca516745bfeafc49904b496089"},
	}
	pt := [16]byte(ksMustHex("00112233445566778899aabbccddeeff"))
	for _, tc := range tests {
		key := ksMustHex(tc.key)
		t.Run(fmt.Sprintf("AES-%d", 8*len(key)), func(t *testing.T) {
			g := ksExpandGuarded(t, key, true)
			encRows, _ := ksCheckSchedule(t, key, &g.enc, &g.dec)
			if !bytes.Equal(encRows[0][:], key[:16]) {
				t.Errorf("first round key %x, want %x", encRows[0], key[:16])
			}
			if got := encRows[len(encRows)-1]; !bytes.Equal(got[:], ksMustHex(tc.lastRoundKey)) {
				t.Errorf("last round key %x, want %s", got, tc.lastRoundKey)
			}
			if len(key) == 32 && !bytes.Equal(encRows[1][:], key[16:]) {
				t.Errorf("second round key %x, want %x", encRows[1], key[16:])
			}

			cKey := ksMustHex(tc.cKey)
			g = ksExpandGuarded(t, cKey, true)
			encRows, decRows := ksCheckSchedule(t, cKey, &g.enc, &g.dec)
			ct := ksRefEncrypt(encRows, pt)
			if !bytes.Equal(ct[:], ksMustHex(tc.cOut)) {
				t.Errorf("Appendix C: AES(%s) = %x, want %s", tc.cKey, ct, tc.cOut)
			}
			if got := ksRefDecryptEquivalent(decRows, ct); got != pt {
				t.Errorf("Appendix C: inverse = %x, want %x", got, pt)
			}
			ksCheckAgainstCryptoAES(t, cKey, encRows, decRows, pt)
		})
	}
}

func TestExpandKeyRandom(t *testing.T) {
	ksRequireAES(t)
	for _, size := range []int{16, 24, 32} {
		t.Run(fmt.Sprintf("AES-%d", 8*size), func(t *testing.T) {
			for n := 0; n < 100; n++ {
				key := make([]byte, size)
				rand.Read(key)
				var pt [16]byte
				rand.Read(pt[:])
				g := ksExpandGuarded(t, key, true)
				encRows, decRows := ksCheckSchedule(t, key, &g.enc, &g.dec)
				ksCheckAgainstCryptoAES(t, key, encRows, decRows, pt)

				h := ksExpandGuarded(t, key, false)
				if h.enc != g.enc {
					t.Errorf("key %x: enc differs with dec == nil", key)
				}
				if t.Failed() {
					return
				}
			}
		})
	}
}

func TestNewKeySchedule(t *testing.T) {
	ksRequireAES(t)
	for _, size := range []int{32, 48, 64} {
		t.Run(fmt.Sprintf("AES-%d-XTS", 4*size), func(t *testing.T) {
			for n := 0; n < 20; n++ {
				key := make([]byte, size)
				rand.Read(key)
				ks := newKeySchedule(key)
				if p := uintptr(unsafe.Pointer(ks)); p%64 != 0 {
					t.Fatalf("schedule at %#x, not 64-byte aligned", p)
				}
				if want := uint64(6 + size/8); ks.rounds != want {
					t.Errorf("rounds = %d, want %d", ks.rounds, want)
				}
				k1, k2 := key[:size/2], key[size/2:]
				encRows, decRows := ksCheckSchedule(t, k1, &ks.enc, &ks.dec)
				ksCheckAgainstCryptoAES(t, k1, encRows, decRows, [16]byte{1, 2, 3})
				tweakRows, _ := ksCheckSchedule(t, k2, &ks.tweak, nil)
				ksCheckAgainstCryptoAES(t, k2, tweakRows, nil, [16]byte{4, 5, 6})

				ks.wipe()
				if *ks != (keySchedule{}) {
					t.Errorf("wipe left a non-zero schedule")
				}
				if t.Failed() {
					return
				}
			}
		})
	}
}

func TestNewKeyScheduleBadLength(t *testing.T) {
	for _, n := range []int{0, 16, 24, 31, 33, 47, 63, 65, 96} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("newKeySchedule with a %d-byte key did not panic", n)
				}
			}()
			newKeySchedule(make([]byte, n))
		}()
	}
}

func BenchmarkKeySchedule(b *testing.B) {
	ksRequireAES(b)
	for _, size := range []int{32, 48, 64} {
		b.Run(fmt.Sprintf("AES-%d-XTS", 4*size), func(b *testing.B) {
			key := make([]byte, size)
			rand.Read(key)
			b.ReportAllocs()
			for b.Loop() {
				newKeySchedule(key)
			}
		})
	}
}

// BenchmarkExpandKey isolates the assembly (one key, enc and dec) from the
// allocation that newKeySchedule adds.
func BenchmarkExpandKey(b *testing.B) {
	ksRequireAES(b)
	for _, size := range []int{16, 24, 32} {
		b.Run(fmt.Sprintf("AES-%d", 8*size), func(b *testing.B) {
			key := make([]byte, size)
			rand.Read(key)
			var enc, dec [15][16]byte
			for b.Loop() {
				expandKey(&key[0], 6+size/4, &enc, &dec)
			}
		})
	}
}
