package veracrypt

import (
	"crypto/cipher"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"slices"
	"strings"
)

// TrueCrypt 1.0 to 4.0 encrypted volumes and headers in CBC mode, with an
// IV and a "whitening" value per sector. The key (header key or master
// key) is a 32-byte IV seed, then the ciphers' keys one after another in
// the order they encrypt (the last-named first).
//
// A header's 448 encrypted bytes: XOR every 8 bytes with bytes 8..15 of
// the seed (the whitening), then CBC-decrypt with bytes 0..15 (0..7 for a
// 64-bit block cipher) of the seed as the IV.
//
// A data sector (512 bytes, numbered from the volume's header: the data
// area's first sector is 1): the seed's first block-size bytes, each
// 64-bit half XORed with the sector number (little-endian), are the IV;
// the 16 bytes after them, XORed the same way and read as four 32-bit
// words w0..w3, give the 8-byte whitening CRC32(w0)^CRC32(w3) ‖
// CRC32(w1)^CRC32(w2) (little-endian), XORed onto every 8 bytes of the
// encrypted sector. This is the "tcw" IV mode of the kernel's dm-crypt.
//
// Cascades: in "outer CBC" the whole chain is one 128-bit block cipher in
// CBC (its last-named cipher encrypting first); in "inner CBC" (the
// chains with Blowfish, whose block is 64-bit) each cipher runs its own
// CBC pass, with the IV and whitening of its block size, over the sector,
// the last-named first.
//
// What cryptsetup's images check: every chain's header (all 18 images),
// and the data of AES, Twofish, CAST5 and Triple DES volumes, hidden
// ones too. Those images keep no data for Blowfish and the cascades
// (cryptsetup cannot map them), so their data path follows the same
// scheme unchecked by an outside oracle.

// cbcChains are the ciphers and cascades of TrueCrypt's CBC volumes, in
// TrueCrypt's naming (lower case, Triple DES as cryptsetup's "des3_ede").
var cbcChains = []string{
	"aes", "serpent", "twofish", "blowfish", "cast5", "des3_ede",
	"aes-twofish", "aes-twofish-serpent", "serpent-aes", "serpent-twofish-aes", "twofish-serpent",
	"aes-blowfish", "aes-blowfish-serpent",
}

// cbcInner reports a chain in inner CBC (the chains with Blowfish).
func cbcInner(name string) bool {
	return strings.Contains(name, "-") && strings.Contains(name, "blowfish")
}

// cbcKeySize is the key size of a CBC chain: the 32-byte IV seed, then
// each cipher's key.
func cbcKeySize(name string) int {
	n := 32
	for _, c := range strings.Split(name, "-") {
		n += legacyCiphers[c].keySize
	}
	return n
}

// isCBCChain reports whether name (in any case) is a CBC chain of
// TrueCrypt, and its canonical name.
func isCBCChain(name string) (string, bool) {
	name = strings.ToLower(name)
	return name, slices.Contains(cbcChains, name)
}

// cbcChain is a cipher chain in TrueCrypt's CBC mode. enc lists the
// ciphers in the order they encrypt; st the CBC passes, in that order
// too.
type cbcChain struct {
	enc   []cipher.Block
	st    []cbcStage
	inner bool
	seed  [32]byte
}

func newCBCChain(name string, key []byte) (*cbcChain, error) {
	if _, ok := isCBCChain(name); !ok {
		return nil, fmt.Errorf("veracrypt: %q is not a TrueCrypt CBC cipher chain", name)
	}
	if len(key) < cbcKeySize(name) {
		return nil, fmt.Errorf("veracrypt: CBC %s needs a %d-byte key, have %d", name, cbcKeySize(name), len(key))
	}
	c := &cbcChain{inner: cbcInner(name)}
	copy(c.seed[:], key)
	names := strings.Split(name, "-")
	off := 32
	for i := len(names) - 1; i >= 0; i-- { // the last-named encrypts first
		lc := legacyCiphers[names[i]]
		b, err := lc.new(key[off : off+lc.keySize])
		if err != nil {
			return nil, fmt.Errorf("veracrypt: %s: %w", names[i], err)
		}
		c.enc = append(c.enc, b)
		off += lc.keySize
	}
	if c.inner {
		for _, b := range c.enc {
			c.st = append(c.st, cbcStage{[]cipher.Block{b}, b.BlockSize()})
		}
		return c, nil
	}
	for _, b := range c.enc {
		if b.BlockSize() != c.enc[0].BlockSize() {
			return nil, fmt.Errorf("veracrypt: CBC %s mixes block sizes", name)
		}
	}
	c.st = []cbcStage{{c.enc, c.enc[0].BlockSize()}}
	return c, nil
}

