package luks_test

import (
	"context"
	"crypto/subtle"
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

// Adding a passphrase: unlock with one the image has, then AddKey. The
// caller's Header is updated in place to the header as written.
func ExampleHeader_AddKey() {
	path := filepath.Join(os.TempDir(), "luks-example-addkey.img")
	defer os.Remove(path)
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	cheap := luks.KDFOptions{Type: "pbkdf2", Iterations: 1000}
	if _, key, err := luks.Create(f, []byte("first"), &luks.CreateOptions{KDF: cheap}); err != nil {
		log.Fatal(err)
	} else {
		clear(key)
	}

	h, err := luks.ReadHeader(f)
	if err != nil {
		log.Fatal(err)
	}
	key, _, err := h.Unlock(f, []byte("first"), luks.AnyKeyslot)
	if err != nil {
		log.Fatal(err)
	}
	defer clear(key)
	seqid := h.Seqid
	id, err := h.AddKey(f, key, []byte("second"), luks.AnyKeyslot, cheap)
	if err != nil {
		log.Fatal(err)
	}
	_, opened, err := h.Unlock(f, []byte("second"), luks.AnyKeyslot)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("keyslot %d added and opened: %d; sequence id %d -> %d\n", id, opened, seqid, h.Seqid)
	// Output: keyslot 1 added and opened: 1; sequence id 1 -> 2
}

// NewVolume with the size DeviceSize finds: the way to a Volume when the
// key is known already (here, one Create returned).
func ExampleDeviceSize() {
	path := filepath.Join(os.TempDir(), "luks-example-size.img")
	defer os.Remove(path)
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	h, key, err := luks.Create(f, []byte("p"), &luks.CreateOptions{KDF: luks.KDFOptions{Type: "pbkdf2", Iterations: 1000}})
	if err != nil {
		log.Fatal(err)
	}
	defer clear(key)
	if err := f.Truncate(int64(h.Segments[0].Offset) + 64<<10); err != nil {
		log.Fatal(err)
	}
	size, err := luks.DeviceSize(f)
	if err != nil {
		log.Fatal(err)
	}
	v, err := luks.NewVolume(h, key, f, size)
	if err != nil {
		log.Fatal(err)
	}
	defer v.Close()
	fmt.Printf("device %d bytes; data segment at %d, %d bytes\n", size, h.Segments[0].Offset, v.Size())
	// Output: device 16842752 bytes; data segment at 16777216, 65536 bytes
}

// The sector size Create will use, to check a plaintext's length before
// encrypting it.
func ExampleCreateOptions_DataSectorSize() {
	for _, o := range []luks.CreateOptions{{}, {Version: 1}, {SectorSize: 512}} {
		fmt.Println(o.DataSectorSize())
	}
	// Output:
	// 4096
	// 512
	// 512
}

// Rotating the volume key of an image (cryptsetup reencrypt): the data
// is decrypted with the old key and encrypted with a new one, hotzone by
// hotzone, with checksum resilience: a crash or a cancelled context
// leaves an image that ResumeReencrypt (or cryptsetup reencrypt
// --resume-only, after cryptsetup repair) finishes.
func ExampleReencrypt() {
	path := filepath.Join(os.TempDir(), "luks-example-reencrypt.img")
	defer os.Remove(path)
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	cheap := luks.KDFOptions{Type: "pbkdf2", Iterations: 1000}
	h, oldKey, err := luks.Create(f, []byte("my passphrase"), &luks.CreateOptions{KDF: cheap})
	if err != nil {
		log.Fatal(err)
	}
	if err := f.Truncate(int64(h.Segments[0].Offset) + 1<<20); err != nil {
		log.Fatal(err)
	}
	v, err := luks.Open(f, []byte("my passphrase"), nil)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := v.WriteAt([]byte("kept across the rotation"), 5000); err != nil {
		log.Fatal(err)
	}
	v.Close()

	var calls int
	o := luks.ReencryptOptions{
		Keyslot:     luks.AnyKeyslot, // the one active keyslot
		KDF:         cheap,           // for the new keyslot
		HotzoneSize: 256 << 10,
		Progress:    func(done, total uint64) { calls++ },
	}
	if err := luks.Reencrypt(context.Background(), f, f, []byte("my passphrase"), o); err != nil {
		log.Fatal(err)
	}

	v, err = luks.Open(f, []byte("my passphrase"), nil)
	if err != nil {
		log.Fatal(err)
	}
	defer v.Close()
	buf := make([]byte, 24)
	if _, err := v.ReadAt(buf, 5000); err != nil {
		log.Fatal(err)
	}
	newKey, _, err := v.Header().Unlock(f, []byte("my passphrase"), luks.AnyKeyslot)
	if err != nil {
		log.Fatal(err)
	}
	rotated := subtle.ConstantTimeCompare(newKey, oldKey) == 0
	clear(newKey)
	clear(oldKey)
	_, inProgress := v.Header().Reencryption()
	fmt.Printf("%s; %d hotzones; new key: %v; still in progress: %v\n", buf, calls, rotated, inProgress)
	// Output: kept across the rotation; 4 hotzones; new key: true; still in progress: false
}
