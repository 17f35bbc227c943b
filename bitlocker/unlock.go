package bitlocker

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"
)

// Openable reports why Open would refuse this volume whatever the secret
// (nil if it would try): Vista metadata, encrypt-on-write or a conversion
// in progress, an unknown method, or no protector this package can use.
func (m *Metadata) Openable() error {
	if m.Version != 2 {
		return fmt.Errorf("%w: Windows Vista metadata (FVE block version %d)", ErrUnsupported, m.Version)
	}
	if m.EncryptOnWrite {
		return fmt.Errorf("%w: encrypt-on-write volume (used space only encryption, or a partially encrypted volume whose conversion is in progress): its unencrypted sectors are not marked", ErrUnsupported)
	}
	if m.State != stateNormal || m.NextState != stateNormal {
		return fmt.Errorf("%w: partially encrypted volume: conversion in progress (state %d, next state %d)", ErrUnsupported, m.State, m.NextState)
	}
	if !m.Method.Known() {
		return fmt.Errorf("%w: %v", ErrUnsupported, m.Method)
	}
	if m.fvek.Data == nil {
		return fmt.Errorf("%w: no FVEK entry", ErrCorrupt)
	}
	var kinds []string
	for _, p := range m.Protectors {
		if p.Type.usable() {
			return nil
		}
		kinds = append(kinds, p.Type.String())
	}
	if len(kinds) == 0 {
		return fmt.Errorf("%w: no volume master key protector", ErrUnsupported)
	}
	return fmt.Errorf("%w: only protectors that need a TPM or a smart card (%s)", ErrUnsupported, strings.Join(kinds, "; "))
}

// unlock finds the volume key with s: it unlocks a protector of the
// secret's kind, decrypts the FVEK with the VMK and checks the metadata's
// SHA-256 validation. It returns the key in FVEK's form and the protector.
func (m *Metadata) unlock(s Secret) ([]byte, *Protector, error) {
	if s.kind == secretVolumeKey {
		if len(s.data) != m.Method.KeySize() {
			return nil, nil, fmt.Errorf("bitlocker: a %v volume key is %d bytes, not %d", m.Method, m.Method.KeySize(), len(s.data))
		}
		return bytes.Clone(s.data), nil, nil
	}
	if s.err != nil {
		return nil, nil, s.err
	}
	var want ProtectionType
	var bek *BEK
	switch s.kind {
	case secretPassword:
		want = ProtectPassword
	case secretRecovery:
		want = ProtectRecoveryPassword
	case secretClearKey:
		want = ProtectClearKey
	case secretStartupKey:
		want = ProtectStartupKey
		var err error
		if bek, err = ParseBEK(s.data); err != nil {
			return nil, nil, err
		}
		defer clear(bek.Key)
	default:
		return nil, nil, errors.New("bitlocker: no secret given")
	}
	found := false
	for i := range m.Protectors {
		p := &m.Protectors[i]
		if p.Type != want {
			continue
		}
		if bek != nil && p.GUID != bek.GUID {
			continue
		}
		found = true
		vmk, err := p.vmk(s, bek)
		if errors.Is(err, errCCMAuth) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		key, err := m.fvekWith(vmk)
		clear(vmk)
		if err != nil {
			return nil, nil, err
		}
		return key, p, nil
	}
	if !found {
		what := want.String()
		if bek != nil {
			what = fmt.Sprintf("startup key %v", bek.GUID)
		}
		return nil, nil, fmt.Errorf("%w: the volume has no protector for it (%s)", ErrWrongSecret, what)
	}
	return nil, nil, ErrWrongSecret
}

