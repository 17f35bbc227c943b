package xts

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/fips140"
	"errors"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// Behaviours a golang.org/x/crypto/xts user relies on (issue: drop-in
// exactness), and the option and error rules around them.

// An empty data unit is a no-op, as in x/crypto/xts (whose loop simply
// runs zero times); 1 to 15 bytes still panic.
func TestEmptyInputIsNoOp(t *testing.T) {
	key := make([]byte, 64)
	key[0] = 1
	forEachImpl(t, func(t *testing.T, name string) {
		c := newImpl(t, name, key)
		buf := []byte{1, 2, 3}
		before := bytes.Clone(buf)
		c.Encrypt(nil, nil, 7)
		c.Decrypt(nil, nil, 7)
		c.Encrypt(buf[:0], buf[:0], 7)
		c.Decrypt(buf[:0], buf[:0], 7)
		c.EncryptWithTweak(nil, nil, [16]byte{1})
		c.DecryptWithTweak(buf[:0], buf[:0], [16]byte{1})
		c.Encrypt(nil, buf[:0], 7) // a nil output is long enough for nothing
		if !bytes.Equal(buf, before) {
			t.Errorf("buffer changed: %x", buf)
		}
		mustPanic(t, "shorter than 16", func() { c.Encrypt(buf, buf[:1], 7) })
	})
}

// The key-size error of an AES key wraps aes.KeySizeError, as the error
// x/crypto/xts returns (it comes from aes.NewCipher on one half) does,
// with the half's length, besides ErrKeySize.
func TestKeySizeErrorWrapsAES(t *testing.T) {
	for _, n := range []int{0, 16, 33, 40, 63, 128} {
		_, err := NewCipher(aes.NewCipher, make([]byte, n))
		var kse aes.KeySizeError
		if !errors.As(err, &kse) || int(kse) != n/2 {
			t.Errorf("%d-byte key: error %v does not wrap aes.KeySizeError(%d)", n, err, n/2)
		}
		if !errors.Is(err, ErrKeySize) {
			t.Errorf("%d-byte key: error %v is not ErrKeySize", n, err)
		}
	}
}

// errorCipher is a block cipher constructor with an error type of its own.
type errorCipherError struct{ n int }

func (e errorCipherError) Error() string { return "custom cipher: bad key" }

func errorCipher(key []byte) (cipher.Block, error) {
	if len(key) != 16 {
		return nil, errorCipherError{len(key)}
	}
	return aes.NewCipher(key)
}

// With any cipher, a key of the wrong length is reported before equal
// halves, and the constructor's error keeps its type behind an xts:
// prefix.
func TestCipherErrorsKeepTheirType(t *testing.T) {
	_, err := NewCipher(errorCipher, make([]byte, 40)) // equal halves, and the wrong size
	var ce errorCipherError
	if !errors.As(err, &ce) || ce.n != 20 {
		t.Errorf("error %v: want the constructor's errorCipherError{20}", err)
	}
	if errors.Is(err, ErrEqualKeyHalves) {
		t.Errorf("error %v: equal halves reported before the key size", err)
	}
	if err == nil || !strings.HasPrefix(err.Error(), "xts: ") || strings.HasPrefix(err.Error(), "xts: xts: ") {
		t.Errorf("error %v: want one xts: prefix", err)
	}
	if _, err := NewCipher(errorCipher, make([]byte, 32)); !errors.Is(err, ErrEqualKeyHalves) {
		t.Errorf("good size, equal halves: error %v", err)
	}
}

// Options do not depend on their order: the last word on parallelism is
// not whichever option came last.
func TestOptionsOrderIndependent(t *testing.T) {
	key := make([]byte, 64)
	key[0] = 1
	for _, opts := range [][]Option{
		{WithoutParallelism(), WithParallelThreshold(0)},
		{WithParallelThreshold(0), WithoutParallelism()},
	} {
		c, err := NewCipher(aes.NewCipher, key, opts...)
		if err != nil {
			t.Fatal(err)
		}
		if c.cfg.parallel {
			t.Errorf("WithoutParallelism with WithParallelThreshold: parallel %v", c.cfg.parallel)
		}
		if c.cfg.parallelThreshold != 0 {
			t.Errorf("threshold %d, want 0", c.cfg.parallelThreshold)
		}
	}
}

