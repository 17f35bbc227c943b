package bitlocker

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/subtle"
	"encoding/binary"
	"fmt"
	"runtime"
	"sync"

	"github.com/fastxts/xts"
)

// sectorCipher encrypts and decrypts whole sectors of a BitLocker volume.
// Sector k is the one at byte offset k*size of the encrypted device (its
// physical place: the relocated boot sectors are decrypted where they lie).
type sectorCipher struct {
	method Method
	size   int
	xts    *xts.Cipher   // AES-XTS: the tweak is the sector number
	block  cipher.Block  // AES-CBC: the FVEK
	tweak  cipher.Block  // Elephant: the sector key's key
	cbc    *cbcDecrypter // AES-CBC decryption many blocks at a time; nil: block by block
}

func newSectorCipher(m Method, key []byte, sectorSize int) (*sectorCipher, error) {
	if len(key) != m.KeySize() {
		return nil, fmt.Errorf("bitlocker: %v key of %d bytes, want %d", m, len(key), m.KeySize())
	}
	if sectorSize < 512 || sectorSize > 4096 || sectorSize&(sectorSize-1) != 0 {
		return nil, fmt.Errorf("bitlocker: sector size %d", sectorSize)
	}
	c := &sectorCipher{method: m, size: sectorSize}
	var err error
	switch m {
	case AESXTS128, AESXTS256:
		c.xts, err = xts.NewCipher(aes.NewCipher, key, xts.AllowEqualKeyHalves())
	case AESCBC128, AESCBC256:
		c.block, err = aes.NewCipher(key)
		c.cbc = newCBCDecrypter(key, sectorSize)
	case AESCBC128Elephant, AESCBC256Elephant:
		if c.block, err = aes.NewCipher(key[:len(key)/2]); err == nil {
			c.tweak, err = aes.NewCipher(key[len(key)/2:])
		}
		c.cbc = newCBCDecrypter(key[:len(key)/2], sectorSize)
	default:
		return nil, fmt.Errorf("%w: %v", ErrUnsupported, m)
	}
	if err != nil {
		return nil, fmt.Errorf("bitlocker: %v: %w", m, err)
	}
	return c, nil
}

// parallelMin is the length from which CBC work is spread over goroutines.
// Above internal/volume's chunk (512 KiB), which the volume already spreads
// over the cores: goroutines started per chunk under it would only compete
// with its own (1 MiB, as the xts package's threshold).
const parallelMin = 1 << 20

func (c *sectorCipher) Decrypt(dst, src []byte, k uint64) { c.run(dst, src, k, false) }
func (c *sectorCipher) Encrypt(dst, src []byte, k uint64) { c.run(dst, src, k, true) }

// Wipe drops the key schedules (the AES ones of crypto/aes cannot be
// overwritten from outside; the XTS one is wiped).
func (c *sectorCipher) Wipe() {
	if c.xts != nil {
		c.xts.Wipe()
	}
	if c.cbc != nil {
		c.cbc.wipe()
	}
	c.xts, c.block, c.tweak, c.cbc = nil, nil, nil, nil
}

func (c *sectorCipher) run(dst, src []byte, k uint64, enc bool) {
	if len(src)%c.size != 0 || len(dst) < len(src) {
		panic("bitlocker: sector cipher called with a partial sector")
	}
	if c.xts != nil {
		if enc {
			c.xts.EncryptSectors(dst, src, c.size, k)
		} else {
			c.xts.DecryptSectors(dst, src, c.size, k)
		}
		return
	}
	if c.block == nil {
		panic("bitlocker: sector cipher used after Wipe")
	}
	n := len(src) / c.size
	workers := 1
	if len(src) >= parallelMin {
		workers = min(runtime.GOMAXPROCS(0), n)
	}
	if workers <= 1 {
		c.cbcRange(dst, src, k, enc)
		return
	}
	var wg sync.WaitGroup
	per := (n + workers - 1) / workers
	for s := 0; s < n; s += per {
		e := min(n, s+per)
		wg.Add(1)
		go func(s, e int) {
			defer wg.Done()
			c.cbcRange(dst[s*c.size:e*c.size], src[s*c.size:e*c.size], k+uint64(s), enc)
		}(s, e)
	}
	wg.Wait()
}

