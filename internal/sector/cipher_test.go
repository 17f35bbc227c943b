package sector

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fastxts/xts/camellia"
	"github.com/fastxts/xts/internal/sector/ivmodel"
	"github.com/fastxts/xts/serpent"
	"github.com/fastxts/xts/twofish"
	xxts "golang.org/x/crypto/xts"
)

// refBlocks are the block ciphers of the reference, by spec name.
var refBlocks = map[string]func([]byte) (cipher.Block, error){
	"aes": aes.NewCipher, "serpent": serpent.NewCipher, "twofish": twofish.NewCipher, "camellia": camellia.NewCipher,
}

// reference encrypts or decrypts sector by sector with the block cipher's
// package, crypto/cipher's CBC and golang.org/x/crypto/xts, under the IVs
// of ivmodel.IV.
func reference(t *testing.T, spec string, key []byte, n Numbering, k uint64, src []byte, encrypt bool) []byte {
	t.Helper()
	out := make([]byte, len(src))
	ss := n.SectorSize
	newBlock := refBlocks[strings.SplitN(spec, "-", 2)[0]]
	if newBlock == nil {
		t.Fatalf("reference: no block cipher for %s", spec)
	}
	x, _ := xxts.NewCipher(newBlock, key)
	b, _ := newBlock(key[:min(len(key), 32)])
	salt := sha256.Sum256(key)
	essiv, _ := newBlock(salt[:])
	for j := 0; j*ss < len(src); j++ {
		iv := ivmodel.IV(n.Offset, k+uint64(j), ss, n.LargeIV, strings.HasSuffix(spec, "-plain"))
		d, s := out[j*ss:(j+1)*ss], src[j*ss:(j+1)*ss]
		if strings.Contains(spec, "-xts-") {
			c := x
			if encrypt {
				c.Encrypt(d, s, iv)
			} else {
				c.Decrypt(d, s, iv)
			}
			continue
		}
		var ivb [16]byte
		binary.LittleEndian.PutUint64(ivb[:], iv)
		if strings.HasSuffix(spec, "essiv:sha256") {
			essiv.Encrypt(ivb[:], ivb[:])
		}
		if encrypt {
			cipher.NewCBCEncrypter(b, ivb[:]).CryptBlocks(d, s)
		} else {
			cipher.NewCBCDecrypter(b, ivb[:]).CryptBlocks(d, s)
		}
	}
	return out
}

// testSpecs are every supported spec: each cipher with each mode and IV.
func testSpecs() []string {
	var specs []string
	for _, c := range []string{"aes", "serpent", "twofish", "camellia"} {
		for _, m := range []string{"xts-plain64", "xts-plain", "cbc-essiv:sha256", "cbc-plain64", "cbc-plain"} {
			specs = append(specs, c+"-"+m)
		}
	}
	return specs
}

// TestCipherMatchesReference: every spec, sector size and numbering, near
// the IV wraps, serial and across cores (a buffer above 1 MiB, with AES
// only: the split over the cores does not depend on the cipher), in place
// and out of place, against the per-sector reference.
func TestCipherMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const two32 = uint64(1) << 32
	for _, spec := range testSpecs() {
		keyLen := 64
		if strings.Contains(spec, "cbc") {
			keyLen = 32
		}
		key := make([]byte, keyLen)
		for i := range key {
			key[i] = byte(rng.Uint32())
		}
		for _, ss := range []int{512, 4096} {
			for _, large := range []bool{false, true} {
				for _, size := range []int{3 * ss, 1<<20 + 2*ss} {
					for i, c := range []struct{ off, k uint64 }{{(two32 - 40) * 8, 1}, {0, 0}, {-uint64(ss/512) * 3, 0}, {two32*8 - 16, 2}} {
						if size > 3*ss && i > 0 {
							continue // one call across the cores per case is enough
						}
						if size > 3*ss && !strings.HasPrefix(spec, "aes-") {
							continue // the calls across the cores are the same code for every cipher
						}
						n := Numbering{SectorSize: ss, LargeIV: large, Offset: c.off}
						name := fmt.Sprintf("%s/%d/large=%v/size=%d/off=%d/k=%d", spec, ss, large, size, c.off, c.k)
						for _, serial := range []bool{false, true} {
							opts := []Option{}
							if serial {
								opts = append(opts, Serial)
							}
							ci, err := New(spec, key, n, opts...)
							if err != nil {
								t.Fatalf("%s: %v", name, err)
							}
							src := make([]byte, size)
							for i := range src {
								src[i] = byte(rng.Uint32())
							}
							for _, encrypt := range []bool{true, false} {
								want := reference(t, spec, key, n, c.k, src, encrypt)
								got := make([]byte, size)
								inPlace := bytes.Clone(src)
								if encrypt {
									ci.Encrypt(got, src, c.k)
									ci.Encrypt(inPlace, inPlace, c.k)
								} else {
									ci.Decrypt(got, src, c.k)
									ci.Decrypt(inPlace, inPlace, c.k)
								}
								if !bytes.Equal(got, want) || !bytes.Equal(inPlace, want) {
									t.Fatalf("%s serial=%v encrypt=%v: differs from the per-sector reference", name, serial, encrypt)
								}
							}
						}
					}
				}
			}
		}
	}
}

