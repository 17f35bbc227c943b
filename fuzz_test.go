package xts_test

import (
	"bytes"
	"crypto/aes"
	"fmt"
	"strings"
	"testing"

	"github.com/fastxts/xts"
)

// FuzzXTS feeds arbitrary keys, tweaks, data and split points to one
// available implementation, chosen by the input (the key material's second
// byte), and checks that
//   - its ciphertext equals generic's (the portable reference),
//   - decryption restores the data, out of place and in place,
//   - a Unit fed the same data in three parts (cut at block boundaries
//     chosen by the fuzzer; empty parts allowed) equals the one-shot call,
//   - keys with equal halves are refused unless AllowEqualKeyHalves is given,
//   - data of 1 to 15 bytes panics with an "xts: " message, and empty data
//     is a no-op.
//
// One implementation per input, and data cut at 8 KiB (longer units are
// the other tests' business), keep each input cheap: the fuzzer runs
// and minimizes at full speed instead of stalling on every implementation
// in turn.
//
// The f.Add seeds run as ordinary subtests under plain go test; CI also
// runs a short fuzzing session: go test -run=^$ -fuzz=FuzzXTS -fuzztime=200000x
// -fuzzminimizetime=100x . (the cap keeps minimization from taking the run).
func FuzzXTS(f *testing.F) {
	seq := func(n int, start byte) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = start + byte(i*7)
		}
		return b
	}
	tweakTop := make([]byte, 16)
	tweakTop[15] = 0x80
	for _, s := range []struct {
		key, tweak, data []byte
		cuts             uint32
	}{
		{seq(32, 1), seq(16, 9), seq(16, 0), 0},
		{seq(32, 1), seq(16, 9), seq(17, 0), 0},
		{seq(48, 2), tweakTop, seq(31, 5), 1},
		{seq(64, 3), seq(16, 200), seq(32, 0), 0x00010001},
		{seq(64, 3), tweakTop, seq(33, 0), 0x00020001},
		{seq(32, 4), nil, seq(100, 1), 0x00030002},
		{seq(64, 5), seq(3, 1), seq(255, 3), 0x0005000f},
		{seq(48, 6), seq(16, 255), seq(512, 9), 0x00200010},
		{seq(64, 7), seq(16, 77), seq(527, 11), 0x00070020},
		{seq(32, 8), seq(16, 1), seq(4096+5, 13), 0xffffffff},
		{make([]byte, 64), seq(16, 1), seq(40, 1), 0}, // equal halves
		{seq(7, 9), seq(16, 1), seq(64, 1), 0},        // short key material
		{seq(32, 1), seq(16, 1), seq(15, 1), 0},       // too short
		{seq(32, 1), seq(16, 1), nil, 0},              // empty
	} {
		f.Add(s.key, s.tweak, s.data, s.cuts)
	}

	f.Fuzz(func(t *testing.T, keyBytes, tweakBytes, data []byte, cuts uint32) {
		// Any key material makes a valid key length: its first byte picks
		// AES-128/192/256, the bytes are used as they are, zero padded.
		keyLen := 32
		if len(keyBytes) > 0 {
			keyLen = []int{32, 48, 64}[keyBytes[0]%3]
		}
		key := make([]byte, keyLen)
		copy(key, keyBytes)
		var tweak [16]byte
		copy(tweak[:], tweakBytes)

		var opts []xts.Option
		if bytes.Equal(key[:keyLen/2], key[keyLen/2:]) {
			if _, err := xts.NewCipher(aes.NewCipher, key); err == nil {
				t.Fatal("NewCipher accepted a key with equal halves")
			}
			opts = append(opts, xts.AllowEqualKeyHalves())
		}
		impls := availableImpls(t)
		name := impls[0]
		if len(keyBytes) > 1 {
			name = impls[int(keyBytes[1])%len(impls)]
		}
		c := newImplCipher(t, name, key, opts...)
		ref := c
		if name != "generic" {
			ref = newImplCipher(t, "generic", key, opts...)
		}
		if len(data) > maxFuzzData {
			data = data[:maxFuzzData]
		}

		if len(data) == 0 {
			c.EncryptWithTweak(nil, data, tweak)
			c.DecryptWithTweak(nil, data, tweak)
			return
		}
		if len(data) < 16 {
			dst := make([]byte, len(data))
			expectPanic(t, name+" EncryptWithTweak", func() { c.EncryptWithTweak(dst, data, tweak) })
			expectPanic(t, name+" DecryptWithTweak", func() { c.DecryptWithTweak(dst, data, tweak) })
			return
		}

		want := make([]byte, len(data))
		ref.EncryptWithTweak(want, data, tweak)
		if bytes.Equal(want, data) {
			t.Fatal("generic ciphertext equals the plaintext")
		}

		// Block-aligned cut points c1 <= c2 inside the part before the
		// final 16 bytes (Final needs at least 16).
		blocks := (len(data) - 16) / 16
		c1 := int(cuts&0xffff) % (blocks + 1)
		c2 := int(cuts>>16) % (blocks + 1)
		if c1 > c2 {
			c1, c2 = c2, c1
		}
		c1, c2 = c1*16, c2*16

		got := make([]byte, len(data))
		{
			c.EncryptWithTweak(got, data, tweak)
			if !bytes.Equal(got, want) {
				t.Fatalf("%s: ciphertext differs from generic (len %d)", name, len(data))
			}
			back := make([]byte, len(data))
			c.DecryptWithTweak(back, got, tweak)
			if !bytes.Equal(back, data) {
				t.Fatalf("%s: decryption does not restore the data (len %d)", name, len(data))
			}

			buf := bytes.Clone(data)
			c.EncryptWithTweak(buf, buf, tweak)
			if !bytes.Equal(buf, want) {
				t.Fatalf("%s: in-place encryption differs (len %d)", name, len(data))
			}
			c.DecryptWithTweak(buf, buf, tweak)
			if !bytes.Equal(buf, data) {
				t.Fatalf("%s: in-place decryption does not restore the data (len %d)", name, len(data))
			}

			clear(got)
			u := c.NewEncrypter(tweak)
			u.Update(got[:c1], data[:c1])
			u.Update(got[c1:c2], data[c1:c2])
			u.Final(got[c2:], data[c2:])
			if !bytes.Equal(got, want) {
				t.Fatalf("%s: multi-part encryption cut at %d, %d of %d differs from one-shot", name, c1, c2, len(data))
			}
			clear(back)
			u = c.NewDecrypter(tweak)
			u.Update(back[:c1], want[:c1])
			u.Update(back[c1:c2], want[c1:c2])
			u.Final(back[c2:], want[c2:])
			if !bytes.Equal(back, data) {
				t.Fatalf("%s: multi-part decryption cut at %d, %d of %d does not restore the data", name, c1, c2, len(data))
			}
		}
	})
}

// maxFuzzData is the longest data unit FuzzXTS tries.
const maxFuzzData = 8 << 10

// expectPanic checks that f panics with a message starting "xts: ", the
// package's convention for programmer errors.
func expectPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Errorf("%s: no panic", what)
			return
		}
		if msg := fmt.Sprint(r); !strings.HasPrefix(msg, "xts: ") {
			t.Errorf("%s: panic %q does not start with \"xts: \"", what, msg)
		}
	}()
	f()
}