// A zero Cipher or Unit is a programmer error with an xts: message, not a
// nil-pointer crash.
func TestZeroValuesPanic(t *testing.T) {
	buf := make([]byte, 64)
	var c Cipher
	mustPanic(t, "NewCipher", func() { c.Encrypt(buf, buf, 0) })
	mustPanic(t, "NewCipher", func() { c.DecryptWithTweak(buf, buf, [16]byte{}) })
	mustPanic(t, "NewCipher", func() { c.EncryptSectors(buf, buf, 32, 0) })
	mustPanic(t, "NewCipher", func() { c.NewEncrypter([16]byte{}) })
	var u Unit
	mustPanic(t, "NewEncrypter", func() { u.Update(buf, buf) })
	mustPanic(t, "NewEncrypter", func() { u.Final(buf, buf) })
}

// envFIPSChild marks the re-executed test binary of TestFIPS140Mode.
const envFIPSChild = "XTS_TEST_FIPS_CHILD"

// In FIPS 140 mode (GODEBUG=fips140=on or only) AES goes through
// crypto/aes, the generic engine, as an x/crypto/xts user gets it: the
// test binary runs itself in that mode, with XTS_IMPLEMENTATION naming an
// assembly variant, and checks the registry there (fipsChild).
func TestFIPS140Mode(t *testing.T) {
	if os.Getenv(envFIPSChild) != "" {
		fipsChild(t)
		return
	}
	asm := ""
	for _, im := range Implementations() {
		if im.Available && im.Name != genericName && im.Cipher == "" {
			asm = im.Name
			break
		}
	}
	if asm == "" {
		t.Skip("no assembly implementation runs here: FIPS mode changes nothing")
	}
	for _, mode := range []string{"on", "only"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestFIPS140Mode$", "-test.v")
		cmd.Env = append(os.Environ(), "GODEBUG=fips140="+mode, envFIPSChild+"="+asm, envImplementation+"="+asm)
		out, err := cmd.CombinedOutput()
		if errors.Is(err, syscall.ENOEXEC) {
			t.Skipf("cannot run the test binary again (%v): an emulator without binfmt_misc", err)
		}
		if err != nil || !strings.Contains(string(out), "--- PASS: TestFIPS140Mode") {
			t.Errorf("fips140=%s: %v\n%s", mode, err, out)
		}
	}
}

func fipsChild(t *testing.T) {
	asm := os.Getenv(envFIPSChild)
	if !fips140.Enabled() {
		t.Fatal("GODEBUG=fips140 did not enable FIPS 140 mode")
	}
	for _, im := range Implementations() {
		switch {
		case im.Cipher != "":
			// Not AES: FIPS 140 mode does not concern it.
		case im.Name == genericName:
			if !im.Default || !strings.Contains(im.Note, envImplementation+"="+asm+" ignored") {
				t.Errorf("generic: default %v, note %q", im.Default, im.Note)
			}
		case im.Available || im.Default || !strings.Contains(im.Note, "FIPS 140"):
			t.Errorf("%s: available %v, default %v, note %q: want unavailable in FIPS 140 mode", im.Name, im.Available, im.Default, im.Note)
		}
	}
	key := make([]byte, 64)
	key[0] = 1
	c, err := NewCipher(aes.NewCipher, key)
	if err != nil || c.Implementation() != genericName {
		t.Fatalf("NewCipher: %v, implementation %q", err, c.Implementation())
	}
	if _, err := NewCipher(aes.NewCipher, key, WithImplementation(asm)); !errors.Is(err, ErrImplementation) || !strings.Contains(err.Error(), "FIPS 140") {
		t.Errorf("WithImplementation(%q): %v, want ErrImplementation naming FIPS 140 mode", asm, err)
	}
}
