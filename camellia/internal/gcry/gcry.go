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

func algo(keyLen int) (C.int, error) {
	switch keyLen {
	case 16:
		return C.GCRY_CIPHER_CAMELLIA128, nil
	case 24:
		return C.GCRY_CIPHER_CAMELLIA192, nil
	case 32:
		return C.GCRY_CIPHER_CAMELLIA256, nil
	}
	return 0, fmt.Errorf("gcry: no Camellia with a %d-byte key", keyLen)
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

// ECB encrypts (enc) or decrypts in, a multiple of 16 bytes, with Camellia
// in ECB mode under a 16-, 24- or 32-byte key.
func ECB(enc bool, key, in []byte) ([]byte, error) {
	a, err := algo(len(key))
	if err != nil {
		return nil, err
	}
	return run(a, C.GCRY_CIPHER_MODE_ECB, enc, key, nil, in)
}

// XTS encrypts (enc) or decrypts one data unit in with Camellia-XTS: key is
// the data key followed by the tweak key (32, 48 or 64 bytes) and tweak the
// 16-byte IV (for plain64, the little-endian sector number).
func XTS(enc bool, key []byte, tweak [16]byte, in []byte) ([]byte, error) {
	if len(key)%2 != 0 {
		return nil, fmt.Errorf("gcry: odd XTS key length %d", len(key))
	}
	a, err := algo(len(key) / 2)
	if err != nil {
		return nil, err
	}
	return run(a, C.GCRY_CIPHER_MODE_XTS, enc, key, tweak[:], in)
}
