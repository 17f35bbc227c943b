package fvault2

import (
	"crypto/aes"
	"crypto/subtle"
	"encoding/binary"
	"errors"
)

// errUnwrap is what aesUnwrap returns when the integrity check fails:
// the wrapping key is not the one the data was wrapped with.
var errUnwrap = errors.New("fvault2: AES key unwrap: integrity check failed")

// kwIV is RFC 3394's default initial value (section 2.2.3.1).
var kwIV = [8]byte{0xa6, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6, 0xa6}

// aesUnwrap is the AES key unwrap of RFC 3394 (section 2.2.2, the index
// based form) under kek (16, 24 or 32 bytes): wrapped is n+1 64-bit
// blocks (n >= 2), the result the n blocks of key data. The check of the
// recovered initial value is constant time; a mismatch is errUnwrap and
// returns no data.
func aesUnwrap(kek, wrapped []byte) ([]byte, error) {
	if len(wrapped)%8 != 0 || len(wrapped) < 24 {
		return nil, errors.New("fvault2: AES key unwrap: wrapped key is not 3 or more 64-bit blocks")
	}
	b, err := aes.NewCipher(kek)
	if err != nil {
		return nil, errors.New("fvault2: AES key unwrap: key-encrypting key is not 16, 24 or 32 bytes")
	}
	n := len(wrapped)/8 - 1
	r := make([]byte, 8*n)
	copy(r, wrapped[8:])
	var blk [16]byte
	copy(blk[:8], wrapped[:8]) // A
	for j := 5; j >= 0; j-- {
		for i := n; i >= 1; i-- {
			t := uint64(n*j + i)
			a := binary.BigEndian.Uint64(blk[:8]) ^ t
			binary.BigEndian.PutUint64(blk[:8], a)
			copy(blk[8:], r[8*(i-1):8*i])
			b.Decrypt(blk[:], blk[:])
			copy(r[8*(i-1):8*i], blk[8:])
		}
	}
	ok := subtle.ConstantTimeCompare(blk[:8], kwIV[:]) == 1
	clear(blk[:])
	if !ok {
		clear(r)
		return nil, errUnwrap
	}
	return r, nil
}
