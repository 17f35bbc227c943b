package fvault2

import (
	"bytes"
	"compress/zlib"
	"crypto/aes"
	"crypto/pbkdf2"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"strings"

	"golang.org/x/crypto/xts"
)

// A synthetic Core Storage volume, built from the layout this package
// documents, independently of its parsers: small enough to fuzz, and
// with the variations the test image lacks (several passphrases, a
// compressed or continued encryption context, stale copies).

const synthBlock = 4096

// fataler is what the builder needs of a testing.TB; panicker is one for
// examples.
type fataler interface {
	Helper()
	Fatal(args ...any)
	Fatalf(format string, args ...any)
}

type panicker struct{}

func (panicker) Helper()                           {}
func (panicker) Fatal(args ...any)                 { panic(fmt.Sprint(args...)) }
func (panicker) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

// synthImage returns a synthetic volume whose password is "secret".
func synthImage() []byte {
	_, img := newSynth().build(panicker{})
	return img
}

type synth struct {
	passwords  []string // one passphrase (crypto user) each
	iterations int
	compress   bool // zlib the 0x0019 XML
	split      int  // bytes of the 0x0019 XML kept in its block; the rest in 0x0024 blocks
	stale      bool // add an older 0x001a copy with another size
	lvBlocks   int
	conversion string

	vmk                         [16]byte
	pvUUID, group, family, lvID UUID
	keyData                     [16]byte
	lvOffset, lvSize, encBlock  int64
	plain                       []byte // the logical volume's plaintext
	encUnits                    int
	passphraseSalt              [][]byte
}

func newSynth() *synth {
	s := &synth{passwords: []string{"secret"}, iterations: 10, lvBlocks: 8, conversion: "Complete"}
	for i := range 16 {
		s.vmk[i] = byte(0x10 + i)
		s.pvUUID[i] = byte(0x20 + i)
		s.group[i] = byte(0x30 + i)
		s.family[i] = byte(0x40 + i)
		s.lvID[i] = byte(0x50 + i)
		s.keyData[i] = byte(0x60 + i)
	}
	return s
}

func synthChecksum(b []byte) {
	binary.LittleEndian.PutUint32(b[4:], 0xffffffff)
	binary.LittleEndian.PutUint32(b[0:], crc32Castagnoli(b[8:]))
}

// crc32Castagnoli is CRC-32C with the initial value 0xffffffff and no
// final inversion, written out bit by bit (the tests' own checksum).
func crc32Castagnoli(p []byte) uint32 {
	crc := uint32(0xffffffff)
	for _, b := range p {
		crc ^= uint32(b)
		for range 8 {
			if crc&1 != 0 {
				crc = crc>>1 ^ 0x82f63b78
			} else {
				crc >>= 1
			}
		}
	}
	return crc
}

// mdHeader fills a metadata block's 64-byte header.
func mdHeader(b []byte, typ uint16, tx, object, number uint64) {
	le := binary.LittleEndian
	le.PutUint16(b[8:], 1)
	le.PutUint16(b[10:], typ)
	le.PutUint64(b[16:], tx)
	le.PutUint64(b[24:], object)
	le.PutUint64(b[32:], number)
	le.PutUint32(b[48:], uint32(len(b)))
}

