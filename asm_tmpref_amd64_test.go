//go:build !purego

package xts

import "crypto/cipher"

// Temporary reference until the generic engine lands on main.
type asmTmpRef struct{ k1, k2 cipher.Block }

func (r *asmTmpRef) encrypt(dst, src []byte, tw *[16]byte, flags uint64) { r.do(dst, src, tw, flags, false) }
func (r *asmTmpRef) decrypt(dst, src []byte, tw *[16]byte, flags uint64) { r.do(dst, src, tw, flags, true) }

func asmTmpMul2(t *[16]byte) {
	var c byte
	for i := range t {
		n := t[i] >> 7
		t[i] = t[i]<<1 | c
		c = n
	}
	if c != 0 {
		t[0] ^= 0x87
	}
}

func (r *asmTmpRef) do(dst, src []byte, tw *[16]byte, flags uint64, dec bool) {
	T := *tw
	if flags&1 != 0 {
		r.k2.Encrypt(T[:], T[:])
	}
	blk := func(out, in []byte, t [16]byte) {
		var b [16]byte
		for i := range b {
			b[i] = in[i] ^ t[i]
		}
		if dec {
			r.k1.Decrypt(b[:], b[:])
		} else {
			r.k1.Encrypt(b[:], b[:])
		}
		for i := range b {
			out[i] = b[i] ^ t[i]
		}
	}
	n := len(src)
	m, rem := n/16, n%16
	full := m
	if rem != 0 {
		full--
	}
	for i := 0; i < full; i++ {
		blk(dst[16*i:], src[16*i:], T)
		asmTmpMul2(&T)
	}
	if rem != 0 {
		t1 := T
		asmTmpMul2(&T)
		ta, tb := t1, T
		if dec {
			ta, tb = tb, ta
		}
		var cc, pp [16]byte
		blk(cc[:], src[16*(m-1):], ta)
		copy(pp[:], src[16*m:n])
		copy(pp[rem:], cc[rem:])
		copy(dst[16*m:n], cc[:rem])
		blk(dst[16*(m-1):], pp[:], tb)
	}
	if flags&2 != 0 {
		*tw = T
	}
}