// TestCipherWith: a Cipher made by With numbers sectors by its own
// numbering under the same key, and Wipe on the original stops both.
func TestCipherWith(t *testing.T) {
	key := bytes.Repeat([]byte{7}, 64) // equal halves, as LUKS allows
	c, err := NewLUKS("aes-xts-plain", key, 512, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := Numbering{SectorSize: 4096, Offset: 1<<32 - 16}
	w := c.With(n)
	if w.Numbering() != (Numbering{SectorSize: 4096, Offset: 1<<32 - 16, Plain32: true}) || w.SectorSize() != 4096 {
		t.Fatalf("With gave %+v", w.Numbering())
	}
	src := bytes.Repeat([]byte{1, 2, 3}, 4*4096/3+1)[:4*4096]
	got := make([]byte, len(src))
	w.Encrypt(got, src, 0)
	n.Plain32 = true
	if want := reference(t, "aes-xts-plain", key, n, 0, src, true); !bytes.Equal(got, want) {
		t.Fatal("With's numbering differs from the reference")
	}
	c.Wipe()
	c.Wipe()
	for _, ci := range []*Cipher{c, w} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "wiped") {
					t.Errorf("after Wipe: recovered %v, want a wiped-Cipher panic", r)
				}
			}()
			ci.Encrypt(got, src, 0)
		}()
	}
}

func TestNewErrors(t *testing.T) {
	k64, k32 := make([]byte, 64), make([]byte, 32)
	k64[0] = 1
	for _, c := range []struct {
		spec string
		key  []byte
		n    Numbering
		opts []Option
		want string
	}{
		{"aes-xts-plain64", k32[:16], Numbering{SectorSize: 512}, nil, "128-bit key for aes-xts-plain64"},
		{"aes-cbc-plain64", k64, Numbering{SectorSize: 512}, nil, "512-bit key for aes-cbc-plain64"},
		{"aes-xts-plain64", k64, Numbering{SectorSize: 8192}, nil, "8192-byte sectors"},
		{"blowfish-xts-plain64", k64, Numbering{SectorSize: 512}, nil, "cipher blowfish in \"blowfish-xts-plain64\" (aes, serpent, twofish and camellia are supported)"},
		{"serpent-xts-plain64", k32[:16], Numbering{SectorSize: 512}, nil, "128-bit key for serpent-xts-plain64"},
		{"camellia-cbc-plain64", k64, Numbering{SectorSize: 512}, nil, "512-bit key for camellia-cbc-plain64"},
		{"twofish-xts-plain64", make([]byte, 64), Numbering{SectorSize: 512}, nil, "equal"},
		{"twofish-xts-plain64", make([]byte, 64), Numbering{SectorSize: 512}, []Option{EqualKeyHalves}, ""},
		{"aes-xts-plain64", make([]byte, 64), Numbering{SectorSize: 512}, nil, "equal"},
		{"aes-xts-plain64", make([]byte, 64), Numbering{SectorSize: 512}, []Option{EqualKeyHalves}, ""},
	} {
		_, err := New(c.spec, c.key, c.n, c.opts...)
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("New(%s, %d-byte key, %+v): %v, want %q", c.spec, len(c.key), c.n, err, c.want)
		}
	}
}

func TestCipherMisuse(t *testing.T) {
	c, err := New("aes-cbc-plain64", make([]byte, 16), Numbering{SectorSize: 512})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []func(){
		func() { c.Encrypt(make([]byte, 500), make([]byte, 500), 0) },
		func() { c.Decrypt(make([]byte, 512), make([]byte, 1024), 0) },
		func() { c.With(Numbering{SectorSize: 512, LargeIV: true}) },
		func() { c.With(Numbering{SectorSize: 100}) },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.HasPrefix(fmt.Sprint(r), "sector: ") {
					t.Errorf("recovered %v, want a sector: panic", r)
				}
			}()
			f()
		}()
	}
}