// wipe clears the seed and drops the ciphers (the standard library's
// and x/crypto's block ciphers keep their key schedules out of reach).
func (c *cbcChain) wipe() {
	c.enc, c.st = nil, nil
	clear(c.seed[:])
}

// cbcStage is one CBC pass: its block cipher(s), applied in order to
// encrypt, all of block size bs.
type cbcStage struct {
	enc []cipher.Block
	bs  int
}

// decryptCBC undoes one stage over buf (a multiple of bs bytes): the
// whitening w (8 bytes) off every 8 bytes, then CBC with iv.
func (s cbcStage) decrypt(buf, iv, w []byte) {
	whiten(buf, w)
	if len(s.enc) == 1 {
		// crypto/cipher's CBC: AES's pipelined decryption.
		cipher.NewCBCDecrypter(s.enc[0], iv[:s.bs]).CryptBlocks(buf, buf)
		return
	}
	var prev, cur [16]byte
	copy(prev[:], iv[:s.bs])
	n := len(s.enc)
	for off := 0; off+s.bs <= len(buf); off += s.bs {
		blk := buf[off : off+s.bs]
		copy(cur[:], blk)
		for j := range n {
			s.enc[n-1-j].Decrypt(blk, blk)
		}
		for k := range blk {
			blk[k] ^= prev[k]
		}
		prev = cur
	}
}

// encrypt is the inverse of decrypt.
func (s cbcStage) encrypt(buf, iv, w []byte) {
	prev := iv[:s.bs]
	for off := 0; off+s.bs <= len(buf); off += s.bs {
		blk := buf[off : off+s.bs]
		for k := range blk {
			blk[k] ^= prev[k]
		}
		for _, b := range s.enc {
			b.Encrypt(blk, blk)
		}
		prev = blk
	}
	// The chaining above reads each block before it is whitened.
	whiten(buf, w)
}

// whiten XORs the 8 bytes of w onto every 8 bytes of buf (a multiple of
// 8 bytes long).
func whiten(buf, w []byte) {
	x := binary.LittleEndian.Uint64(w)
	for i := 0; i+8 <= len(buf); i += 8 {
		binary.LittleEndian.PutUint64(buf[i:], binary.LittleEndian.Uint64(buf[i:])^x)
	}
}

// header decrypts (or encrypts) the 448 encrypted bytes of a header.
func (c *cbcChain) header(dst, src []byte, encrypt bool) {
	copy(dst, src)
	st := c.st
	iv, w := c.seed[:16], c.seed[8:16]
	if encrypt {
		for _, s := range st {
			s.encrypt(dst, iv, w)
		}
		return
	}
	for i := len(st) - 1; i >= 0; i-- {
		st[i].decrypt(dst, iv, w)
	}
}

// sectorIV returns the IV (bs bytes) and the whitening (8 bytes) of the
// 512-byte sector numbered sector, for a block size of bs.
func (c *cbcChain) sectorIV(sector uint64, bs int) (iv [16]byte, w [8]byte) {
	var x [32]byte
	copy(x[:], c.seed[:])
	for i := 0; i < bs+16; i += 8 {
		v := binary.LittleEndian.Uint64(x[i:]) ^ sector
		binary.LittleEndian.PutUint64(x[i:], v)
	}
	copy(iv[:], x[:bs])
	ws := x[bs : bs+16]
	crc := func(i int) uint32 { return crc32.ChecksumIEEE(ws[4*i : 4*i+4]) }
	binary.LittleEndian.PutUint32(w[:], crc(0)^crc(3))
	binary.LittleEndian.PutUint32(w[4:], crc(1)^crc(2))
	return iv, w
}