func (s *synth) contextXML(t fataler) string {
	le := binary.LittleEndian
	kek := make([]byte, 16)
	for i := range kek {
		kek[i] = byte(0x70 + i)
	}
	var users strings.Builder
	id := 10
	for i, pw := range s.passwords {
		salt := make([]byte, 16)
		for j := range salt {
			salt[j] = byte(i*16 + j)
		}
		ak, err := pbkdf2.Key(sha256.New, pw, salt, s.iterations, 16)
		if err != nil {
			t.Fatal(err)
		}
		st := make([]byte, 284)
		le.PutUint32(st[0:], 3)
		le.PutUint32(st[4:], 16)
		copy(st[8:], salt)
		le.PutUint32(st[24:], 16)
		le.PutUint32(st[28:], 24)
		copy(st[32:], aesWrap(ak, kek))
		le.PutUint32(st[168:], uint32(s.iterations))
		le.PutUint32(st[172:], 1)
		fmt.Fprintf(&users, `<dict ID="%d"><key>PassphraseWrappedKEKStruct</key><data ID="%d">%s</data>`+
			`<key>UserIdent</key><string ID="%d">0000000%d-0000-0000-0000-000000000000</string>`+
			`<key>KeyEncryptingKeyIdent</key><string ID="%d">6614421E-7BCD-49EF-AF17-78D28047CACB</string>`+
			`<key>PassphraseHint</key><reference IDREF="3"/></dict>`,
			id, id+1, base64.StdEncoding.EncodeToString(st), id+2, i, id+3)
		id += 4
		s.passphraseSalt = append(s.passphraseSalt, salt)
	}
	vk := make([]byte, 256)
	le.PutUint32(vk[0:], 2)
	le.PutUint32(vk[4:], 24)
	copy(vk[8:], aesWrap(kek, s.vmk[:]))
	return `<dict ID="0"><key>com.apple.corestorage.lvf.encryption.context</key><dict ID="1">` +
		`<key>Empty</key><string ID="3"></string>` +
		`<key>CryptoUsers</key><array ID="2">` + users.String() + `</array>` +
		`<key>WrappedVolumeKeys</key><array ID="4"><dict ID="5"><key>BlockAlgorithm</key><string ID="6">None</string>` +
		`<key>KEKWrappedVolumeKeyStruct</key><data ID="7"></data></dict>` +
		`<dict ID="8"><key>BlockAlgorithm</key><string ID="9">AES-XTS</string><key>KeyEncryptingKeyIdent</key><string>6614421E-7BCD-49EF-AF17-78D28047CACB</string>` +
		`<key>KEKWrappedVolumeKeyStruct</key><data>` + base64.StdEncoding.EncodeToString(vk) + "\n</data></dict></array>" +
		`<key>ConversionInfo</key><dict><key>ConversionStatus</key><string>` + s.conversion + `</string></dict></dict>` +
		`<key>com.apple.corestorage.lvf.uuid</key><string>` + strings.ToUpper(s.family.String()) + `</string>` +
		`<key>com.apple.corestorage.lvf.sequence</key><integer size="32">0x2</integer></dict>` + "\x00"
}

func (s *synth) lvXML(size int64, seq int) string {
	return fmt.Sprintf(`<dict ID="0"><key>com.apple.corestorage.lv.familyUUID</key><string ID="1">%s</string>`+
		`<key>com.apple.corestorage.lv.sequence</key><integer size="32" ID="2">0x%x</integer>`+
		`<key>com.apple.corestorage.lv.name</key><string ID="3">Synthetic</string>`+
		`<key>com.apple.corestorage.lv.uuid</key><string ID="4">%s</string>`+
		`<key>com.apple.corestorage.lv.size</key><integer size="64" ID="5">0x%x</integer></dict>`,
		strings.ToUpper(s.family.String()), seq, strings.ToUpper(s.lvID.String()), size)
}

