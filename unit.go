package xts

// A Unit encrypts or decrypts one data unit fed in several parts, for
// callers that do not hold a whole sector in one buffer. Feed every part
// but the last to Update (each a multiple of 16 bytes) and the last to
// Final; the output equals that of one EncryptWithTweak or
// DecryptWithTweak call over the concatenated parts.
//
// A Unit is not safe for concurrent use; the Cipher behind it is. It holds
// the running tweak (derived from the key): drop it when done.
type Unit struct {
	c       *Cipher
	tweak   tweak128
	decrypt bool
	started bool // the tweak has been encrypted
	done    bool // Final was called
}

// NewEncrypter returns a Unit that encrypts one data unit whose tweak is
// tweak (use SectorTweak for a sector number).
func (c *Cipher) NewEncrypter(tweak [16]byte) *Unit {
	c.check()
	return &Unit{c: c, tweak: tweakFromBytes(tweak)}
}

// NewDecrypter returns a Unit that decrypts one data unit whose tweak is
// tweak.
func (c *Cipher) NewDecrypter(tweak [16]byte) *Unit {
	c.check()
	return &Unit{c: c, tweak: tweakFromBytes(tweak), decrypt: true}
}

// Reset starts a new data unit with the given tweak, in the same
// direction, reusing u.
func (u *Unit) Reset(tweak [16]byte) {
	u.check()
	*u = Unit{c: u.c, tweak: tweakFromBytes(tweak), decrypt: u.decrypt}
}

// Update processes the next part of the data unit. len(src) must be a
// multiple of 16; dst must be at least as long and may be src itself, but
// must not overlap it otherwise. An empty part does nothing.
func (u *Unit) Update(dst, src []byte) {
	u.check()
	if u.done {
		panic("xts: Update after Final")
	}
	if len(src)%BlockSize != 0 {
		panic("xts: Update needs a multiple of 16 bytes; give the last part to Final")
	}
	checkDst(dst, src)
	if len(src) == 0 {
		return
	}
	u.run(dst, src, flagStoreTweak)
}

// Final processes the last part of the data unit, which may have any
// length of at least 16 bytes (ciphertext stealing needs the last full
// block and the partial one in the same call). Final with an empty part is
// allowed after at least one Update, when the unit ended on a multiple of
// 16 bytes. After Final the Unit can only be Reset.
func (u *Unit) Final(dst, src []byte) {
	u.check()
	if u.done {
		panic("xts: Final called twice")
	}
	if len(src) == 0 && u.started {
		u.done = true
		return
	}
	if len(src) < BlockSize {
		panic("xts: final part shorter than 16 bytes")
	}
	checkDst(dst, src)
	u.run(dst, src, 0)
	u.done = true
	u.tweak = tweak128{}
}

func (u *Unit) run(dst, src []byte, flags uint64) {
	if !u.started {
		flags |= flagEncryptTweak
		u.started = true
	}
	switch c := u.c; {
	case c.asm != nil && u.decrypt:
		u.tweak = c.asm.decrypt(dst, src, u.tweak, flags)
	case c.asm != nil:
		u.tweak = c.asm.encrypt(dst, src, u.tweak, flags)
	case u.decrypt:
		u.tweak = c.eng.decrypt(dst, src, u.tweak, flags)
	default:
		u.tweak = c.eng.encrypt(dst, src, u.tweak, flags)
	}
}

// check panics on a Unit that NewEncrypter or NewDecrypter did not make.
func (u *Unit) check() {
	if u.c == nil {
		panic("xts: Unit not initialized: create one with NewEncrypter or NewDecrypter")
	}
	u.c.check() // its Cipher may have been wiped
}
