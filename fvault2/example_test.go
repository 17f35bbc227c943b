package fvault2

import (
	"bytes"
	"fmt"
)

func ExampleOpen() {
	// dev is the partition: an *os.File opened with os.O_RDWR for
	// writing, here a small synthetic volume in memory.
	dev := bytes.NewReader(synthImage())

	// No password is needed for the header: h.Dump(os.Stdout, name, nil)
	// prints it as cryptsetup fvault2Dump does.
	h, err := ReadHeader(dev)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("physical volume", h.PVUUID)
	fmt.Println("family", h.FamilyUUID)
	fmt.Printf("logical volume at %d, %d bytes, %s-%s\n", h.LVOffset, h.LVSize, h.Cipher, h.CipherMode)

	v, err := Open(dev, []byte("secret"), nil)
	if err != nil {
		fmt.Println(err) // ErrWrongPassword for a wrong one
		return
	}
	defer v.Close()
	buf := make([]byte, 8)
	v.ReadAt(buf, 512)
	fmt.Printf("%d bytes, %d-byte sectors, starting % x\n", v.Size(), v.SectorSize(), buf)
	// Output:
	// physical volume 20212223-2425-2627-2829-2a2b2c2d2e2f
	// family 40414243-4445-4647-4849-4a4b4c4d4e4f
	// logical volume at 81920, 32768 bytes, aes-xts-plain64
	// 32768 bytes, 512-byte sectors, starting 01 08 0f 16 1d 24 2b 32
}
