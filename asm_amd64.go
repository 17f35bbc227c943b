//go:build !purego

package xts

// This file declares the routines that _asm generates into zasm_amd64.s.
// The declarations are the contract between the Go code and the generator:
// _asm reads them (avo's Package/Implement) to lay out the arguments.

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

// expandKey expands an AES key of 16, 24 or 32 bytes (rounds 10, 12 or 14)
// into right-aligned encryption round keys and, if dec is not nil, the
// decryption round keys of the equivalent inverse cipher in order of use:
// dec[last-r] = InvMixColumns(enc[r]) for the middle rounds, with the first
// and last rows copied unchanged. Requires AES-NI.
//
//go:noescape
func expandKey(key *byte, rounds int, enc, dec *[15][16]byte)

// The XTS routines process one whole data unit, or a part of one, per call.
// Preconditions, checked by the Go callers: len(src) >= 16,
// len(dst) >= len(src), and dst and src either the same memory or not
// overlapping. The routines read exactly len(src) bytes of src, write
// exactly len(src) bytes of dst, and use ciphertext stealing when
// len(src) is not a multiple of 16.

//go:noescape
func encryptAESNI(ks *keySchedule, dst, src []byte, tweak *[16]byte, flags uint64)

//go:noescape
func decryptAESNI(ks *keySchedule, dst, src []byte, tweak *[16]byte, flags uint64)

//go:noescape
func encryptAESNIAVX(ks *keySchedule, dst, src []byte, tweak *[16]byte, flags uint64)

//go:noescape
func decryptAESNIAVX(ks *keySchedule, dst, src []byte, tweak *[16]byte, flags uint64)

//go:noescape
func encryptVAESAVX2(ks *keySchedule, dst, src []byte, tweak *[16]byte, flags uint64)

//go:noescape
func decryptVAESAVX2(ks *keySchedule, dst, src []byte, tweak *[16]byte, flags uint64)

//go:noescape
func encryptVAESAVX10_256(ks *keySchedule, dst, src []byte, tweak *[16]byte, flags uint64)

//go:noescape
func decryptVAESAVX10_256(ks *keySchedule, dst, src []byte, tweak *[16]byte, flags uint64)

//go:noescape
func encryptVAESAVX10_512(ks *keySchedule, dst, src []byte, tweak *[16]byte, flags uint64)

//go:noescape
func decryptVAESAVX10_512(ks *keySchedule, dst, src []byte, tweak *[16]byte, flags uint64)

// The sector-batch routines process whole data units: unit k of src (each
// sectorSize bytes) with the IV SectorTweak(first + k*step), modulo 2^64,
// exactly as one call of the routines above per unit with flags
// flagEncryptTweak would. Preconditions, checked by the Go callers:
// sectorSize is a positive multiple of 16, len(src) a multiple of
// sectorSize, len(dst) >= len(src), dst and src the same memory or not
// overlapping. They read exactly len(src) bytes of src and write exactly
// len(src) bytes of dst. (Defensively they return at once if sectorSize is
// not a positive multiple of 16, and stop before a partial last unit.)

//go:noescape
func encryptSectorsAESNI(ks *keySchedule, dst, src []byte, sectorSize int, first, step uint64)

//go:noescape
func decryptSectorsAESNI(ks *keySchedule, dst, src []byte, sectorSize int, first, step uint64)

//go:noescape
func encryptSectorsAESNIAVX(ks *keySchedule, dst, src []byte, sectorSize int, first, step uint64)

//go:noescape
func decryptSectorsAESNIAVX(ks *keySchedule, dst, src []byte, sectorSize int, first, step uint64)

//go:noescape
func encryptSectorsVAESAVX2(ks *keySchedule, dst, src []byte, sectorSize int, first, step uint64)

//go:noescape
func decryptSectorsVAESAVX2(ks *keySchedule, dst, src []byte, sectorSize int, first, step uint64)

//go:noescape
func encryptSectorsVAESAVX10_256(ks *keySchedule, dst, src []byte, sectorSize int, first, step uint64)

//go:noescape
func decryptSectorsVAESAVX10_256(ks *keySchedule, dst, src []byte, sectorSize int, first, step uint64)

//go:noescape
func encryptSectorsVAESAVX10_512(ks *keySchedule, dst, src []byte, sectorSize int, first, step uint64)

//go:noescape
func decryptSectorsVAESAVX10_512(ks *keySchedule, dst, src []byte, sectorSize int, first, step uint64)

// cpuidex executes CPUID with EAX=leaf, ECX=sub and xgetbv XGETBV with
// ECX=index. They give the raw feature bits and the OS-enabled register
// state that `xts info` reports; cpuid/v2 folds the two together.
//
//go:noescape
func cpuidex(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

//go:noescape
func xgetbv(index uint32) (eax, edx uint32)