// cbcRange handles AES-CBC with or without Elephant, sector by sector.
func (c *sectorCipher) cbcRange(dst, src []byte, k uint64, enc bool) {
	var iv [16]byte
	var dec, encr cipher.BlockMode // reset to each sector's IV when they can be
	var words []uint32
	var skey []byte
	if c.tweak != nil {
		words = make([]uint32, c.size/4)
		skey = make([]byte, 32)
	}
	if !enc && c.cbc != nil {
		c.cbc.decrypt(dst, src, func(i int, v []byte) { c.sectorIV(v, k+uint64(i)) })
		if c.tweak != nil {
			for off := 0; off < len(src); off, k = off+c.size, k+1 {
				d := dst[off : off+c.size]
				c.sectorKey(skey, k)
				elephantDecrypt(d, words, skey)
			}
		}
		clear(skey)
		clear(words)
		return
	}
	for off := 0; off < len(src); off, k = off+c.size, k+1 {
		d, s := dst[off:off+c.size], src[off:off+c.size]
		c.sectorIV(iv[:], k)
		if c.tweak != nil {
			c.sectorKey(skey, k)
		}
		if enc {
			if c.tweak != nil {
				for j := 0; j < c.size; j += 32 {
					subtle.XORBytes(d[j:j+32], s[j:j+32], skey)
				}
				loadWords(words, d)
				diffuserAEncrypt(words)
				diffuserBEncrypt(words)
				storeWords(d, words)
				s = d
			}
			encr = cbcMode(encr, c.block, iv[:], true)
			encr.CryptBlocks(d, s)
			continue
		}
		dec = cbcMode(dec, c.block, iv[:], false)
		dec.CryptBlocks(d, s)
		if c.tweak != nil {
			elephantDecrypt(d, words, skey)
		}
	}
	clear(skey)
	clear(words)
}

// sectorIV writes the AES-CBC IV of sector k to iv: the sector's byte
// offset, 128-bit little-endian, under the FVEK.
func (c *sectorCipher) sectorIV(iv []byte, k uint64) {
	var e [16]byte
	binary.LittleEndian.PutUint64(e[:], k*uint64(c.size))
	c.block.Encrypt(iv, e[:])
}

// sectorKey writes Elephant's 32-byte sector key of sector k to skey: the
// sector's byte offset under the sector key's key, then the same with its
// last byte 0x80.
func (c *sectorCipher) sectorKey(skey []byte, k uint64) {
	var e [16]byte
	binary.LittleEndian.PutUint64(e[:], k*uint64(c.size))
	c.tweak.Encrypt(skey[:16], e[:])
	e[15] = 0x80
	c.tweak.Encrypt(skey[16:], e[:])
	clear(e[:])
}

// elephantDecrypt undoes the diffusers and the sector key on d, a sector
// that CBC has decrypted; words is scratch of d's length in words.
func elephantDecrypt(d []byte, words []uint32, skey []byte) {
	loadWords(words, d)
	diffuserBDecrypt(words)
	diffuserADecrypt(words)
	storeWords(d, words)
	for j := 0; j < len(d); j += 32 {
		subtle.XORBytes(d[j:j+32], d[j:j+32], skey)
	}
}

// cbcMode returns m set to the IV (crypto/cipher's CBC modes have SetIV),
// or a new mode.
func cbcMode(m cipher.BlockMode, b cipher.Block, iv []byte, enc bool) cipher.BlockMode {
	if r, ok := m.(interface{ SetIV([]byte) }); ok {
		r.SetIV(iv)
		return m
	}
	if enc {
		return cipher.NewCBCEncrypter(b, iv)
	}
	return cipher.NewCBCDecrypter(b, iv)
}
