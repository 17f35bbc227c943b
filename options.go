package xts

import "fmt"

// An Option configures a Cipher in NewCipher.
type Option func(*config) error

type config struct {
	impl              string
	allowEqualHalves  bool
	tweakUnit         int
	parallelThreshold int
	parallel          bool // false after WithoutParallelism, whatever else is given
}

// defaultParallelThreshold is the smallest EncryptSectors/DecryptSectors
// call split across goroutines: below it, the cost of starting and joining
// goroutines is no longer small against the work.
const defaultParallelThreshold = 1 << 20

func defaultConfig() config {
	return config{parallelThreshold: defaultParallelThreshold, parallel: true}
}

// WithImplementation selects an implementation by name (see
// Implementations) instead of the default. NewCipher returns an error if
// the name is unknown or the implementation cannot run here. With a
// block cipher other than AES only "generic" exists, and with
// serpent.NewCipher also the implementations whose Cipher is "Serpent".
func WithImplementation(name string) Option {
	return func(c *config) error {
		c.impl = name
		return nil
	}
}

// AllowEqualKeyHalves lets NewCipher accept a key whose data and tweak
// halves are equal. Such keys are refused by default, as FIPS and OpenSSL
// refuse them; IEEE 1619 test vector 1 uses one.
func AllowEqualKeyHalves() Option {
	return func(c *config) error {
		c.allowEqualHalves = true
		return nil
	}
}

// WithTweakUnit makes EncryptSectors and DecryptSectors count tweaks in
// units of the given number of bytes instead of one per sector: sector k
// of a call uses the tweak of firstSector + k*sectorSize/unit, and
// firstSector is then counted in those units too.
//
// This is dm-crypt's numbering for sectors larger than 512 bytes when the
// iv_large_sectors flag is not set (cryptsetup --sector-size 4096 without
// --iv-large-sectors; LUKS2 images made that way): WithTweakUnit(512). The
// default, one tweak per sector, is dm-crypt with iv_large_sectors and
// matches calling Encrypt once per sector. unit must be a positive multiple
// of 16; sector sizes passed later must be multiples of it.
func WithTweakUnit(unit int) Option {
	return func(c *config) error {
		if unit <= 0 || unit%16 != 0 {
			return fmt.Errorf("xts: tweak unit %d is not a positive multiple of 16", unit)
		}
		c.tweakUnit = unit
		return nil
	}
}

// WithParallelThreshold sets the size, in bytes, from which EncryptSectors
// and DecryptSectors split a call across goroutines (at most GOMAXPROCS,
// on sector boundaries). The default is 1 MiB. A threshold <= 0 splits
// every call that has more than one sector, which is only useful in tests.
func WithParallelThreshold(bytes int) Option {
	return func(c *config) error {
		c.parallelThreshold = bytes
		return nil
	}
}

// WithoutParallelism keeps every call on the calling goroutine, for
// callers that run their own workers. It wins over WithParallelThreshold,
// in whichever order they are given.
func WithoutParallelism() Option {
	return func(c *config) error {
		c.parallel = false
		return nil
	}
}
