//go:build !purego

package xts

import (
	"encoding/binary"
	"unsafe"
)

// A small pure-Go AES key expansion (FIPS 197, section 5.2) that builds
// keySchedule values for the assembly tests independently of expandKey.

var asmSbox = func() (s [256]byte) {
	// The S-box is the multiplicative inverse in GF(2^8) followed by the
	// affine map; inverses found by brute force (test code, runs once).
	for x := 0; x < 256; x++ {
		inv := byte(0)
		for y := 1; y < 256 && x != 0; y++ {
			if asmGFMul(byte(x), byte(y)) == 1 {
				inv = byte(y)
				break
			}
		}
		b := inv
		r := b ^ rotl8(b, 1) ^ rotl8(b, 2) ^ rotl8(b, 3) ^ rotl8(b, 4) ^ 0x63
		s[x] = r
	}
	return
}()

func rotl8(b byte, n uint) byte { return b<<n | b>>(8-n) }

// asmGFMul multiplies in GF(2^8) modulo x^8 + x^4 + x^3 + x + 1.
func asmGFMul(a, b byte) byte {
	var p byte
	for b != 0 {
		if b&1 != 0 {
			p ^= a
		}
		hi := a & 0x80
		a <<= 1
		if hi != 0 {
			a ^= 0x1b
		}
		b >>= 1
	}
	return p
}

// asmRoundKeys returns the rounds+1 round keys of an AES key, as the bytes
// AES-NI expects (the state's byte order).
func asmRoundKeys(key []byte) [][16]byte {
	nk := len(key) / 4
	rounds := nk + 6
	w := make([]uint32, 4*(rounds+1))
	for i := 0; i < nk; i++ {
		w[i] = binary.BigEndian.Uint32(key[4*i:])
	}
	sub := func(x uint32) uint32 {
		return uint32(asmSbox[x>>24])<<24 | uint32(asmSbox[x>>16&0xff])<<16 |
			uint32(asmSbox[x>>8&0xff])<<8 | uint32(asmSbox[x&0xff])
	}
	rcon := byte(1)
	for i := nk; i < len(w); i++ {
		t := w[i-1]
		switch {
		case i%nk == 0:
			t = sub(t<<8|t>>24) ^ uint32(rcon)<<24
			rcon = asmGFMul(rcon, 2)
		case nk > 6 && i%nk == 4:
			t = sub(t)
		}
		w[i] = w[i-nk] ^ t
	}
	rk := make([][16]byte, rounds+1)
	for i := range w {
		binary.BigEndian.PutUint32(rk[i/4][4*(i%4):], w[i])
	}
	return rk
}

// asmInvMixColumns applies InvMixColumns to a round key (for the
// equivalent inverse cipher's decryption keys).
func asmInvMixColumns(k [16]byte) (r [16]byte) {
	for c := 0; c < 4; c++ {
		a := k[4*c : 4*c+4]
		for i := 0; i < 4; i++ {
			r[4*c+i] = asmGFMul(a[i], 14) ^ asmGFMul(a[(i+1)%4], 11) ^
				asmGFMul(a[(i+2)%4], 13) ^ asmGFMul(a[(i+3)%4], 9)
		}
	}
	return
}

// asmTestSchedule builds the keySchedule of a full XTS key (K1 ‖ K2) in a
// 64-byte aligned allocation, as the assembly's contract requires.
func asmTestSchedule(key []byte) *keySchedule {
	const size = unsafe.Sizeof(keySchedule{})
	buf := make([]byte, size+63)
	off := -uintptr(unsafe.Pointer(&buf[0])) & 63
	ks := (*keySchedule)(unsafe.Pointer(&buf[off]))

	half := len(key) / 2
	data, tweak := asmRoundKeys(key[:half]), asmRoundKeys(key[half:])
	rounds := len(data) - 1
	first := 14 - rounds
	for i := 0; i <= rounds; i++ {
		ks.enc[first+i] = data[i]
		ks.tweak[first+i] = tweak[i]
		switch i {
		case 0:
			ks.dec[first] = data[rounds]
		case rounds:
			ks.dec[14] = data[0]
		default:
			ks.dec[first+i] = asmInvMixColumns(data[rounds-i])
		}
	}
	ks.rounds = uint64(rounds)
	return ks
}