// vmk derives the protector's key from the secret and decrypts the VMK. A
// wrong secret returns errCCMAuth.
func (p *Protector) vmk(s Secret, bek *BEK) ([]byte, error) {
	kids, err := p.entry.Children()
	if err != nil {
		return nil, err
	}
	var key [32]byte
	defer clear(key[:])
	switch p.Type {
	case ProtectPassword, ProtectRecoveryPassword:
		if len(p.Salt) != 16 {
			return nil, fmt.Errorf("%w: protector %v has no stretch key", ErrCorrupt, p.GUID)
		}
		if p.Type == ProtectPassword {
			key = passwordKey(s.data, p.Salt)
		} else {
			key = recoveryKey(s.data, p.Salt)
		}
	case ProtectStartupKey:
		copy(key[:], bek.Key)
	case ProtectClearKey:
		ok := false
		for _, k := range kids {
			if k.ValueType == ValueKey && len(k.Data) == 4+32 {
				copy(key[:], k.Data[4:])
				ok = true
				break
			}
		}
		if !ok {
			return nil, fmt.Errorf("%w: clear key protector %v holds no 256-bit key", ErrCorrupt, p.GUID)
		}
	}
	// The VMK is the protector's own AES-CCM entry.
	for _, k := range kids {
		if k.ValueType != ValueAESCCM {
			continue
		}
		vmk, _, err := decryptKeyEntry(k, key[:])
		if errors.Is(err, errCCMAuth) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if len(vmk) != 32 {
			clear(vmk)
			return nil, fmt.Errorf("%w: protector %v: VMK of %d bytes", ErrCorrupt, p.GUID, len(vmk))
		}
		return vmk, nil
	}
	return nil, errCCMAuth
}

// fvekWith decrypts the FVEK with the VMK, checks its method and the
// metadata's validation hash, and returns the key in FVEK's form.
func (m *Metadata) fvekWith(vmk []byte) ([]byte, error) {
	if err := m.checkValidation(vmk); err != nil {
		return nil, err
	}
	raw, method, err := decryptKeyEntry(m.fvek, vmk)
	if errors.Is(err, errCCMAuth) {
		return nil, fmt.Errorf("%w: the FVEK does not decrypt with the volume master key", ErrCorrupt)
	}
	if err != nil {
		return nil, err
	}
	defer clear(raw)
	if method != m.Method {
		return nil, fmt.Errorf("%w: FVEK for %v on a %v volume", ErrCorrupt, method, m.Method)
	}
	n := m.Method.KeySize()
	switch m.Method {
	case AESCBC128Elephant, AESCBC256Elephant:
		// 512 bits: the AES key in the first half, the sector key in the
		// second, each using its first n/2 bytes.
		if len(raw) != 64 {
			return nil, fmt.Errorf("%w: Elephant FVEK of %d bytes, want 64", ErrCorrupt, len(raw))
		}
		out := make([]byte, 0, n)
		out = append(out, raw[:n/2]...)
		return append(out, raw[32:32+n/2]...), nil
	}
	if len(raw) < n {
		return nil, fmt.Errorf("%w: %v FVEK of %d bytes", ErrCorrupt, m.Method, len(raw))
	}
	return bytes.Clone(raw[:n]), nil
}

// checkValidation checks the SHA-256 of the metadata block that the
// validation structure holds encrypted under the VMK, where it is present.
func (m *Metadata) checkValidation(vmk []byte) error {
	if m.valLen == 0 || len(m.block) < m.valLen+8 {
		return nil
	}
	ents, err := parseEntries(m.block[m.valLen+8:])
	if err != nil || len(ents) == 0 || ents[0].ValueType != ValueAESCCM {
		return nil // no encrypted hash stored
	}
	h, _, err := decryptKeyEntry(ents[0], vmk)
	if err != nil {
		return fmt.Errorf("%w: metadata copy %d: validation hash: %w", ErrCorrupt, m.Copy, err)
	}
	defer clear(h)
	sum := sha256.Sum256(m.block[:m.valLen])
	if len(h) != 32 || subtle.ConstantTimeCompare(h, sum[:]) != 1 {
		return fmt.Errorf("%w: metadata copy %d: its SHA-256 does not match the validation", ErrCorrupt, m.Copy)
	}
	return nil
}
