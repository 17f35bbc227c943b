package luks_test

import (
	"fmt"
	"log"
	"os"

	"github.com/fastxts/xts/luks"
)

// cheap is a keyslot KDF for examples: fast, and far too weak for real use.
var cheap = luks.KDFOptions{Type: "pbkdf2", Iterations: 1000}

// exampleImage makes a LUKS2 image file with a keyslot for each
// passphrase (ids 0, 1, ...) and returns it open, with its header.
func exampleImage(name string, passphrases ...string) (*os.File, *luks.Header) {
	f, err := os.CreateTemp("", name)
	if err != nil {
		log.Fatal(err)
	}
	os.Remove(f.Name()) // gone when closed
	h, key, err := luks.Create(f, []byte(passphrases[0]), &luks.CreateOptions{KDF: cheap})
	if err != nil {
		log.Fatal(err)
	}
	defer clear(key)
	for _, p := range passphrases[1:] {
		if _, err := h.AddKey(f, key, []byte(p), luks.AnyKeyslot, cheap); err != nil {
			log.Fatal(err)
		}
	}
	return f, h
}

// opens reports the keyslot passphrase opens, or the error.
func opens(h *luks.Header, f *os.File, passphrase string) string {
	key, id, err := h.Unlock(f, []byte(passphrase), luks.AnyKeyslot)
	clear(key)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprint("keyslot ", id)
}

func ExampleHeader_KillSlot() {
	f, h := exampleImage("killslot", "first", "second")
	defer f.Close()
	if err := h.KillSlot(f, 1); err != nil {
		log.Fatal(err)
	}
	fmt.Println("second:", opens(h, f, "second"))
	fmt.Println("first:", opens(h, f, "first"))
	fmt.Println("again:", h.KillSlot(f, 1))
	// Output:
	// second: luks: no key available with this passphrase
	// first: keyslot 0
	// again: luks: keyslot 1 is not active
}

func ExampleHeader_RemoveKey() {
	f, h := exampleImage("removekey", "first", "second")
	defer f.Close()
	id, err := h.RemoveKey(f, []byte("first"))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("removed keyslot", id)
	fmt.Println("first:", opens(h, f, "first"))
	fmt.Println("second:", opens(h, f, "second"))
	// Output:
	// removed keyslot 0
	// first: luks: no key available with this passphrase
	// second: keyslot 1
}

func ExampleHeader_ChangeKey() {
	f, h := exampleImage("changekey", "first", "second")
	defer f.Close()
	id, err := h.ChangeKey(f, []byte("second"), []byte("third"), luks.AnyKeyslot, cheap)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("changed keyslot", id)
	fmt.Println("second:", opens(h, f, "second"))
	fmt.Println("third:", opens(h, f, "third"))
	// Output:
	// changed keyslot 1
	// second: luks: no key available with this passphrase
	// third: keyslot 1
}

func ExampleHeader_Erase() {
	f, h := exampleImage("erase", "first", "second")
	defer f.Close()
	if err := h.Erase(f); err != nil {
		log.Fatal(err)
	}
	fmt.Println("keyslots left:", len(h.Keyslots))
	fmt.Println("first:", opens(h, f, "first"))
	// Output:
	// keyslots left: 0
	// first: luks: no key available with this passphrase
}
