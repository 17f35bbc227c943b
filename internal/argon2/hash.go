package argon2

import (
	"encoding/binary"
	"io"
)

// initialHash is H0 of RFC 9106 section 3.2: BLAKE2b-512 of the parameters
// and inputs, each length and number as a little-endian 32-bit word.
func initialHash(y uint32, password, salt, secret, data []byte, time, memory, lanes, keyLen uint32) [blake2bSize]byte {
	h := newBlake2b(blake2bSize)
	for _, v := range []uint32{lanes, keyLen, memory, time, Version, y} {
		writeLE32(h, v)
	}
	for _, b := range [][]byte{password, salt, secret, data} {
		writeLE32(h, uint32(len(b)))
		h.Write(b)
	}
	var h0 [blake2bSize]byte
	h.Sum(h0[:0])
	return h0
}

func writeLE32(h io.Writer, v uint32) {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], v)
	h.Write(b[:])
}

// variableHash writes H'^T(in...) of RFC 9106 section 3.3 into out, T being
// len(out): BLAKE2b-T of LE32(T) || in when T <= 64, and otherwise a chain
// of BLAKE2b-512 hashes of which the first 32 bytes of each are output,
// closed by one BLAKE2b of the remaining length.
func variableHash(out []byte, in ...[]byte) {
	t := len(out)
	h := newBlake2b(min(t, blake2bSize))
	writeLE32(h, uint32(t))
	for _, b := range in {
		h.Write(b)
	}
	if t <= blake2bSize {
		h.Sum(out[:0])
		return
	}
	// r = ceil(T/32) - 2 hashes V1..Vr of 64 bytes, then V(r+1) of
	// T - 32r bytes; out gets W1..Wr (the first halves) and V(r+1).
	var v [blake2bSize]byte
	h.Sum(v[:0])
	r := (t+31)/32 - 2
	for i := 1; ; i++ {
		copy(out[32*(i-1):], v[:32])
		if i == r {
			break
		}
		h.Reset()
		h.Write(v[:])
		h.Sum(v[:0])
	}
	last := newBlake2b(t - 32*r)
	last.Write(v[:])
	last.Sum(out[32*r : 32*r])
	clear(v[:])
}
