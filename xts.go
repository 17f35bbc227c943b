package xts

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/subtle"
	"errors"
	"fmt"
	"reflect"
)

// BlockSize is the block size of the ciphers XTS works with, and the
// smallest data unit it can encrypt.
const BlockSize = 16

// Errors returned by NewCipher, for errors.Is.
var (
	// ErrKeySize: the key has the wrong length for the cipher.
	ErrKeySize = errors.New("xts: invalid key size")
	// ErrEqualKeyHalves: the data and tweak halves of the key are equal
	// and AllowEqualKeyHalves was not given.
	ErrEqualKeyHalves = errors.New("xts: data key and tweak key are equal")
	// ErrImplementation: the requested implementation is unknown or
	// cannot run here.
	ErrImplementation = errors.New("xts: implementation not usable")
)

// Cipher holds the keys of an XTS mode instance. It is safe for concurrent
// use by multiple goroutines: after NewCipher nothing in it changes.
type Cipher struct {
	eng   engine
	asm   *asmEngine // eng when it is an assembly variant, called directly; else nil
	name  string
	cfg   config
	wiped bool // Wipe was called: eng and asm are nil
}

// NewCipher creates a Cipher from a block cipher constructor and a key
// that is the data key followed by the tweak key, each half of len(key).
//
// With aes.NewCipher the key is 32, 48 or 64 bytes (AES-128, AES-192 or
// AES-256-XTS) and the fastest implementation for this CPU is used. With
// serpent.NewCipher, twofish.NewCipher, camellia.NewCipher or
// kuznyechik.NewCipher (packages github.com/fastxts/xts/serpent, ...) an
// assembly implementation runs the bulk of each data unit where the CPU
// has one (serpent-avx512, twofish-avx512, camellia-gfni-avx512,
// kuznyechik-avx512; Implementations lists them with their Cipher). Any
// other constructor whose cipher has a 16-byte block (SM4, x/crypto's
// Twofish, or one of those constructors wrapped in a function of your
// own) is run by the portable implementation.
//
// The call from golang.org/x/crypto/xts works unchanged:
//
//	c, err := xts.NewCipher(aes.NewCipher, key)
//
// Keys whose halves are equal are refused (ErrEqualKeyHalves) unless
// AllowEqualKeyHalves is given.
func NewCipher(cipherFunc func([]byte) (cipher.Block, error), key []byte, opts ...Option) (*Cipher, error) {
	cfg := defaultConfig()
	for _, o := range opts {
		if err := o(&cfg); err != nil {
			return nil, err
		}
	}
	if cipherFunc == nil {
		return nil, errors.New("xts: nil cipher constructor")
	}
	half := len(key) / 2
	aesKey := isAES(cipherFunc)
	if aesKey {
		// The error x/crypto/xts returns here comes from aes.NewCipher on
		// one half: wrap it too, so that errors.As finds it.
		if len(key)%2 != 0 {
			return nil, fmt.Errorf("%w: %d bytes is not two equal halves (%w)", ErrKeySize, len(key), aes.KeySizeError(half))
		}
		if half != 16 && half != 24 && half != 32 {
			return nil, fmt.Errorf("%w: %d bytes; AES-XTS needs 32, 48 or 64 (%w)", ErrKeySize, len(key), aes.KeySizeError(half))
		}
	} else if len(key) == 0 || len(key)%2 != 0 {
		return nil, fmt.Errorf("%w: %d bytes is not two equal halves", ErrKeySize, len(key))
	}

	// Any other cipher decides which key sizes it takes: ask it before
	// looking at the halves, so that a key of the wrong length is
	// reported as such whatever its bytes.
	var k1, k2 cipher.Block
	if !aesKey {
		var err error
		if k1, k2, err = newHalves(cipherFunc, key); err != nil {
			return nil, err
		}
	}
	if !cfg.allowEqualHalves && subtle.ConstantTimeCompare(key[:half], key[half:]) == 1 {
		return nil, ErrEqualKeyHalves
	}

	c := &Cipher{cfg: cfg}
	if aesKey {
		r := theRegistry()
		i := r.def
		if cfg.impl != "" {
			i = r.index(cfg.impl)
			if i < 0 {
				return nil, fmt.Errorf("%w: %q is not one of this build's implementations", ErrImplementation, cfg.impl)
			}
			if !r.impls[i].available {
				return nil, fmt.Errorf("%w: %q cannot run here: %s", ErrImplementation, cfg.impl, r.impls[i].note)
			}
		}
		c.name = r.impls[i].name
		if newAES := r.impls[i].newAES; newAES != nil {
			c.eng = newAES(key)
		} else {
			var err error
			if k1, k2, err = newHalves(cipherFunc, key); err != nil {
				return nil, err
			}
		}
	} else {
		var err error
		if c.eng, c.name, err = otherEngine(cipherFunc, key, k1, k2, cfg.impl); err != nil { // cipher_select.go
			return nil, err
		}
	}
	if c.eng == nil {
		c.eng = newGeneric(k1, k2)
		c.name = genericName
	}
	c.asm, _ = c.eng.(*asmEngine)
	return c, nil
}

