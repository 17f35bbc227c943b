package kuznyechik

import (
	"math/rand/v2"
	"testing"
)

// refEncrypt and refDecrypt are the cipher as RFC 7801, section 4 writes
// it, on the byte-oriented reference transformations, with the reference
// key schedule.
func refKeys(key []byte) (ks [10]block) {
	copy(ks[0][:], key[:16])
	copy(ks[1][:], key[16:])
	a1, a0 := ks[0], ks[1]
	for j := range 32 {
		var v block
		v[15] = byte(j + 1)
		a1, a0 = refF(lTransform(v), a1, a0)
		if j%8 == 7 {
			ks[2+j/8*2], ks[3+j/8*2] = a1, a0
		}
	}
	return ks
}

// refF is the key schedule's Feistel step F[c](a1, a0) = (LSX[c](a1) xor
// a0, a1).
func refF(c, a1, a0 block) (block, block) {
	return xorBlock(lTransform(sTransform(xorBlock(a1, c))), a0), a1
}

func xorBlock(a, b block) block {
	for i := range a {
		a[i] ^= b[i]
	}
	return a
}

func refEncrypt(ks *[10]block, a block) block {
	for r := range 9 {
		a = lTransform(sTransform(xorBlock(a, ks[r])))
	}
	return xorBlock(a, ks[9])
}

func refDecrypt(ks *[10]block, a block) block {
	a = xorBlock(a, ks[9])
	for r := 8; r >= 0; r-- {
		a = xorBlock(sInv(lInv(a)), ks[r])
	}
	return a
}

// TestTablesMatchReference checks every entry of both tables against the
// reference transformations. (A table entry is L of π(x) alone at byte i,
// the other bytes zero; S of the whole block would map those zeros to
// π(0), so S is applied per byte here.)
func TestTablesMatchReference(t *testing.T) {
	tableOnce.Do(buildTables)
	for i := range 16 {
		for x := range 256 {
			var v, w block
			v[i], w[i] = pi[x], piInv[x]
			if got, want := fromWords(encT[i][x]), lTransform(v); got != want {
				t.Fatalf("encT[%d][%#x] = %x, want L(π(x) at byte %d) = %x", i, x, got, i, want)
			}
			if got, want := fromWords(decT[i][x]), lInv(w); got != want {
				t.Fatalf("decT[%d][%#x] = %x, want L^-1(π^-1(x) at byte %d) = %x", i, x, got, i, want)
			}
		}
	}
}

// TestCipherMatchesReference compares the table-based cipher with the
// reference one on random keys and blocks.
func TestCipherMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	n := 40 // the reference cipher takes about 5 ms per key here
	if testing.Short() {
		n = 10
	}
	for range n {
		key := make([]byte, keySize)
		for i := range key {
			key[i] = byte(rng.Uint32())
		}
		ks := refKeys(key)
		b, err := NewCipher(key)
		if err != nil {
			t.Fatal(err)
		}
		for i, w := range b.(*kuznyechikCipher).ek {
			if fromWords(w) != ks[i] {
				t.Fatalf("key %x: K_%d = %x, reference %x", key, i+1, fromWords(w), ks[i])
			}
		}
		for range 4 {
			var pt block
			for i := range pt {
				pt[i] = byte(rng.Uint32())
			}
			want := refEncrypt(&ks, pt)
			var got block
			b.Encrypt(got[:], pt[:])
			if got != want {
				t.Fatalf("key %x: Encrypt(%x) = %x, reference %x", key, pt, got, want)
			}
			// Decrypt random input, not only our own ciphertext.
			wantD := refDecrypt(&ks, pt)
			b.Decrypt(got[:], pt[:])
			if got != wantD {
				t.Fatalf("key %x: Decrypt(%x) = %x, reference %x", key, pt, got, wantD)
			}
		}
	}
}

func TestPiInverse(t *testing.T) {
	for x := range 256 {
		if piInv[pi[x]] != byte(x) {
			t.Fatalf("piInv[pi[%#x]] = %#x", x, piInv[pi[x]])
		}
	}
}
