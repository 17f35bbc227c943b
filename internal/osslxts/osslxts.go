//go:build openssl && cgo

package osslxts

/*
#cgo LDFLAGS: -lcrypto
#include <openssl/evp.h>

// xts_crypt runs one whole XTS data unit through libcrypto. It returns the
// number of bytes written, or a negative value on failure. OpenSSL's XTS
// takes the data unit in a single EVP_CipherUpdate call; Final adds nothing
// but is called to check that the context is in a sane state.
static int xts_crypt(int enc, const unsigned char *key, int keylen,
                     const unsigned char *iv, const unsigned char *in,
                     int inlen, unsigned char *out) {
	const EVP_CIPHER *c;
	if (keylen == 32) {
		c = EVP_aes_128_xts();
	} else if (keylen == 64) {
		c = EVP_aes_256_xts();
	} else {
		return -1;
	}
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	if (ctx == NULL) {
		return -2;
	}
	int n = -3, outl = 0, finl = 0;
	if (EVP_CipherInit_ex(ctx, c, NULL, key, iv, enc) == 1 &&
	    EVP_CipherUpdate(ctx, out, &outl, in, inlen) == 1 &&
	    EVP_CipherFinal_ex(ctx, out + outl, &finl) == 1) {
		n = outl + finl;
	}
	EVP_CIPHER_CTX_free(ctx);
	return n;
}
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// XTS encrypts (encrypt true) or decrypts one data unit with OpenSSL's
// AES-XTS. key is K1‖K2, 32 bytes (AES-128-XTS) or 64 bytes (AES-256-XTS);
// OpenSSL has no AES-192-XTS and refuses keys whose halves are equal.
// tweak is the 16-byte IV. in must be at least 16 bytes long.
func XTS(encrypt bool, key, tweak, in []byte) ([]byte, error) {
	if len(key) != 32 && len(key) != 64 {
		return nil, fmt.Errorf("osslxts: key length %d, want 32 or 64", len(key))
	}
	if len(tweak) != 16 {
		return nil, fmt.Errorf("osslxts: tweak length %d, want 16", len(tweak))
	}
	if len(in) < 16 || len(in) > 1<<24 {
		return nil, fmt.Errorf("osslxts: input length %d outside 16..2^24", len(in))
	}
	// The C side writes into out; keep an extra block of room so that a
	// misbehaving Final could not write outside Go memory.
	out := make([]byte, len(in)+16)
	enc := C.int(0)
	if encrypt {
		enc = 1
	}
	n := C.xts_crypt(enc,
		(*C.uchar)(unsafe.Pointer(&key[0])), C.int(len(key)),
		(*C.uchar)(unsafe.Pointer(&tweak[0])),
		(*C.uchar)(unsafe.Pointer(&in[0])), C.int(len(in)),
		(*C.uchar)(unsafe.Pointer(&out[0])))
	if n < 0 {
		return nil, errors.New("osslxts: libcrypto refused the operation (equal key halves?)")
	}
	if int(n) != len(in) {
		return nil, fmt.Errorf("osslxts: libcrypto wrote %d bytes for %d", int(n), len(in))
	}
	return out[:n], nil
}

// MustXTS is XTS for tests: it panics where XTS returns an error.
func MustXTS(encrypt bool, key, tweak, in []byte) []byte {
	out, err := XTS(encrypt, key, tweak, in)
	if err != nil {
		panic(err)
	}
	return out
}
