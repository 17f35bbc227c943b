package xts

import (
	"bytes"
	"fmt"
	"testing"
)

// TestAgainstReference checks every implementation against the IEEE 1619
// step-by-step reference on every length 16…1100, for every key size and
// both directions, out of place and in place.
func TestAgainstReference(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string) {
		r := newRand(t)
		for _, ks := range keySizes {
			key := randKey(r, ks)
			c := newImpl(t, name, key)
			for n := 16; n <= 1100; n++ {
				tweak := randTweak(r)
				if n%7 == 0 {
					tweak[15] |= 0x80 // top bit set: the first doubling carries
				}
				pt := randBytes(r, n)
				want := refXTS(t, key, tweak, pt, false)
				got := make([]byte, n)
				c.EncryptWithTweak(got, pt, tweak)
				if !bytes.Equal(got, want) {
					t.Fatalf("key %d, len %d: encrypt differs from reference", ks*4, n)
				}
				back := bytes.Clone(got)
				c.DecryptWithTweak(back, back, tweak) // in place
				if !bytes.Equal(back, pt) {
					t.Fatalf("key %d, len %d: decrypt(encrypt(x)) != x", ks*4, n)
				}
				if n%5 == 0 {
					wantPT := refXTS(t, key, tweak, want, true)
					if !bytes.Equal(wantPT, pt) {
						t.Fatalf("key %d, len %d: reference does not round-trip", ks*4, n)
					}
				}
			}
		}
	})
}

// TestAgainstGenericLarge compares every implementation with generic on
// random lengths up to 1 MiB and around 256 KiB, checking that the source
// is left alone and nothing past the output is written.
func TestAgainstGenericLarge(t *testing.T) {
	lengths := []int{256<<10 - 48, 256<<10 - 1, 256 << 10, 256<<10 + 17, 256<<10 + 48}
	r0 := newRand(t)
	count := 24
	if testing.Short() {
		count = 6
	}
	for range count {
		lengths = append(lengths, 16+r0.IntN(1<<20-15))
	}
	forEachImpl(t, func(t *testing.T, name string) {
		r := newRand(t)
		for i, n := range lengths {
			ks := keySizes[i%3]
			key := randKey(r, ks)
			c := newImpl(t, name, key)
			g := newImpl(t, genericName, key)
			tweak := randTweak(r)
			pt := randBytes(r, n)
			orig := bytes.Clone(pt)
			want := make([]byte, n)
			g.EncryptWithTweak(want, pt, tweak)
			got := make([]byte, n+32)
			for j := n; j < len(got); j++ {
				got[j] = 0xa5
			}
			c.EncryptWithTweak(got[:n], pt, tweak)
			if !bytes.Equal(pt, orig) {
				t.Fatalf("len %d: source modified", n)
			}
			if !bytes.Equal(got[:n], want) {
				t.Fatalf("key %d, len %d: encrypt differs from generic", ks*4, n)
			}
			for j := n; j < len(got); j++ {
				if got[j] != 0xa5 {
					t.Fatalf("len %d: byte %d past the output written", n, j)
				}
			}
			c.DecryptWithTweak(got[:n], got[:n], tweak)
			if !bytes.Equal(got[:n], pt) {
				t.Fatalf("key %d, len %d: round trip failed", ks*4, n)
			}
		}
	})
}

// TestMultiPart splits data units at random multiples of 16 and checks
// that Update…Final equals the one-shot result, in both directions.
func TestMultiPart(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string) {
		r := newRand(t)
		for iter := range 300 {
			ks := keySizes[iter%3]
			key := randKey(r, ks)
			c := newImpl(t, name, key)
			n := 16 + r.IntN(3000)
			if iter%10 == 0 {
				n = 16 + r.IntN(64)
			}
			tweak := randTweak(r)
			pt := randBytes(r, n)
			want := make([]byte, n)
			c.EncryptWithTweak(want, pt, tweak)

			for _, decrypt := range []bool{false, true} {
				in, exp := pt, want
				u := c.NewEncrypter(tweak)
				if decrypt {
					in, exp = want, pt
					u = c.NewDecrypter(tweak)
				}
				got := make([]byte, n)
				off := 0
				var parts []int
				for n-off >= 32 && r.IntN(4) != 0 {
					// Leave at least 16 bytes for Final.
					p := 16 * r.IntN((n-off-16)/16+1)
					u.Update(got[off:off+p], in[off:off+p])
					parts = append(parts, p)
					off += p
				}
				if off == n {
					u.Final(nil, nil)
				} else {
					u.Final(got[off:], in[off:])
				}
				parts = append(parts, n-off)
				if !bytes.Equal(got, exp) {
					t.Fatalf("len %d, decrypt %v, parts %v: multi-part differs from one-shot", n, decrypt, parts)
				}
			}
		}
	})
}

// TestMultiPartInPlace: parts processed in place, and Reset reuses a Unit.
func TestMultiPartInPlace(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string) {
		r := newRand(t)
		c := newImpl(t, name, randKey(r, 64))
		u := c.NewEncrypter([16]byte{})
		for iter := range 50 {
			n := 48 + r.IntN(500)
			tweak := SectorTweak(uint64(iter) << 40)
			pt := randBytes(r, n)
			want := make([]byte, n)
			c.EncryptWithTweak(want, pt, tweak)
			buf := bytes.Clone(pt)
			u.Reset(tweak)
			u.Update(buf[:32], buf[:32])
			u.Update(buf[32:32], buf[32:32])
			u.Final(buf[32:], buf[32:])
			if !bytes.Equal(buf, want) {
				t.Fatalf("len %d: in-place multi-part differs", n)
			}
		}
	})
}

// TestSectorNumbers: Encrypt(…, n) equals EncryptWithTweak(…, SectorTweak(n)).
func TestSectorNumbers(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string) {
		r := newRand(t)
		key := randKey(r, 32)
		c := newImpl(t, name, key)
		for _, s := range []uint64{0, 1, 0xff, 1 << 32, 1<<63 + 5, ^uint64(0)} {
			pt := randBytes(r, 512)
			a, b := make([]byte, 512), make([]byte, 512)
			c.Encrypt(a, pt, s)
			c.EncryptWithTweak(b, pt, SectorTweak(s))
			if !bytes.Equal(a, b) {
				t.Fatalf("sector %#x: Encrypt != EncryptWithTweak(SectorTweak)", s)
			}
			if want := refXTS(t, key, SectorTweak(s), pt, false); !bytes.Equal(a, want) {
				t.Fatalf("sector %#x: differs from reference", s)
			}
			c.Decrypt(b, a, s)
			if !bytes.Equal(b, pt) {
				t.Fatalf("sector %#x: Decrypt failed", s)
			}
		}
		if got := fmt.Sprintf("%x", SectorTweak(0x0102030405060708)); got != "08070605040302010000000000000000" {
			t.Fatalf("SectorTweak layout %s", got)
		}
	})
}
