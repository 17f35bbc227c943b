//go:build gcrypt && cgo

package gcry

/*
#cgo LDFLAGS: -lgcrypt
#include <gcrypt.h>

// gcry_ready initializes libgcrypt once: the version check is required
// before any other call, and no secure memory is needed for test keys.
static int gcry_ready(void) {
	if (gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P)) {
		return 1;
	}
	if (gcry_check_version(GCRYPT_VERSION) == NULL) {
		return 0;
	}
	gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
	gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
	return 1;
}

// gcry_run sets up one cipher handle, runs one whole buffer through it and
// closes it. It returns 0 or a libgcrypt error code (or -1 when the
// library failed to initialize).
static int gcry_run(int algo, int mode, int enc, const void *key, size_t keylen,
                    const void *iv, size_t ivlen, const void *in, void *out, size_t len) {
	if (!gcry_ready()) {
		return -1;
	}
	gcry_cipher_hd_t h;
	gcry_error_t err = gcry_cipher_open(&h, algo, mode, 0);
	if (err) {
		return (int)err;
	}
	err = gcry_cipher_setkey(h, key, keylen);
	if (!err && ivlen > 0) {
		err = gcry_cipher_setiv(h, iv, ivlen);
	}
	if (!err) {
		err = enc ? gcry_cipher_encrypt(h, out, len, in, len)
		          : gcry_cipher_decrypt(h, out, len, in, len);
	}
	gcry_cipher_close(h);
	return (int)err;
}

static const char *gcry_ver(void) {
	gcry_ready();
	return gcry_check_version(NULL);
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Version is the version of the libgcrypt linked.
func Version() string { return C.GoString(C.gcry_ver()) }

// Algo is one of libgcrypt's block ciphers.
type Algo int

// The ciphers of the bridge.
const (
	Camellia Algo = iota + 1
	Serpent
	Twofish
)

// KeySizes are the key lengths in bytes that libgcrypt has for a: all of
// 16, 24 and 32 but for Twofish, which it has with 16 and 32 only.
func (a Algo) KeySizes() []int {
	if a == Twofish {
		return []int{16, 32}
	}
	return []int{16, 24, 32}
}

// String is the cipher's name.
func (a Algo) String() string {
	switch a {
	case Camellia:
		return "Camellia"
	case Serpent:
		return "Serpent"
	case Twofish:
		return "Twofish"
	}
	return fmt.Sprintf("Algo(%d)", int(a))
}

// id is libgcrypt's number for a with a key of keyLen bytes.
func (a Algo) id(keyLen int) (C.int, error) {
	switch {
	case a == Camellia && keyLen == 16:
		return C.GCRY_CIPHER_CAMELLIA128, nil
	case a == Camellia && keyLen == 24:
		return C.GCRY_CIPHER_CAMELLIA192, nil
	case a == Camellia && keyLen == 32:
		return C.GCRY_CIPHER_CAMELLIA256, nil
	case a == Serpent && keyLen == 16:
		return C.GCRY_CIPHER_SERPENT128, nil
	case a == Serpent && keyLen == 24:
		return C.GCRY_CIPHER_SERPENT192, nil
	case a == Serpent && keyLen == 32:
		return C.GCRY_CIPHER_SERPENT256, nil
	case a == Twofish && keyLen == 16:
		return C.GCRY_CIPHER_TWOFISH128, nil
	case a == Twofish && keyLen == 32:
		return C.GCRY_CIPHER_TWOFISH, nil
	}
	return 0, fmt.Errorf("gcry: no %v with a %d-byte key", a, keyLen)
}

func run(alg, mode C.int, enc bool, key, iv, in []byte) ([]byte, error) {
	if len(in) == 0 {
		return nil, fmt.Errorf("gcry: empty input")
	}
	out := make([]byte, len(in))
	var ivp unsafe.Pointer
	if len(iv) > 0 {
		ivp = unsafe.Pointer(&iv[0])
	}
	e := C.int(0)
	if enc {
		e = 1
	}
	rc := C.gcry_run(alg, mode, e, unsafe.Pointer(&key[0]), C.size_t(len(key)),
		ivp, C.size_t(len(iv)), unsafe.Pointer(&in[0]), unsafe.Pointer(&out[0]), C.size_t(len(in)))
	if rc != 0 {
		return nil, fmt.Errorf("gcry: libgcrypt error %d", int(rc))
	}
	return out, nil
}

// ECB encrypts (enc) or decrypts in, a multiple of 16 bytes, with a in ECB
// mode under key (a length of a.KeySizes).
func ECB(a Algo, enc bool, key, in []byte) ([]byte, error) {
	id, err := a.id(len(key))
	if err != nil {
		return nil, err
	}
	return run(id, C.GCRY_CIPHER_MODE_ECB, enc, key, nil, in)
}

// XTS encrypts (enc) or decrypts one data unit in with a in XTS mode: key
// is the data key followed by the tweak key (each of a length of
// a.KeySizes) and tweak the 16-byte IV (for plain64, the little-endian
// sector number).
func XTS(a Algo, enc bool, key []byte, tweak [16]byte, in []byte) ([]byte, error) {
	if len(key)%2 != 0 {
		return nil, fmt.Errorf("gcry: odd XTS key length %d", len(key))
	}
	id, err := a.id(len(key) / 2)
	if err != nil {
		return nil, err
	}
	return run(id, C.GCRY_CIPHER_MODE_XTS, enc, key, tweak[:], in)
}
