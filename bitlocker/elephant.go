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

// back and ahead are (i-k) mod n and (i+k) mod n for 0 <= i < n, k <= n,
// without a division.
func back(i, k, n int) int {
	if i -= k; i < 0 {
		i += n
	}
	return i
}

func ahead(i, k, n int) int {
	if i += k; i >= n {
		i -= n
	}
	return i
}

// The diffusers work on the words of one sector (len(d) a multiple of 4,
// at least 16). Each loop does the steps whose indices wrap around the
// sector one by one, and the others four at a time with the rotations as
// constants (i is then a multiple of 4: Ra = 9, 0, 13, 0; Rb = 0, 10, 0, 25).

func diffuserADecrypt(d []uint32) {
	n := len(d)
	for c := 0; c < cyclesA; c++ {
		for i := 0; i < 8; i++ {
			d[i] += d[back(i, 2, n)] ^ bits.RotateLeft32(d[back(i, 5, n)], rotA[i&3])
		}
		// Each step needs the word two steps back, just written: the five
		// words behind i stay in registers (p1 = d[i-1] .. p5 = d[i-5])
		// instead of going through memory, whose store-to-load latency
		// would lengthen the chain.
		p5, p4, p3, p2, p1 := d[3], d[4], d[5], d[6], d[7]
		for i := 8; i+3 < n; i += 4 {
			w := d[i : i+4 : i+4]
			a := w[0] + (p2 ^ bits.RotateLeft32(p5, 9))
			b := w[1] + (p1 ^ p4)
			c := w[2] + (a ^ bits.RotateLeft32(p3, 13))
			e := w[3] + (b ^ p2)
			w[0], w[1], w[2], w[3] = a, b, c, e
			p5, p4, p3, p2, p1 = p1, a, b, c, e
		}
	}
}

func diffuserAEncrypt(d []uint32) {
	n := len(d)
	for c := 0; c < cyclesA; c++ {
		for i := n - 4; i >= 8; i -= 4 {
			w := d[i-5 : i+4 : i+4]
			w[8] -= w[6] ^ w[3]
			w[7] -= w[5] ^ bits.RotateLeft32(w[2], 13)
			w[6] -= w[4] ^ w[1]
			w[5] -= w[3] ^ bits.RotateLeft32(w[0], 9)
		}
		for i := 7; i >= 0; i-- {
			d[i] -= d[back(i, 2, n)] ^ bits.RotateLeft32(d[back(i, 5, n)], rotA[i&3])
		}
	}
}

func diffuserBDecrypt(d []uint32) {
	n := len(d)
	for c := 0; c < cyclesB; c++ {
		i := 0
		for ; i+8 < n-4; i += 4 { // w[j] = d[i+j], up to i+8
			w := d[i : i+9 : i+9]
			w[0] += w[2] ^ w[5]
			w[1] += w[3] ^ bits.RotateLeft32(w[6], 10)
			w[2] += w[4] ^ w[7]
			w[3] += w[5] ^ bits.RotateLeft32(w[8], 25)
		}
		for ; i < n; i++ {
			d[i] += d[ahead(i, 2, n)] ^ bits.RotateLeft32(d[ahead(i, 5, n)], rotB[i&3])
		}
	}
}

func diffuserBEncrypt(d []uint32) {
	n := len(d)
	for c := 0; c < cyclesB; c++ {
		// The same split as diffuserBDecrypt, undone in reverse order.
		split := 0
		for split+8 < n-4 {
			split += 4
		}
		for i := n - 1; i >= split; i-- {
			d[i] -= d[ahead(i, 2, n)] ^ bits.RotateLeft32(d[ahead(i, 5, n)], rotB[i&3])
		}
		for i := split - 4; i >= 0; i -= 4 {
			w := d[i : i+9 : i+9]
			w[3] -= w[5] ^ bits.RotateLeft32(w[8], 25)
			w[2] -= w[4] ^ w[7]
			w[1] -= w[3] ^ bits.RotateLeft32(w[6], 10)
			w[0] -= w[2] ^ w[5]
		}
	}
}
