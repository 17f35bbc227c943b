package bitlocker

import (
	"fmt"
	"io"
)

// Example opens a volume (here a small synthetic one whose protection is
// suspended; Password, RecoveryPassword and StartupKey work the same way)
// and reads from it.
func Example() {
	var dev io.ReaderAt = &memDev{b: newSynth(AESXTS128, 512, 8<<20, 3).image}

	m, err := ReadMetadata(dev)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(m.Method, m.Description)
	for _, p := range m.Protectors {
		fmt.Println(p.Type)
	}

	v, err := Open(dev, ClearKey(), &Options{Metadata: m, ReadOnly: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer v.Close()
	buf := make([]byte, 4096)
	if _, err := v.ReadAt(buf, 1<<20); err != nil { // the first metadata area
		fmt.Println(err)
		return
	}
	fmt.Println(v.Size(), v.SectorSize(), buf[0], len(v.FVEK()))
	// Output:
	// AES-XTS-128 SYNTH C: 1/1/2020
	// VMK protected with clear key
	// 8388608 512 0 32
}
