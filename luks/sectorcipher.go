package luks

import (
	"fmt"

	"github.com/fastxts/xts/internal/sector"
)

// The sector layer (cipher specs, IV numbering, the XTS and CBC sector
// ciphers) is internal/sector. What follows is what this package uses of
// it, with its own errors: the data segment's cipher (newSegmentCipher,
// for Volume) and the keyslot areas' (newSectorCipher).

// cipherSpec is a parsed cryptsetup cipher specification such as
// "aes-xts-plain64" or "aes-cbc-essiv:sha256".
type cipherSpec struct {
	cipher, mode, iv string
}

// parseCipherSpec parses spec; an unsupported one is ErrUnsupported.
func parseCipherSpec(spec string) (cipherSpec, error) {
	s, err := sector.ParseSpec(spec)
	if err != nil {
		return cipherSpec{}, fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	return cipherSpec{s.Cipher, s.Mode, s.IV}, nil
}

// keySizeOK reports whether key is a valid size for the spec.
func (s cipherSpec) keySizeOK(n int) bool {
	return sector.Spec{Cipher: s.cipher, Mode: s.mode, IV: s.iv}.KeySizeOK(n)
}

// newSegmentCipher returns the sector cipher of a data segment of spec
// under key: sectors of sectorSize bytes whose IVs count 512-byte units
// from ivTweak. A spec or key size this package does not support is
// ErrUnsupported. opts are sector.New's.
func newSegmentCipher(spec string, key []byte, sectorSize int, ivTweak uint64, opts ...sector.Option) (*sector.Cipher, error) {
	s, err := parseCipherSpec(spec)
	if err != nil {
		return nil, err
	}
	if !s.keySizeOK(len(key)) {
		return nil, fmt.Errorf("%w: %d-bit key for %s", ErrUnsupported, 8*len(key), spec)
	}
	c, err := sector.NewLUKS(spec, key, sectorSize, ivTweak, opts...)
	if err != nil {
		return nil, fmt.Errorf("luks: %s: %w", spec, err)
	}
	return c, nil
}

// sectorCipher encrypts and decrypts whole sectors of a keyslot area (or
// any area with the segment IV rules): iv is the IV of the first sector,
// in 512-byte units; each following sector's is sectorSize/512 higher.
// dst is src or does not overlap it.
type sectorCipher interface {
	encrypt(dst, src []byte, sectorSize int, iv uint64)
	decrypt(dst, src []byte, sectorSize int, iv uint64)
	wipe()
}

// newSectorCipher makes the sector cipher for spec with key.
func newSectorCipher(spec string, key []byte) (sectorCipher, error) {
	c, err := newSegmentCipher(spec, key, 512, 0)
	if err != nil {
		return nil, err
	}
	return areaCipher{c}, nil
}

// areaCipher is a sector.Cipher whose sector size and first IV come with
// each call.
type areaCipher struct{ c *sector.Cipher }

func (a areaCipher) at(ss int, iv uint64) *sector.Cipher {
	return a.c.With(sector.Numbering{SectorSize: ss, Offset: iv})
}

func (a areaCipher) encrypt(dst, src []byte, ss int, iv uint64) { a.at(ss, iv).Encrypt(dst, src, 0) }
func (a areaCipher) decrypt(dst, src []byte, ss int, iv uint64) { a.at(ss, iv).Decrypt(dst, src, 0) }

// wipe clears the XTS round keys (xts.Cipher.Wipe) or drops the CBC block
// ciphers; it may be repeated.
func (a areaCipher) wipe() { a.c.Wipe() }
