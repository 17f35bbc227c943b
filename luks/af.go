package luks

import (
	"crypto/rand"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"fmt"
	"hash"

	"github.com/fastxts/xts/internal/hash/ripemd160"
	"github.com/fastxts/xts/internal/hash/whirlpool"
)

// hashFunc returns the constructor of a LUKS hash name: the hash of a
// keyslot's PBKDF2, its anti-forensic splitter and the volume key digest.
// ripemd160 and whirlpool are there for the LUKS1 headers old cryptsetup
// made with them.
func hashFunc(name string) (func() hash.Hash, error) {
	switch name {
	case "sha1":
		return sha1.New, nil
	case "sha256":
		return sha256.New, nil
	case "sha384":
		return sha512.New384, nil
	case "sha512":
		return sha512.New, nil
	case "ripemd160":
		return ripemd160.New, nil
	case "whirlpool":
		return whirlpool.New, nil
	}
	return nil, fmt.Errorf("%w: hash %q (sha1, sha256, sha384, sha512, ripemd160 and whirlpool are supported)", ErrUnsupported, name)
}

// diffuse replaces buf with LUKS's anti-forensic diffusion of it: each
// digest-sized block i becomes H(be32(i) || block), the last partial
// block the same hash cut to its length.
func diffuse(newHash func() hash.Hash, buf []byte) {
	h := newHash()
	ds := h.Size()
	var idx [4]byte
	sum := make([]byte, 0, ds)
	for i, off := uint32(0), 0; off < len(buf); i, off = i+1, off+ds {
		end := min(off+ds, len(buf))
		binary.BigEndian.PutUint32(idx[:], i)
		h.Reset()
		h.Write(idx[:])
		h.Write(buf[off:end])
		sum = h.Sum(sum[:0])
		copy(buf[off:end], sum)
	}
	clear(sum[:cap(sum)])
}

func xorInto(dst, src []byte) {
	for i := range dst {
		dst[i] ^= src[i]
	}
}

// afMerge recovers a key of keySize bytes from its stripes (keySize ×
// stripes bytes of split material).
func afMerge(split []byte, keySize, stripes int, hashName string) ([]byte, error) {
	newHash, err := hashFunc(hashName)
	if err != nil {
		return nil, err
	}
	if len(split) < keySize*stripes {
		return nil, fmt.Errorf("%w: %d bytes of split key, need %d", ErrCorrupt, len(split), keySize*stripes)
	}
	key := make([]byte, keySize)
	for i := 0; i < stripes-1; i++ {
		xorInto(key, split[i*keySize:])
		diffuse(newHash, key)
	}
	xorInto(key, split[(stripes-1)*keySize:])
	return key, nil
}

// afSplit spreads key over stripes blocks: stripes-1 random ones and a
// last one that makes afMerge give key back.
func afSplit(key []byte, stripes int, hashName string) ([]byte, error) {
	newHash, err := hashFunc(hashName)
	if err != nil {
		return nil, err
	}
	ks := len(key)
	out := make([]byte, ks*stripes)
	if _, err := rand.Read(out[:ks*(stripes-1)]); err != nil {
		return nil, err
	}
	buf := make([]byte, ks)
	for i := 0; i < stripes-1; i++ {
		xorInto(buf, out[i*ks:])
		diffuse(newHash, buf)
	}
	last := out[(stripes-1)*ks:]
	for i := range last {
		last[i] = buf[i] ^ key[i]
	}
	clear(buf)
	return out, nil
}
