package luks_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/fastxts/xts/luks"
)

// A LUKS1 image with Serpent in XTS and whirlpool keyslots, as old
// cryptsetup made them (luksFormat --type luks1 -c serpent-xts-plain64
// --hash whirlpool); Twofish and Camellia go the same way.
func ExampleCreate_serpent() {
	dir, err := os.MkdirTemp("", "luks-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	f, err := os.Create(filepath.Join(dir, "serpent.img"))
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	h, key, err := luks.Create(f, []byte("my passphrase"), &luks.CreateOptions{
		Version: 1, Cipher: "serpent-xts-plain64", KeyBits: 512,
		KDF: luks.KDFOptions{Type: "pbkdf2", Hash: "whirlpool", Iterations: 1000}, // cheap, for the example
	})
	if err != nil {
		log.Fatal(err)
	}
	clear(key)
	if err := f.Truncate(int64(h.Segments[0].Offset) + 64<<10); err != nil {
		log.Fatal(err)
	}
	v, err := luks.Open(f, []byte("my passphrase"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer v.Close()
	if _, err := v.WriteAt([]byte("hello, Serpent"), 0); err != nil {
		log.Fatal(err)
	}
	buf := make([]byte, 14)
	if _, err := v.ReadAt(buf, 0); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %s-%s, %s, keyslot area %s\n", buf, h.CipherName, h.CipherMode, h.HashSpec, h.Keyslots[0].Area.Encryption)
	// Output: hello, Serpent: serpent-xts-plain64, whirlpool, keyslot area serpent-xts-plain64
}