// newHalves makes the block ciphers of the data and tweak halves of key,
// for the generic engine. A constructor's error keeps its type behind an
// xts: prefix.
func newHalves(cipherFunc func([]byte) (cipher.Block, error), key []byte) (k1, k2 cipher.Block, err error) {
	half := len(key) / 2
	if k1, err = cipherFunc(key[:half]); err != nil {
		return nil, nil, fmt.Errorf("xts: %w", err)
	}
	if k2, err = cipherFunc(key[half:]); err != nil {
		return nil, nil, fmt.Errorf("xts: %w", err)
	}
	if k1.BlockSize() != BlockSize || k2.BlockSize() != BlockSize {
		return nil, nil, fmt.Errorf("xts: block size %d, XTS needs a 16-byte block cipher", k1.BlockSize())
	}
	return k1, k2, nil
}

// isAES reports whether f is crypto/aes.NewCipher itself.
func isAES(f func([]byte) (cipher.Block, error)) bool {
	return reflect.ValueOf(f).Pointer() == reflect.ValueOf(aes.NewCipher).Pointer()
}

// Implementation returns the name of the implementation this Cipher uses.
func (c *Cipher) Implementation() string { return c.name }

// SectorTweak returns the tweak that Encrypt and Decrypt use for a sector
// number: the number in little-endian order followed by eight zero bytes,
// as dm-crypt's plain64 IV and golang.org/x/crypto/xts do.
func SectorTweak(sectorNum uint64) [16]byte {
	return tweak128{lo: sectorNum}.bytes()
}

// Encrypt encrypts one data unit (sector) of plaintext into ciphertext
// with the tweak of sectorNum (see SectorTweak). Any length of at least 16
// bytes works: a length that is not a multiple of 16 uses ciphertext
// stealing; an empty plaintext does nothing (1 to 15 bytes panic).
// ciphertext must be at least as long as plaintext and may be the same
// slice (in place), but must not overlap it otherwise.
func (c *Cipher) Encrypt(ciphertext, plaintext []byte, sectorNum uint64) {
	if c.unitValid(ciphertext, plaintext) {
		if c.asm != nil {
			c.asm.encrypt(ciphertext, plaintext, tweak128{lo: sectorNum}, flagEncryptTweak)
			return
		}
		c.eng.encrypt(ciphertext, plaintext, tweak128{lo: sectorNum}, flagEncryptTweak)
		return
	}
	c.unitSlow(ciphertext, plaintext)
}

// Decrypt decrypts one data unit of ciphertext into plaintext; see
// Encrypt.
func (c *Cipher) Decrypt(plaintext, ciphertext []byte, sectorNum uint64) {
	if c.unitValid(plaintext, ciphertext) {
		if c.asm != nil {
			c.asm.decrypt(plaintext, ciphertext, tweak128{lo: sectorNum}, flagEncryptTweak)
			return
		}
		c.eng.decrypt(plaintext, ciphertext, tweak128{lo: sectorNum}, flagEncryptTweak)
		return
	}
	c.unitSlow(plaintext, ciphertext)
}

