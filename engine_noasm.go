//go:build !(amd64 || arm64) || purego

package xts

// asmEngine stands in for the assembly engine in builds that have none:
// the Cipher's field of this type is always nil there, and the methods
// below are never called.
type asmEngine struct{}

// sectorBatch is unused without assembly (see sectorsAsm).
const sectorBatch = 1

const errNoAsm = "xts: internal error: no assembly in this build"

func (*asmEngine) encrypt(dst, src []byte, t tweak128, flags uint64) tweak128 { panic(errNoAsm) }
func (*asmEngine) decrypt(dst, src []byte, t tweak128, flags uint64) tweak128 { panic(errNoAsm) }
func (*asmEngine) encryptSectors(dst, src []byte, sectorSize int, first, step uint64) {
	panic(errNoAsm)
}
func (*asmEngine) decryptSectors(dst, src []byte, sectorSize int, first, step uint64) {
	panic(errNoAsm)
}
func (*asmEngine) wipe() { panic(errNoAsm) }
