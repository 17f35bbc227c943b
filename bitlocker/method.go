package bitlocker

import "fmt"

// Method is a volume's encryption method (the metadata header's field).
type Method uint16

// Encryption methods of the data (the ones this package opens).
const (
	AESCBC128Elephant Method = 0x8000 // AES-CBC-128 with the Elephant diffuser (Vista, 7)
	AESCBC256Elephant Method = 0x8001 // AES-CBC-256 with the Elephant diffuser (Vista, 7)
	AESCBC128         Method = 0x8002 // AES-CBC-128 (7 and later)
	AESCBC256         Method = 0x8003 // AES-CBC-256 (7 and later)
	AESXTS128         Method = 0x8004 // AES-XTS-128 (10 1511 and later)
	AESXTS256         Method = 0x8005 // AES-XTS-256 (10 1511 and later)
)

// String names the method, e.g. "AES-XTS-128".
func (m Method) String() string {
	switch m {
	case AESCBC128Elephant:
		return "AES-CBC-128 with Elephant diffuser"
	case AESCBC256Elephant:
		return "AES-CBC-256 with Elephant diffuser"
	case AESCBC128:
		return "AES-CBC-128"
	case AESCBC256:
		return "AES-CBC-256"
	case AESXTS128:
		return "AES-XTS-128"
	case AESXTS256:
		return "AES-XTS-256"
	}
	return fmt.Sprintf("unknown method %#04x", uint16(m))
}

// Known reports whether this package can decrypt data encrypted with m.
func (m Method) Known() bool { return m >= AESCBC128Elephant && m <= AESXTS256 }

// CipherMode is cryptsetup's name for the mode: "xts-plain64", "cbc-eboiv"
// or "cbc-elephant" ("" for an unknown method). The cipher is always "aes".
func (m Method) CipherMode() string {
	switch m {
	case AESCBC128Elephant, AESCBC256Elephant:
		return "cbc-elephant"
	case AESCBC128, AESCBC256:
		return "cbc-eboiv"
	case AESXTS128, AESXTS256:
		return "xts-plain64"
	}
	return ""
}

// KeySize is the length in bytes of the volume key as FVEK returns it and as
// cryptsetup counts it: both XTS halves; for Elephant, the AES key followed
// by the sector (tweak) key of the same length.
func (m Method) KeySize() int {
	switch m {
	case AESCBC128:
		return 16
	case AESCBC256, AESXTS128, AESCBC128Elephant:
		return 32
	case AESXTS256, AESCBC256Elephant:
		return 64
	}
	return 0
}

// ProtectionType says what protects a volume master key.
type ProtectionType uint16

// Protection types.
const (
	ProtectClearKey         ProtectionType = 0x0000 // stored unencrypted (protection suspended)
	ProtectTPM              ProtectionType = 0x0100
	ProtectStartupKey       ProtectionType = 0x0200 // an external key (.BEK file)
	ProtectTPMAndPIN        ProtectionType = 0x0500
	ProtectRecoveryPassword ProtectionType = 0x0800 // the 48-digit recovery password
	ProtectSmartCard        ProtectionType = 0x1000
	ProtectPassword         ProtectionType = 0x2000
)

// String is cryptsetup's wording, e.g. "VMK protected with passphrase".
func (p ProtectionType) String() string {
	switch p {
	case ProtectClearKey:
		return "VMK protected with clear key"
	case ProtectTPM:
		return "VMK protected with TPM"
	case ProtectStartupKey:
		return "VMK protected with startup key"
	case ProtectTPMAndPIN:
		return "VMK protected with TPM and PIN"
	case ProtectRecoveryPassword:
		return "VMK protected with recovery passphrase"
	case ProtectSmartCard:
		return "VMK protected with smart card"
	case ProtectPassword:
		return "VMK protected with passphrase"
	}
	return fmt.Sprintf("VMK with unknown protection %#04x", uint16(p))
}

// usable reports whether this package can unlock a protector of type p.
func (p ProtectionType) usable() bool {
	switch p {
	case ProtectClearKey, ProtectStartupKey, ProtectRecoveryPassword, ProtectPassword:
		return true
	}
	return false
}
