//go:build (amd64 || arm64) && !purego

package xts

import "unsafe"

// keySchedule holds the expanded keys of one AES-XTS key, shared by every
// assembly variant. Round keys are right-aligned: AES-256 uses rows 0..14,
// AES-192 rows 2..14 and AES-128 rows 4..14, so every key size ends in the
// same round sequence and the routines branch once, on rounds, to where
// their key size starts. The struct is allocated 64-byte aligned (see
// newKeySchedule) so that legacy-SSE memory operands and full-vector
// broadcasts never straddle an alignment boundary.
type keySchedule struct {
	enc    [15][16]byte // data key, encryption round keys           (offset 0)
	dec    [15][16]byte // data key, decryption round keys, in order of use (offset 240)
	tweak  [15][16]byte // tweak key, encryption round keys          (offset 480)
	rounds uint64       // 10, 12 or 14                              (offset 720)
}

// newKeySchedule expands a full AES-XTS key K1‖K2 (32, 48 or 64 bytes) into a
// keySchedule: enc and dec from the data key K1, tweak from the tweak key K2.
// It panics on any other length (callers validate keys first) and requires
// the CPU's AES instructions (callers only use it for the assembly variants).
//
// The schedule is 64-byte aligned. Go only promises 8-byte alignment for a
// struct of byte arrays and a uint64, so it is placed inside a byte buffer
// 63 bytes larger than needed, at the first 64-byte boundary. That is safe
// with Go's garbage collector: a pointer into the middle of an allocation
// keeps the whole allocation alive, and keySchedule holds no pointers, so
// the collector never needs to scan it as anything but the (noscan) bytes
// it was allocated as. The conversion also satisfies -d=checkptr: the
// struct lies entirely inside the one allocation.
func newKeySchedule(key []byte) *keySchedule {
	var rounds int
	switch len(key) {
	case 32:
		rounds = 10
	case 48:
		rounds = 12
	case 64:
		rounds = 14
	default:
		panic("xts: internal error: AES-XTS key of invalid length")
	}
	const size = unsafe.Sizeof(keySchedule{})
	buf := make([]byte, size+63)
	off := -uintptr(unsafe.Pointer(&buf[0])) & 63
	ks := (*keySchedule)(unsafe.Pointer(&buf[off]))

	half := len(key) / 2
	expandKey(&key[0], rounds, &ks.enc, &ks.dec)
	expandKey(&key[half], rounds, &ks.tweak, nil)
	ks.rounds = uint64(rounds)
	return ks
}

// wipe zeroes the schedule, for callers that want to drop a key from memory
// before the garbage collector reclaims it. The schedule is unusable after.
func (ks *keySchedule) wipe() {
	clear(ks.enc[:])
	clear(ks.dec[:])
	clear(ks.tweak[:])
	ks.rounds = 0
}
