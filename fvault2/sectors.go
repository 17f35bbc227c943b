package fvault2

import (
	"fmt"

	"github.com/fastxts/xts/internal/sector"
)

// sectorSize is the logical volume's XTS data unit: 512-byte sectors whose
// tweak is the sector number counted from the logical volume's start
// (cryptsetup's aes-xts-plain64 with 512-byte sectors).
const sectorSize = 512

// newSectors returns the logical volume's sector cipher under the 32-byte
// XTS key (volume key ‖ tweak key).
func newSectors(key []byte) (*sector.Cipher, error) {
	if len(key) != 2*volumeKeyBytes {
		return nil, fmt.Errorf("fvault2: volume key of %d bytes, want %d", len(key), 2*volumeKeyBytes)
	}
	c, err := sector.New("aes-xts-plain64", key, sector.Numbering{SectorSize: sectorSize}, sector.EqualKeyHalves)
	if err != nil {
		return nil, fmt.Errorf("fvault2: %w", err)
	}
	return c, nil
}
