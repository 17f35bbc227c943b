package veracrypt

import (
	"fmt"
	"hash/crc32"
)

// Keyfile pool sizes: TrueCrypt's, and VeraCrypt's for passwords longer
// than 64 bytes.
const (
	keyPoolTC = 64
	keyPoolVC = 128
	// keyfileMax is how much of each keyfile counts.
	keyfileMax = 1 << 20
	// MaxPassword is VeraCrypt's longest password; TrueCrypt's is 64.
	MaxPassword = 128
	// MaxPasswordTrueCrypt is TrueCrypt's longest password.
	MaxPasswordTrueCrypt = 64
)

var crcTable = crc32.MakeTable(crc32.IEEE)

// applyKeyfiles returns the password with the keyfile pool of keyfiles
// added to it (VeraCrypt's "Keyfiles" technical details): for each
// keyfile, the CRC-32 register after each of its first 1 MiB of bytes is
// added, most significant byte first and modulo 256, into a pool of
// poolSize bytes from its start, wrapping; the password, padded with zero
// bytes to poolSize, then gets the pool added byte by byte modulo 256.
// With no keyfiles it returns a copy of the password.
func applyKeyfiles(password []byte, keyfiles [][]byte, poolSize int) []byte {
	pw := append([]byte(nil), password...)
	if len(keyfiles) == 0 {
		return pw
	}
	pool := make([]byte, poolSize)
	defer clear(pool)
	for _, kf := range keyfiles {
		kf = kf[:min(len(kf), keyfileMax)]
		reg := ^uint32(0)
		pos := 0
		for _, b := range kf {
			reg = crcTable[byte(reg)^b] ^ reg>>8
			for _, s := range [4]byte{byte(reg >> 24), byte(reg >> 16), byte(reg >> 8), byte(reg)} {
				pool[pos] += s
				pos++
				if pos == poolSize {
					pos = 0
				}
			}
		}
	}
	if len(pw) < poolSize {
		pw = append(pw, make([]byte, poolSize-len(pw))...)
	}
	for i, g := range pool {
		pw[i] += g
	}
	return pw
}

// passwordFor returns the password a TrueCrypt (tc) or VeraCrypt header
// derivation takes, keyfiles applied, or an error if it is too long.
func passwordFor(password []byte, keyfiles [][]byte, tc bool) ([]byte, error) {
	if tc {
		if len(password) > MaxPasswordTrueCrypt {
			return nil, fmt.Errorf("veracrypt: a TrueCrypt password is at most %d bytes, have %d", MaxPasswordTrueCrypt, len(password))
		}
		return applyKeyfiles(password, keyfiles, keyPoolTC), nil
	}
	if len(password) > MaxPassword {
		return nil, fmt.Errorf("veracrypt: a password is at most %d bytes, have %d", MaxPassword, len(password))
	}
	pool := keyPoolTC
	if len(password) > keyPoolTC {
		pool = keyPoolVC
	}
	return applyKeyfiles(password, keyfiles, pool), nil
}