// crypt runs the chain over whole 512-byte sectors of src, the first
// numbered sector.
func (c *cbcChain) crypt(dst, src []byte, sector uint64, encrypt bool) {
	st := c.st
	for off := 0; off+512 <= len(src); off, sector = off+512, sector+1 {
		d := dst[off : off+512]
		copy(d, src[off:off+512])
		if encrypt {
			for _, s := range st {
				iv, w := c.sectorIV(sector, s.bs)
				s.encrypt(d, iv[:], w[:])
			}
			continue
		}
		for i := len(st) - 1; i >= 0; i-- {
			iv, w := c.sectorIV(sector, st[i].bs)
			st[i].decrypt(d, iv[:], w[:])
		}
	}
}

// cbcCandidates returns the CBC chains that Open tries for a cipher name
// given to it ("" tries every one).
func cbcCandidates(cipherName string) []string {
	if cipherName == "" {
		return cbcChains
	}
	if cn, ok := isCBCChain(cipherName); ok {
		return []string{cn}
	}
	return nil
}

// cbcHeader decrypts a header's 448 encrypted bytes from src into dst
// with the CBC chain name under the header key, reporting whether the
// key fits the chain.
func cbcHeader(name string, key, dst, src []byte) bool {
	c, err := newCBCChain(name, key)
	if err != nil {
		return false
	}
	c.header(dst, src, false)
	c.wipe()
	return true
}

// cbcVolumeSectors returns the sectors of a CBC volume's data area. The
// IVs number a volume's sectors from its header's: the data area's first
// sector is 1, in a hidden volume too (checked on cryptsetup's images).
func cbcVolumeSectors(h *Header) (*sectors, error) {
	c, err := newCBCChain(h.Cipher, h.KeyArea[:h.KeySize])
	if err != nil {
		return nil, err
	}
	return &sectors{c: c, first: 1, ss: int(h.SectorSize)}, nil
}

// Cryptsetup returns the header's cipher chain, cipher mode and key size
// in bits as cryptsetup's tcryptDump prints them. For XTS and LRW: the
// chain's cryptsetup name (CryptsetupChain), "xts-plain64" or
// "lrw-benbi", 8*KeySize. For TrueCrypt 1.0-4.0's CBC, cryptsetup names
// the chain by its keys' order (the reverse of TrueCrypt's name: "aes-
// twofish" is its "twofish-aes") and Blowfish "blowfish_le"; the mode is
// "cbc-tcw" for AES, Serpent, Twofish, CAST5 and Triple DES (dm-crypt's
// TCW IV), "cbci-tcrypt" for the outer-CBC cascades and "cbc-tcrypt" for
// Blowfish and its cascades; the key is the ciphers' keys, an IV seed of
// the first cipher's block size and a 16-byte whitening seed.
func (h *Header) Cryptsetup() (chain, mode string, keyBits int) {
	switch h.Mode {
	case "lrw":
		return CryptsetupChain(h.Cipher), "lrw-benbi", 8 * h.KeySize
	case "cbc":
		names := strings.Split(h.Cipher, "-")
		slices.Reverse(names)
		keys, bs := 0, 8
		for i, n := range names {
			keys += legacyCiphers[n].keySize
			switch n {
			case "blowfish":
				names[i] = "blowfish_le"
			case "aes", "serpent", "twofish":
				bs = 16 // the IV seed of a chain with a 128-bit cipher
			}
		}
		switch {
		case strings.Contains(h.Cipher, "blowfish"):
			mode = "cbc-tcrypt"
		case len(names) > 1:
			mode = "cbci-tcrypt"
		default:
			mode = "cbc-tcw"
		}
		return strings.Join(names, "-"), mode, 8 * (keys + bs + 16)
	}
	return CryptsetupChain(h.Cipher), "xts-plain64", 8 * h.KeySize
}

// cbcCreateRefused returns the error of Create asked for a chain that
// only TrueCrypt's CBC mode has (Blowfish, CAST5, Triple DES), or nil.
func cbcCreateRefused(name string) error {
	if cn, ok := isCBCChain(name); ok {
		return fmt.Errorf("veracrypt: %s exists only in TrueCrypt 1.0-4.0's CBC mode, which is opened read-only here: volumes are created in XTS mode", cn)
	}
	return nil
}
