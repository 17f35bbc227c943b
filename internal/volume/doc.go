// Package volume is the format-neutral volume layer: the decrypted data
// area of an encrypted image (LUKS, VeraCrypt/TrueCrypt, BitLocker,
// FileVault 2), read and written at any offset and length.
//
// A format finds its data area and key and hands them over as a Config:
// where the area lies on the device, its size and sector size, and a
// Sectors cipher that encrypts and decrypts whole sectors numbered from
// the area's start (the format maps that number to its IV or tweak). The
// Volume does the rest the same way for every format: whole sectors in
// bulk across the cores, partial sectors read, modified and written back,
// large image files read through a read-only mapping, a Guard that may
// refuse writes to parts of the area, Flush and Close.
package volume
