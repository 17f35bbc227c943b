package fvault2

import (
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
)

// The encryption context (com.apple.corestorage.lvf.encryption.context):
// CryptoUsers, each with a PassphraseWrappedKEKStruct, and
// WrappedVolumeKeys, each with a KEKWrappedVolumeKeyStruct.
//
// PassphraseWrappedKEKStruct (284 bytes, little-endian):
//
//	0   uint32 3, 4 uint32 16, 8 the PBKDF2 salt (16 bytes)
//	24  uint32 16, 28 uint32 24, 32 the wrapped key-encrypting key (24 bytes)
//	168 uint32 PBKDF2 iterations (libfvde's document says 172; the
//	    volumes cryptsetup tests keep it at 168)
//
// KEKWrappedVolumeKeyStruct (256 bytes):
//
//	0 uint32 2, 4 uint32 24, 8 the wrapped volume key (24 bytes)
const (
	pwkStructMin   = 176
	kwvkStructMin  = 32
	maxIterations  = 1 << 30
	volumeKeyBytes = 16 // AES-128: the data key; the tweak key is derived
)

func (h *Header) parseContext(ctx *plistValue) error {
	if ci := ctx.get("ConversionInfo"); ci != nil {
		h.ConversionStatus, _ = ci.get("ConversionStatus").stringValue()
	}
	le := binary.LittleEndian
	for i, u := range ctx.get("CryptoUsers").array() {
		d, ok := u.get("PassphraseWrappedKEKStruct").dataValue()
		if !ok || len(d) == 0 {
			continue // another kind of crypto user
		}
		if len(d) < pwkStructMin || le.Uint32(d[0:]) != 3 || le.Uint32(d[4:]) != 16 ||
			le.Uint32(d[24:]) != 16 || le.Uint32(d[28:]) != 24 {
			return fmt.Errorf("crypto user %d: malformed PassphraseWrappedKEKStruct (%d bytes)", i, len(d))
		}
		it := le.Uint32(d[168:])
		if it == 0 || it > maxIterations {
			return fmt.Errorf("crypto user %d: %d PBKDF2 iterations (want 1 to %d)", i, it, maxIterations)
		}
		p := Passphrase{Salt: append([]byte(nil), d[8:24]...), Iterations: int(it)}
		copy(p.wrappedKEK[:], d[32:56])
		p.UserIdent, _ = u.get("UserIdent").stringValue()
		p.KEKIdent, _ = u.get("KeyEncryptingKeyIdent").stringValue()
		h.Passphrases = append(h.Passphrases, p)
	}
	for i, w := range ctx.get("WrappedVolumeKeys").array() {
		alg, _ := w.get("BlockAlgorithm").stringValue()
		d, _ := w.get("KEKWrappedVolumeKeyStruct").dataValue()
		if alg != "AES-XTS" || len(d) == 0 {
			continue // "None": no key
		}
		if len(d) < kwvkStructMin || le.Uint32(d[0:]) != 2 || le.Uint32(d[4:]) != 24 {
			return fmt.Errorf("wrapped volume key %d: malformed KEKWrappedVolumeKeyStruct (%d bytes)", i, len(d))
		}
		k := wrappedVolumeKey{}
		copy(k.wrapped[:], d[8:32])
		k.kekIdent, _ = w.get("KeyEncryptingKeyIdent").stringValue()
		h.volumeKeys = append(h.volumeKeys, k)
	}
	if len(h.Passphrases) == 0 {
		return fmt.Errorf("%w: the encryption context has no passphrase", ErrUnsupported)
	}
	if len(h.volumeKeys) == 0 {
		return fmt.Errorf("%w: the encryption context has no AES-XTS volume key", ErrUnsupported)
	}
	return nil
}

// unlock returns the 32-byte XTS key (the volume key, then the tweak key
// derived from it and the family UUID) that password opens, or
// ErrWrongPassword.
func (h *Header) unlock(password []byte) ([]byte, error) {
	for _, p := range h.Passphrases {
		ak, err := pbkdf2.Key(sha256.New, string(password), p.Salt, p.Iterations, 16)
		if err != nil {
			return nil, fmt.Errorf("fvault2: PBKDF2: %w", err)
		}
		kek, err := aesUnwrap(ak, p.wrappedKEK[:])
		clear(ak)
		if errors.Is(err, errUnwrap) {
			continue
		}
		if err != nil {
			return nil, err
		}
		key, err := h.unwrapVolumeKey(kek, p.KEKIdent)
		clear(kek)
		if err == nil {
			return key, nil
		}
	}
	return nil, ErrWrongPassword
}

// unwrapVolumeKey unwraps the volume key with kek, trying first the
// wrapped keys that name kekIdent.
func (h *Header) unwrapVolumeKey(kek []byte, kekIdent string) ([]byte, error) {
	for pass := range 2 {
		for _, w := range h.volumeKeys {
			if match := kekIdent != "" && strings.EqualFold(w.kekIdent, kekIdent); match != (pass == 0) {
				continue
			}
			vk, err := aesUnwrap(kek, w.wrapped[:])
			if err != nil {
				continue
			}
			key := h.xtsKey(vk)
			clear(vk)
			return key, nil
		}
	}
	return nil, errUnwrap
}

// xtsKey returns the XTS key of volume key vk: vk, then the first 16
// bytes of SHA-256(vk ‖ family UUID), the tweak key.
func (h *Header) xtsKey(vk []byte) []byte {
	s := sha256.New()
	s.Write(vk)
	s.Write(h.FamilyUUID[:])
	sum := s.Sum(nil)
	key := make([]byte, 0, 2*volumeKeyBytes)
	key = append(key, vk[:volumeKeyBytes]...)
	key = append(key, sum[:volumeKeyBytes]...)
	clear(sum)
	return key
}