// EncryptWithTweak is Encrypt with any 16-byte tweak (the IV before
// encryption with the tweak key), for formats whose tweak is not a
// little-endian sector number.
func (c *Cipher) EncryptWithTweak(ciphertext, plaintext []byte, tweak [16]byte) {
	if c.unitValid(ciphertext, plaintext) {
		if c.asm != nil {
			c.asm.encrypt(ciphertext, plaintext, tweakFromBytes(tweak), flagEncryptTweak)
			return
		}
		c.eng.encrypt(ciphertext, plaintext, tweakFromBytes(tweak), flagEncryptTweak)
		return
	}
	c.unitSlow(ciphertext, plaintext)
}

// DecryptWithTweak is Decrypt with any 16-byte tweak.
func (c *Cipher) DecryptWithTweak(plaintext, ciphertext []byte, tweak [16]byte) {
	if c.unitValid(plaintext, ciphertext) {
		if c.asm != nil {
			c.asm.decrypt(plaintext, ciphertext, tweakFromBytes(tweak), flagEncryptTweak)
			return
		}
		c.eng.decrypt(plaintext, ciphertext, tweakFromBytes(tweak), flagEncryptTweak)
		return
	}
	c.unitSlow(plaintext, ciphertext)
}

// The data-unit calls above are written so that a valid call is a few
// inlined compares and one call of the engine, directly for an assembly
// variant, with nothing of the caller's live across it: the compiler then
// saves no argument on entry and reloads none. An empty unit or a misuse
// goes to unitSlow, which checks in order and panics with the first error.

// unitValid reports whether c is usable and dst, src a valid non-empty
// data unit for it: the common case of every data-unit call, a few
// compares that the compiler inlines into the caller. When it is false,
// unitSlow checks again in order and panics with the first error, or
// reports that the unit is empty (a no-op, as in golang.org/x/crypto/xts):
//
//	if !c.unitValid(dst, src) && !c.unitSlow(dst, src) {
//		return
//	}
func (c *Cipher) unitValid(dst, src []byte) bool {
	return c.eng != nil && len(src) >= BlockSize && len(dst) >= len(src) && !inexactOverlap(dst[:len(src)], src)
}

// unitSlow panics on the programmer errors a data-unit call can make, and
// reports whether there is anything to do (after a unitValid that failed:
// nothing, as the unit is then empty).
func (c *Cipher) unitSlow(dst, src []byte) bool {
	c.check()
	if len(src) == 0 {
		return false
	}
	if len(src) < BlockSize {
		panic("xts: data unit shorter than 16 bytes")
	}
	checkDst(dst, src)
	return true
}

// Wipe zeroes the expanded keys this Cipher holds and makes it unusable:
// every later call on it, or on a Unit made from it, panics. Call it when
// the key should leave memory before the garbage collector reclaims it (a
// volume closed, a key rotated), once no other goroutine is using the
// Cipher. Wiping twice is allowed.
//
// The assembly implementations' round keys are zeroed in place. The
// generic implementation (other block ciphers, FIPS 140 mode, -tags
// purego) holds cipher.Block values whose key schedules crypto/aes gives
// no way to clear: Wipe drops them, and they stay in memory until the
// garbage collector reuses it. The key slice passed to NewCipher is the
// caller's to clear.
func (c *Cipher) Wipe() {
	if c.eng != nil {
		c.eng.wipe()
	}
	c.eng, c.asm, c.wiped = nil, nil, true
}

// check panics on a Cipher that NewCipher did not make, or that was wiped.
func (c *Cipher) check() {
	if c.eng == nil {
		if c.wiped {
			panic("xts: use of a wiped Cipher")
		}
		panic("xts: Cipher not initialized: create one with NewCipher")
	}
}

// checkDst panics if dst cannot take the output for src.
func checkDst(dst, src []byte) {
	if len(dst) < len(src) {
		panic("xts: output smaller than input")
	}
	if inexactOverlap(dst[:len(src)], src) {
		panic("xts: invalid buffer overlap")
	}
}
