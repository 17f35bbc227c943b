package sector_test

import (
	"fmt"

	"github.com/fastxts/xts/internal/sector"
)

// dm-crypt plain mode with aes-xts-plain, 4096-byte sectors counted in
// 512-byte units, 24 units before the IV wraps: the run of five sectors
// is cut where the IV falls back to 0.
func ExampleNumbering_Split() {
	n := sector.Numbering{SectorSize: 4096, Plain32: true, Offset: 1<<32 - 24}
	n.Split(0, 5, func(k, count, firstIV uint64) {
		fmt.Printf("sectors %d..%d from IV %d, step %d\n", k, k+count-1, firstIV, n.Step())
	})
	// Output:
	// sectors 0..2 from IV 4294967272, step 8
	// sectors 3..4 from IV 0, step 8
}

func ExampleNew() {
	key := make([]byte, 64)
	key[0] = 1
	c, err := sector.New("aes-xts-plain64", key, sector.Numbering{SectorSize: 512, Offset: 2048})
	if err != nil {
		panic(err)
	}
	defer c.Wipe()
	buf := make([]byte, 4*512)
	c.Encrypt(buf, buf, 10) // sectors 10..13: IVs 2058..2061
	c.Decrypt(buf, buf, 10)
	fmt.Println(buf[0], c.Numbering())
	// Output: 0 512-byte sectors, IVs count 512-byte units from 2048
}
