package sector

import (
	"crypto/cipher"
	"crypto/sha256"
	"encoding/binary"

	"github.com/fastxts/xts/internal/parallel"
)

// cbcEngine is CBC with a per-sector IV: the 64-bit little-endian sector
// number (plain64, and plain, whose numbers Split keeps below 2^32), or
// that number encrypted under SHA-256 of the key with the same block
// cipher (essiv:sha256, as dm-crypt does: serpent-cbc-essiv:sha256
// encrypts the IVs with Serpent). Sectors are independent, so large calls
// run on several goroutines.
type cbcEngine struct {
	b, essiv cipher.Block
	serial   bool
	pkg      string
}

func newCBC(bc blockCipher, key []byte, essiv, serial bool) (engine, error) {
	b, err := bc.newBlock(key)
	if err != nil {
		return nil, err
	}
	e := &cbcEngine{b: b, serial: serial, pkg: bc.pkg}
	if essiv {
		salt := sha256.Sum256(key)
		e.essiv, err = bc.newBlock(salt[:])
		clear(salt[:])
		if err != nil {
			return nil, err
		}
	}
	return e, nil
}

// cbcPiece is the size of the pieces a parallel call is cut into.
const cbcPiece = 128 << 10

func (e *cbcEngine) crypt(dst, src []byte, ss int, iv, step uint64, encrypt bool) {
	b, essiv := e.b, e.essiv
	if b == nil {
		panic("sector: use of a wiped Cipher")
	}
	n := len(src) / ss
	w := workers(e.serial, len(src))
	if w == 1 {
		cbcSerial(b, essiv, dst, src, ss, iv, step, encrypt)
		return
	}
	parallel.Run(n, max(1, cbcPiece/ss), w, func(lo, hi int) error {
		cbcSerial(b, essiv, dst[lo*ss:hi*ss], src[lo*ss:hi*ss], ss, iv+uint64(lo)*step, step, encrypt)
		return nil
	})
}

func cbcSerial(b, essiv cipher.Block, dst, src []byte, ss int, n, step uint64, encrypt bool) {
	var iv [16]byte
	for off := 0; off < len(src); off += ss {
		iv = [16]byte{}
		binary.LittleEndian.PutUint64(iv[:], n)
		if essiv != nil {
			essiv.Encrypt(iv[:], iv[:])
		}
		d, s := dst[off:off+ss], src[off:off+ss]
		if encrypt {
			cipher.NewCBCEncrypter(b, iv[:]).CryptBlocks(d, s)
		} else {
			cipher.NewCBCDecrypter(b, iv[:]).CryptBlocks(d, s)
		}
		n += step
	}
}

func (e *cbcEngine) implementation() string { return e.pkg }

// wipe drops the block ciphers: crypto/aes and the module's other block
// ciphers have no way to clear their key schedules.
func (e *cbcEngine) wipe() { e.b, e.essiv = nil, nil }
