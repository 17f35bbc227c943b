package luks_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/fastxts/xts/luks"
)

// Opening an image (made here with Create; any image cryptsetup makes
// opens the same way) and reading and writing its decrypted data.
func ExampleOpen() {
	path := filepath.Join(os.TempDir(), "luks-example.img")
	defer os.Remove(path)
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	// A LUKS2 image with cryptsetup's defaults, but a cheap KDF for the example.
	h, key, err := luks.Create(f, []byte("my passphrase"), &luks.CreateOptions{
		KDF: luks.KDFOptions{Type: "pbkdf2", Iterations: 1000},
	})
	if err != nil {
		log.Fatal(err)
	}
	clear(key)
	if err := f.Truncate(int64(h.Segments[0].Offset) + 1<<20); err != nil { // 1 MiB of data
		log.Fatal(err)
	}

	v, err := luks.Open(f, []byte("my passphrase"), nil)
	if err != nil {
		log.Fatal(err) // luks.ErrNoKey for a wrong passphrase
	}
	defer v.Close()
	if _, err := v.WriteAt([]byte("hello, LUKS"), 1000); err != nil {
		log.Fatal(err)
	}
	buf := make([]byte, 11)
	if _, err := v.ReadAt(buf, 1000); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s; %d bytes in %d-byte sectors, keyslot %d\n", buf, v.Size(), v.SectorSize(), v.Keyslot())
	// Output: hello, LUKS; 1048576 bytes in 4096-byte sectors, keyslot 0
}