// build returns the plaintext image (the encrypted metadata and the
// logical volume not yet encrypted) and the encrypted image.
func (s *synth) build(t fataler) (plainImg, img []byte) {
	t.Helper()
	le := binary.LittleEndian
	// Encrypted metadata units: 0x0305, 0x0019, 0x001a, then continuation
	// blocks and the stale 0x001a.
	var units [][]byte
	unit := func() []byte { b := make([]byte, metadataBlockSize); units = append(units, b); return b }

	seg := unit()
	mdHeader(seg, typeSegments, 6, 8, 0)
	le.PutUint32(seg[64:], 1)

	xmlFam := []byte(s.contextXML(t))
	full := len(xmlFam)
	if s.compress {
		var z bytes.Buffer
		w := zlib.NewWriter(&z)
		w.Write(xmlFam)
		w.Close()
		xmlFam = z.Bytes()
	}
	fam := unit()
	mdHeader(fam, typeLVFamily, 6, 10, 1)
	first := len(xmlFam)
	if s.split > 0 && s.split < first {
		first = s.split
	}
	if first > metadataBlockSize-256 {
		t.Fatalf("synthetic XML of %d bytes does not fit", first)
	}
	le.PutUint32(fam[64+40:], uint32(len(xmlFam)))
	le.PutUint32(fam[64+44:], uint32(full))
	le.PutUint32(fam[64+48:], 256)
	le.PutUint32(fam[64+52:], uint32(first))
	copy(fam[256:], xmlFam[:first])
	rest := xmlFam[first:]
	obj := uint64(100)
	if len(rest) > 0 {
		le.PutUint64(fam[64+32:], obj)
	}

	lv := unit()
	mdHeader(lv, typeLV, 7, 11, 2)
	le.PutUint64(lv[64:], 10)
	le.PutUint64(lv[64+8:], 8)
	s.lvSize = int64(s.lvBlocks) * synthBlock
	x := s.lvXML(s.lvSize, 3)
	le.PutUint32(lv[64+64:], 0xb8)
	le.PutUint32(lv[64+68:], uint32(len(x)))
	copy(lv[0xb8:], x)

	for len(rest) > 0 {
		c := unit()
		n := min(len(rest), 3000)
		mdHeader(c, typeContinued, 6, obj, uint64(len(units)-1))
		obj++
		if n < len(rest) {
			le.PutUint64(c[64:], obj)
		}
		le.PutUint32(c[64+8:], uint32(n))
		copy(c[64+16:], rest[:n])
		rest = rest[n:]
	}
	if s.stale {
		old := unit()
		mdHeader(old, typeLV, 5, 11, uint64(len(units)-1))
		le.PutUint64(old[64:], 10)
		le.PutUint64(old[64+8:], 8)
		x := s.lvXML(s.lvSize-synthBlock, 2)
		le.PutUint32(old[64+64:], 0xb8)
		le.PutUint32(old[64+68:], uint32(len(x)))
		copy(old[0xb8:], x)
	}
	wiped := unit() // an "LVFwiped" block: no checksum
	copy(wiped, "LVFwiped")
	unit() // never written: zeros
	for _, u := range units[:len(units)-2] {
		synthChecksum(u)
	}
	s.encUnits = len(units)

	// Layout: PV header, disk label at block 1 (its volume group
	// descriptor 8192 bytes in), encrypted metadata at block 8, the
	// logical volume after it, one spare block at the end.
	s.encBlock = 8
	encBlocks := int64(len(units)) * metadataBlockSize / synthBlock
	lvBlock := (s.encBlock + encBlocks + 3) &^ 3
	le.PutUint64(seg[64+8+32:], uint64(lvBlock))
	le.PutUint32(seg[64+8+16:], uint32(s.lvBlocks))
	synthChecksum(seg)
	s.lvOffset = lvBlock * synthBlock
	size := s.lvOffset + s.lvSize + synthBlock
	plainImg = make([]byte, size)

	pv := plainImg[:512]
	le.PutUint16(pv[8:], 1)
	le.PutUint16(pv[10:], pvBlockType)
	le.PutUint32(pv[48:], 512)
	le.PutUint64(pv[64:], uint64(size))
	copy(pv[88:], "CS")
	le.PutUint32(pv[90:], 1)
	le.PutUint16(pv[94:], 4)
	le.PutUint32(pv[96:], synthBlock)
	le.PutUint32(pv[100:], 4*synthBlock)
	le.PutUint64(pv[104:], 1)
	le.PutUint32(pv[168:], 16)
	le.PutUint32(pv[172:], 2)
	copy(pv[176:], s.keyData[:])
	copy(pv[304:], s.pvUUID[:])
	copy(pv[320:], s.group[:])
	synthChecksum(pv)

	label := plainImg[synthBlock : synthBlock+metadataBlockSize]
	mdHeader(label, typeDiskLabel, 6, 0, 0)
	le.PutUint32(label[64+156:], metadataBlockSize)
	synthChecksum(label)
	vgd := plainImg[synthBlock+metadataBlockSize:]
	le.PutUint64(vgd[8:], uint64(encBlocks))
	le.PutUint64(vgd[32:], uint64(s.encBlock))

	for i, u := range units {
		copy(plainImg[s.encBlock*synthBlock+int64(i)*metadataBlockSize:], u)
	}
	s.plain = plainImg[s.lvOffset : s.lvOffset+s.lvSize]
	for i := range s.plain {
		s.plain[i] = byte(i*7 + i>>9)
	}

	// Encrypt, with x/crypto's XTS.
	img = bytes.Clone(plainImg)
	mk, err := xts.NewCipher(aes.NewCipher, append(append([]byte(nil), s.keyData[:]...), s.pvUUID[:]...))
	if err != nil {
		t.Fatal(err)
	}
	for i, u := range units {
		if i == len(units)-1 {
			break // zeros stay zeros
		}
		o := s.encBlock*synthBlock + int64(i)*metadataBlockSize
		mk.Encrypt(img[o:o+metadataBlockSize], u, uint64(i))
	}
	dk, err := xts.NewCipher(aes.NewCipher, s.xtsKey())
	if err != nil {
		t.Fatal(err)
	}
	for k := int64(0); k < s.lvSize/512; k++ {
		o := s.lvOffset + 512*k
		dk.Encrypt(img[o:o+512], plainImg[o:o+512], uint64(k))
	}
	return plainImg, img
}

func (s *synth) xtsKey() []byte {
	sum := sha256.Sum256(append(append([]byte(nil), s.vmk[:]...), s.family[:]...))
	return append(append([]byte(nil), s.vmk[:]...), sum[:16]...)
}
