package xts

import "crypto/cipher"

// theSerpentImpls, isSerpent and serpentDefault look at the Serpent
// family of the cipher registry (none where no platform file registers
// it).
func theSerpentImpls() []otherImpl {
	if fam := familyNamed("Serpent"); fam != nil {
		return fam.list()
	}
	return nil
}

func isSerpent(f func([]byte) (cipher.Block, error)) bool {
	fam := familyFor(f)
	return fam != nil && fam.cipher == "Serpent"
}

func serpentDefault() int {
	if fam := familyNamed("Serpent"); fam != nil {
		return fam.defaultIndex()
	}
	return -1
}
