// Copyright 2026 The fastxts Authors. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

//go:build gcrypt && cgo

package twofish

// This file exists only for the tests in gcrypt_test.go, which use
// libgcrypt as an oracle: cgo is not allowed in _test.go files. It is
// compiled only with -tags gcrypt and adds nothing exported.

/*
#cgo LDFLAGS: -lgcrypt
#include <gcrypt.h>
#include <stdlib.h>

static void gc_init(void) {
	if (gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P))
		return;
	gcry_check_version(NULL);
	gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
	gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
}

// gc_crypt runs one libgcrypt cipher operation over len bytes: algo and
// mode as in gcrypt.h, iv NULL for none. It returns 0 or a gcry_error_t.
static unsigned gc_crypt(int algo, int mode, int enc, const void *key, size_t keylen,
		const void *iv, size_t ivlen, void *out, const void *in, size_t len) {
	gcry_cipher_hd_t h;
	gcry_error_t err;
	gc_init();
	err = gcry_cipher_open(&h, algo, mode, 0);
	if (err)
		return err;
	err = gcry_cipher_setkey(h, key, keylen);
	if (!err && iv)
		err = gcry_cipher_setiv(h, iv, ivlen);
	if (!err)
		err = enc ? gcry_cipher_encrypt(h, out, len, in, len)
		          : gcry_cipher_decrypt(h, out, len, in, len);
	gcry_cipher_close(h);
	return err;
}
*/
import "C"

import (
	"fmt"
	"unsafe"
)

const (
	gcryModeECB = C.GCRY_CIPHER_MODE_ECB
	gcryModeXTS = C.GCRY_CIPHER_MODE_XTS
)

// gcryptAlgo is libgcrypt's Twofish for a key of keyLen bytes: libgcrypt
// has Twofish-128 and Twofish-256 only.
func gcryptAlgo(keyLen int) int {
	if keyLen == 16 {
		return C.GCRY_CIPHER_TWOFISH128
	}
	return C.GCRY_CIPHER_TWOFISH
}

// gcrypt encrypts (enc) or decrypts in with libgcrypt.
func gcrypt(algo, mode int, enc bool, key, iv, in []byte) ([]byte, error) {
	var ivp unsafe.Pointer
	if iv != nil {
		ivp = C.CBytes(iv)
		defer C.free(ivp)
	}
	ck, cin := C.CBytes(key), C.CBytes(in)
	defer C.free(ck)
	defer C.free(cin)
	cout := C.malloc(C.size_t(len(in) + 1))
	defer C.free(cout)
	e := C.int(0)
	if enc {
		e = 1
	}
	if err := C.gc_crypt(C.int(algo), C.int(mode), e, ck, C.size_t(len(key)), ivp, C.size_t(len(iv)), cout, cin, C.size_t(len(in))); err != 0 {
		return nil, fmt.Errorf("libgcrypt error %d (algo %d, mode %d, key %d bytes)", err, algo, mode, len(key))
	}
	return C.GoBytes(cout, C.int(len(in))), nil
}

// gcryptVersion is the version of the libgcrypt linked in.
func gcryptVersion() (string, error) {
	v := C.gcry_check_version(nil)
	if v == nil {
		return "", fmt.Errorf("gcry_check_version failed")
	}
	return C.GoString(v), nil
}
