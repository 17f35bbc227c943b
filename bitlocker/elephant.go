package bitlocker

import (
	"encoding/binary"
	"math/bits"
)

// The Elephant diffuser (N. Ferguson, "AES-CBC + Elephant diffuser: A Disk
// Encryption Algorithm for Windows Vista", Microsoft, August 2006). A sector
// is read as n = size/4 little-endian 32-bit words d[0..n-1], indices taken
// modulo n. In the decryption direction, diffuser A runs 5 cycles of
//
//	for i = 0 .. n-1: d[i] += d[i-2] ^ (d[i-5] <<< Ra[i mod 4]),  Ra = 9, 0, 13, 0
//
// and diffuser B 3 cycles of
//
//	for i = 0 .. n-1: d[i] += d[i+2] ^ (d[i+5] <<< Rb[i mod 4]),  Rb = 0, 10, 0, 25
//
// The encryption direction undoes them: the same steps in reverse order,
// subtracting. Encryption is: XOR with the sector key, A, B, AES-CBC;
// decryption: AES-CBC, B, A, XOR.

var (
	rotA = [4]int{9, 0, 13, 0}
	rotB = [4]int{0, 10, 0, 25}
)

const (
	cyclesA = 5
	cyclesB = 3
)

func loadWords(w []uint32, b []byte) {
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
}

func storeWords(b []byte, w []uint32) {
	for i, x := range w {
		binary.LittleEndian.PutUint32(b[4*i:], x)
	}
}

// diffuserADecrypt and the others work on the words of one sector; len(d)
// is at least 8.
func diffuserADecrypt(d []uint32) {
	n := len(d)
	for c := 0; c < cyclesA; c++ {
		for i := 0; i < n; i++ {
			i2, i5 := i-2, i-5
			if i2 < 0 {
				i2 += n
			}
			if i5 < 0 {
				i5 += n
			}
			d[i] += d[i2] ^ bits.RotateLeft32(d[i5], rotA[i&3])
		}
	}
}

func diffuserAEncrypt(d []uint32) {
	n := len(d)
	for c := 0; c < cyclesA; c++ {
		for i := n - 1; i >= 0; i-- {
			i2, i5 := i-2, i-5
			if i2 < 0 {
				i2 += n
			}
			if i5 < 0 {
				i5 += n
			}
			d[i] -= d[i2] ^ bits.RotateLeft32(d[i5], rotA[i&3])
		}
	}
}

func diffuserBDecrypt(d []uint32) {
	n := len(d)
	for c := 0; c < cyclesB; c++ {
		for i := 0; i < n; i++ {
			i2, i5 := i+2, i+5
			if i2 >= n {
				i2 -= n
			}
			if i5 >= n {
				i5 -= n
			}
			d[i] += d[i2] ^ bits.RotateLeft32(d[i5], rotB[i&3])
		}
	}
}

func diffuserBEncrypt(d []uint32) {
	n := len(d)
	for c := 0; c < cyclesB; c++ {
		for i := n - 1; i >= 0; i-- {
			i2, i5 := i+2, i+5
			if i2 >= n {
				i2 -= n
			}
			if i5 >= n {
				i5 -= n
			}
			d[i] -= d[i2] ^ bits.RotateLeft32(d[i5], rotB[i&3])
		}
	}
}
