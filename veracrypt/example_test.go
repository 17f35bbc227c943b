package veracrypt_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"time"

	"github.com/fastxts/xts/veracrypt"
)

// Create a small VeraCrypt container, write to it, and open it again.
func Example() {
	dir, err := os.MkdirTemp("", "veracrypt")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	f, err := os.Create(filepath.Join(dir, "container.hc"))
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	const size = 1 << 20
	if err := f.Truncate(size); err != nil {
		log.Fatal(err)
	}
	// PIM 1 keeps the example fast; real volumes should use the default.
	if err := veracrypt.Create(f, size, []byte("correct horse"), &veracrypt.CreateOptions{PIM: 1}); err != nil {
		log.Fatal(err)
	}
	v, err := veracrypt.Open(f, []byte("correct horse"), &veracrypt.Options{PIM: 1, PRF: "sha512"})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := v.WriteAt([]byte("hello, volume"), 4096); err != nil {
		log.Fatal(err)
	}
	v.Close()

	v, err = veracrypt.Open(f, []byte("correct horse"), &veracrypt.Options{PIM: 1, PRF: "sha512"})
	if err != nil {
		log.Fatal(err)
	}
	defer v.Close()
	buf := make([]byte, 13)
	if _, err := v.ReadAt(buf, 4096); err != nil {
		log.Fatal(err)
	}
	h := v.Header()
	fmt.Printf("%s %s %s, %d bytes at %d: %q\n", h.Magic, h.PRF, h.Cipher, v.Size(), h.EncryptedAreaStart, buf)
	// Output: VERA sha512 aes, 786432 bytes at 131072: "hello, volume"
}

// A wrong password is refused only after every key derivation has been
// tried, seconds of CPU: OpenContext bounds the wait.
func ExampleOpenContext() {
	dir, err := os.MkdirTemp("", "veracrypt")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	f, err := os.Create(filepath.Join(dir, "container.hc"))
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	const size = 1 << 20
	if err := f.Truncate(size); err != nil {
		log.Fatal(err)
	}
	if err := veracrypt.Create(f, size, []byte("correct horse"), &veracrypt.CreateOptions{PIM: 1}); err != nil {
		log.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err = veracrypt.OpenContext(ctx, f, []byte("wrong horse"), nil) // every PRF, default iterations
	fmt.Println(errors.Is(err, context.DeadlineExceeded), errors.Is(err, veracrypt.ErrPassword))
	// Output: true false
}
