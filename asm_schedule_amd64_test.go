//go:build !purego

package xts

import "unsafe"

// asmTestSchedule builds keySchedule values for the assembly tests from the
// pure-Go FIPS-197 key expansion of keyschedule_amd64_test.go, independently
// of the assembly expandKey: the keySchedule of a full XTS key (K1 ‖ K2),
// in a 64-byte aligned allocation as the assembly's contract requires.
func asmTestSchedule(key []byte) *keySchedule {
	const size = unsafe.Sizeof(keySchedule{})
	buf := make([]byte, size+63)
	off := -uintptr(unsafe.Pointer(&buf[0])) & 63
	ks := (*keySchedule)(unsafe.Pointer(&buf[off]))

	half := len(key) / 2
	data, tweak := ksRefExpandKey(key[:half]), ksRefExpandKey(key[half:])
	rounds := len(data) - 1
	first := 14 - rounds
	for i := 0; i <= rounds; i++ {
		ks.enc[first+i] = data[i]
		ks.tweak[first+i] = tweak[i]
		switch i {
		case 0:
			ks.dec[first] = data[rounds]
		case rounds:
			ks.dec[14] = data[0]
		default:
			ks.dec[first+i] = ksRefInvMixColumns(data[rounds-i])
		}
	}
	ks.rounds = uint64(rounds)
	return ks
}
