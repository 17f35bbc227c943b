package xts

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/des"
	"errors"
	"strings"
	"testing"
)

func TestKeyErrors(t *testing.T) {
	k := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i)
		}
		return b
	}
	wrappedAES := func(key []byte) (cipher.Block, error) { return aes.NewCipher(key) }
	tests := []struct {
		name    string
		fn      func([]byte) (cipher.Block, error)
		key     []byte
		opts    []Option
		wantErr error
		wantMsg string
	}{
		{"empty", aes.NewCipher, nil, nil, ErrKeySize, "0 bytes"},
		{"odd", aes.NewCipher, k(33), nil, ErrKeySize, "33 bytes"},
		{"aes 16", aes.NewCipher, k(16), nil, ErrKeySize, "AES-XTS needs 32, 48 or 64"},
		{"aes 40", aes.NewCipher, k(40), nil, ErrKeySize, "AES-XTS needs 32, 48 or 64"},
		{"aes 128", aes.NewCipher, k(128), nil, ErrKeySize, "AES-XTS needs 32, 48 or 64"},
		{"aes 40 equal halves", aes.NewCipher, make([]byte, 40), nil, ErrKeySize, "AES-XTS needs 32, 48 or 64"},
		{"equal halves", aes.NewCipher, make([]byte, 64), nil, ErrEqualKeyHalves, "equal"},
		{"equal halves generic", wrappedAES, make([]byte, 32), nil, ErrEqualKeyHalves, "equal"},
		{"unknown impl", aes.NewCipher, k(64), []Option{WithImplementation("nope")}, ErrImplementation, `"nope" is not one of`},
		{"asm impl for other cipher", wrappedAES, k(64), []Option{WithImplementation(Implementations()[0].Name + "-or-any-other")}, ErrImplementation, "runs AES only"},
		{"8-byte block", des.NewCipher, k(16), nil, nil, "16-byte block"},
		{"bad tweak unit", aes.NewCipher, k(64), []Option{WithTweakUnit(100)}, nil, "tweak unit 100"},
		{"nil cipher", nil, k(64), nil, nil, "nil cipher constructor"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewCipher(tc.fn, tc.key, tc.opts...)
			if err == nil {
				t.Fatalf("NewCipher succeeded (%s)", c.Implementation())
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("error %v is not %v", err, tc.wantErr)
			}
			if !strings.HasPrefix(err.Error(), "xts: ") && tc.fn != nil && !strings.Contains(err.Error(), "crypto/") {
				t.Errorf("error %q lacks the xts: prefix", err)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("error %q does not mention %q", err, tc.wantMsg)
			}
		})
	}
	// Implementations that exist but cannot run here are refused by name.
	for _, im := range Implementations() {
		if im.Available || im.Cipher != "" {
			continue
		}
		_, err := NewCipher(aes.NewCipher, k(64), WithImplementation(im.Name))
		if !errors.Is(err, ErrImplementation) || !strings.Contains(err.Error(), "cannot run here") {
			t.Errorf("%s: error %v, want 'cannot run here'", im.Name, err)
		}
	}
}

// mustPanic runs f and checks that it panics with a message containing msg.
func mustPanic(t *testing.T, msg string, f func()) {
	t.Helper()
	defer func() {
		t.Helper()
		r := recover()
		if r == nil {
			t.Fatalf("no panic, want %q", msg)
		}
		s, ok := r.(string)
		if !ok {
			if e, isErr := r.(error); isErr {
				s = e.Error()
			}
		}
		if !strings.HasPrefix(s, "xts: ") || !strings.Contains(s, msg) {
			t.Fatalf("panic %q, want an xts: message containing %q", r, msg)
		}
	}()
	f()
}

func TestMisusePanics(t *testing.T) {
	key := make([]byte, 64)
	key[0] = 1
	forEachImpl(t, func(t *testing.T, name string) {
		c := newImpl(t, name, key)
		buf := make([]byte, 4096)
		ops := map[string]func(dst, src []byte){
			"Encrypt":          func(d, s []byte) { c.Encrypt(d, s, 7) },
			"Decrypt":          func(d, s []byte) { c.Decrypt(d, s, 7) },
			"EncryptWithTweak": func(d, s []byte) { c.EncryptWithTweak(d, s, [16]byte{1}) },
			"DecryptWithTweak": func(d, s []byte) { c.DecryptWithTweak(d, s, [16]byte{1}) },
		}
		for opName, op := range ops {
			t.Run(opName, func(t *testing.T) {
				mustPanic(t, "shorter than 16", func() { op(buf, buf[:15]) })
				mustPanic(t, "shorter than 16", func() { op(buf, buf[:1]) })
				mustPanic(t, "output smaller", func() { op(buf[:31], buf[100:132]) })
				mustPanic(t, "overlap", func() { op(buf[1:], buf[:64]) })
				mustPanic(t, "overlap", func() { op(buf[:64], buf[16:80]) })
			})
		}
		t.Run("Unit", func(t *testing.T) {
			u := c.NewEncrypter([16]byte{})
			mustPanic(t, "multiple of 16", func() { u.Update(buf, buf[:17]) })
			mustPanic(t, "overlap", func() { u.Update(buf[16:], buf[:32]) })
			mustPanic(t, "output smaller", func() { u.Update(buf[:16], buf[100:132]) })
			mustPanic(t, "shorter than 16", func() { u.Final(buf, buf[:15]) })
			mustPanic(t, "shorter than 16", func() { u.Final(nil, nil) }) // nothing fed yet
			u.Final(buf[:20], buf[:20])
			mustPanic(t, "Final called twice", func() { u.Final(buf[:20], buf[:20]) })
			mustPanic(t, "Update after Final", func() { u.Update(buf[:16], buf[:16]) })
		})
		t.Run("Sectors", func(t *testing.T) {
			for _, f := range []func(d, s []byte, ss int, n uint64){c.EncryptSectors, c.DecryptSectors} {
				mustPanic(t, "not a multiple of the sector size", func() { f(buf, buf[:1000], 512, 0) })
				mustPanic(t, "sector size 8", func() { f(buf, buf[:512], 8, 0) })
				mustPanic(t, "sector size 0", func() { f(buf, buf[:512], 0, 0) })
				mustPanic(t, "sector size 520", func() { f(buf, buf[:1040], 520, 0) })
				mustPanic(t, "output smaller", func() { f(buf[:1000], buf[2048:3072], 512, 0) })
				mustPanic(t, "overlap", func() { f(buf[512:], buf[:1024], 512, 0) })
			}
			c2 := newImpl(t, name, key, WithTweakUnit(512))
			mustPanic(t, "not a multiple of the tweak unit", func() { c2.EncryptSectors(buf, buf[:1056], 528, 0) })
		})
	})
}
