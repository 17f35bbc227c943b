package bitlocker

import (
	"crypto/cipher"
	"crypto/subtle"
	"errors"
)

// AES-CCM (NIST SP 800-38C, RFC 3610) over a cipher.Block, for the
// BitLocker key entries: a 12-byte nonce and a 16-byte tag. BitLocker stores
// the tag in front of the ciphertext; ccmSeal and ccmOpen use the standard
// order (ciphertext ‖ tag) and the callers move the tag.

var errCCMAuth = errors.New("bitlocker: AES-CCM authentication failed")

// ccmCheck validates the parameters: nonce 7..13 bytes, tag 4..16 bytes and
// even, and the payload length representable in the 15-len(nonce) bytes of
// the counter field.
func ccmCheck(nonceLen, tagLen int, n int) error {
	if nonceLen < 7 || nonceLen > 13 {
		return errors.New("bitlocker: AES-CCM nonce must be 7 to 13 bytes")
	}
	if tagLen < 4 || tagLen > 16 || tagLen%2 != 0 {
		return errors.New("bitlocker: AES-CCM tag must be 4, 6, ..., 16 bytes")
	}
	q := 15 - nonceLen
	if q < 8 && uint64(n) >= uint64(1)<<(8*q) {
		return errors.New("bitlocker: AES-CCM payload too long for the nonce size")
	}
	return nil
}

// ccmCounter returns counter block i for the nonce.
func ccmCounter(nonce []byte, i uint64) (a [16]byte) {
	q := 15 - len(nonce)
	a[0] = byte(q - 1)
	copy(a[1:], nonce)
	for j := 15; j > 15-q; j-- {
		a[j] = byte(i)
		i >>= 8
	}
	return a
}

// ccmMAC is the CBC-MAC of B0, the encoded associated data and the payload.
func ccmMAC(b cipher.Block, nonce, adata, payload []byte, tagLen int) [16]byte {
	var x [16]byte
	q := 15 - len(nonce)
	x[0] = byte((tagLen-2)/2)<<3 | byte(q-1)
	if len(adata) > 0 {
		x[0] |= 0x40
	}
	copy(x[1:], nonce)
	n := uint64(len(payload))
	for j := 15; j > 15-q; j-- {
		x[j] = byte(n)
		n >>= 8
	}
	b.Encrypt(x[:], x[:])
	mix := func(data []byte) {
		for len(data) > 0 {
			k := min(16, len(data))
			subtle.XORBytes(x[:k], x[:k], data[:k])
			b.Encrypt(x[:], x[:])
			data = data[k:]
		}
	}
	if len(adata) > 0 {
		var hdr []byte
		la := uint64(len(adata))
		switch {
		case la < 0xff00:
			hdr = []byte{byte(la >> 8), byte(la)}
		case la <= 0xffffffff:
			hdr = []byte{0xff, 0xfe, byte(la >> 24), byte(la >> 16), byte(la >> 8), byte(la)}
		default:
			hdr = []byte{0xff, 0xff, byte(la >> 56), byte(la >> 48), byte(la >> 40), byte(la >> 32), byte(la >> 24), byte(la >> 16), byte(la >> 8), byte(la)}
		}
		// The header and the data are one string, padded with zeros to a block.
		buf := make([]byte, 0, (len(hdr)+len(adata)+15)/16*16)
		buf = append(buf, hdr...)
		buf = append(buf, adata...)
		buf = buf[:cap(buf)]
		mix(buf)
	}
	for len(payload) > 0 {
		k := min(16, len(payload))
		var blk [16]byte
		copy(blk[:], payload[:k])
		subtle.XORBytes(x[:], x[:], blk[:])
		b.Encrypt(x[:], x[:])
		payload = payload[k:]
	}
	return x
}

// ccmCTR XORs src with the key stream from counter 1 into dst.
func ccmCTR(b cipher.Block, nonce, dst, src []byte) {
	var ks [16]byte
	for i := uint64(1); len(src) > 0; i++ {
		a := ccmCounter(nonce, i)
		b.Encrypt(ks[:], a[:])
		k := min(16, len(src))
		subtle.XORBytes(dst[:k], src[:k], ks[:k])
		dst, src = dst[k:], src[k:]
	}
}

// ccmSeal returns ciphertext ‖ tag of the plaintext.
func ccmSeal(b cipher.Block, nonce, adata, plaintext []byte, tagLen int) ([]byte, error) {
	if err := ccmCheck(len(nonce), tagLen, len(plaintext)); err != nil {
		return nil, err
	}
	mac := ccmMAC(b, nonce, adata, plaintext, tagLen)
	out := make([]byte, len(plaintext)+tagLen)
	ccmCTR(b, nonce, out, plaintext)
	a0 := ccmCounter(nonce, 0)
	var s0 [16]byte
	b.Encrypt(s0[:], a0[:])
	subtle.XORBytes(out[len(plaintext):], mac[:tagLen], s0[:tagLen])
	return out, nil
}

// ccmOpen authenticates and decrypts ciphertext ‖ tag; the tag comparison is
// constant time and nothing is returned when it fails.
func ccmOpen(b cipher.Block, nonce, adata, sealed []byte, tagLen int) ([]byte, error) {
	if len(sealed) < tagLen {
		return nil, errors.New("bitlocker: AES-CCM input shorter than its tag")
	}
	n := len(sealed) - tagLen
	if err := ccmCheck(len(nonce), tagLen, n); err != nil {
		return nil, err
	}
	out := make([]byte, n)
	ccmCTR(b, nonce, out, sealed[:n])
	mac := ccmMAC(b, nonce, adata, out, tagLen)
	a0 := ccmCounter(nonce, 0)
	var s0 [16]byte
	b.Encrypt(s0[:], a0[:])
	subtle.XORBytes(s0[:tagLen], s0[:tagLen], mac[:tagLen])
	if subtle.ConstantTimeCompare(s0[:tagLen], sealed[n:]) != 1 {
		clear(out)
		return nil, errCCMAuth
	}
	return out, nil
}
