//go:build openssl && cgo

package osslhash

/*
#cgo LDFLAGS: -lcrypto
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <stdlib.h>

// load_providers makes the legacy provider's digests (Whirlpool)
// available next to the default ones. It returns 0 on failure.
static int load_providers(void) {
	return OSSL_PROVIDER_load(NULL, "legacy") != NULL &&
	       OSSL_PROVIDER_load(NULL, "default") != NULL;
}

// digest hashes in with the named digest into out (at least
// EVP_MAX_MD_SIZE bytes); it returns the digest length or a negative value.
static int digest(const char *name, const unsigned char *in, size_t inlen,
                  unsigned char *out) {
	EVP_MD *md = EVP_MD_fetch(NULL, name, NULL);
	if (md == NULL) {
		return -1;
	}
	unsigned int n = 0;
	int ok = EVP_Digest(in, inlen, out, &n, md, NULL);
	EVP_MD_free(md);
	return ok == 1 ? (int)n : -2;
}

// pbkdf2 runs PKCS5_PBKDF2_HMAC with the named digest; it returns 1 on
// success.
static int pbkdf2(const char *name, const char *pass, int passlen,
                  const unsigned char *salt, int saltlen, int iter,
                  int keylen, unsigned char *out) {
	EVP_MD *md = EVP_MD_fetch(NULL, name, NULL);
	if (md == NULL) {
		return -1;
	}
	int ok = PKCS5_PBKDF2_HMAC(pass, passlen, salt, saltlen, iter, md, keylen, out);
	EVP_MD_free(md);
	return ok;
}
*/
import "C"

import (
	"fmt"
	"sync"
	"unsafe"
)

var loadOnce = sync.OnceValue(func() error {
	if C.load_providers() == 0 {
		return fmt.Errorf("osslhash: cannot load OpenSSL's legacy and default providers")
	}
	return nil
})

// cbytes returns a pointer to b's first byte, or to a dummy byte when b
// is empty (cgo may not be given a pointer past the end).
func cbytes(b []byte) *C.uchar {
	if len(b) == 0 {
		var dummy C.uchar
		return &dummy
	}
	return (*C.uchar)(unsafe.Pointer(&b[0]))
}

// Digest returns OpenSSL's digest of msg with the named algorithm
// ("WHIRLPOOL", "RIPEMD160", "SHA256", ...).
func Digest(name string, msg []byte) ([]byte, error) {
	if err := loadOnce(); err != nil {
		return nil, err
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	out := make([]byte, C.EVP_MAX_MD_SIZE)
	n := C.digest(cname, cbytes(msg), C.size_t(len(msg)), cbytes(out))
	if n < 0 {
		return nil, fmt.Errorf("osslhash: digest %s failed (%d)", name, int(n))
	}
	return out[:n], nil
}

// PBKDF2 returns OpenSSL's PKCS5_PBKDF2_HMAC with the named digest.
func PBKDF2(name string, password, salt []byte, iter, keyLen int) ([]byte, error) {
	if err := loadOnce(); err != nil {
		return nil, err
	}
	if keyLen < 1 {
		return nil, fmt.Errorf("osslhash: key length %d", keyLen)
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	out := make([]byte, keyLen)
	r := C.pbkdf2(cname, (*C.char)(unsafe.Pointer(cbytes(password))), C.int(len(password)),
		cbytes(salt), C.int(len(salt)), C.int(iter), C.int(keyLen), cbytes(out))
	if r != 1 {
		return nil, fmt.Errorf("osslhash: PBKDF2 with %s failed (%d)", name, int(r))
	}
	return out, nil
}
