//go:build openssl && cgo

package pbkdf2

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"hash"
	"math/rand/v2"
	"testing"

	"github.com/fastxts/xts/internal/hash/osslhash"
	"github.com/fastxts/xts/internal/hash/ripemd160"
	"github.com/fastxts/xts/internal/hash/whirlpool"
)

// TestOpenSSLPBKDF2 compares Key with OpenSSL's PKCS5_PBKDF2_HMAC, an
// independent implementation, for every PRF OpenSSL has (all but
// Streebog): random passwords (some longer than the block), salts,
// iteration counts and key lengths (up to VeraCrypt's 192 bytes and
// beyond).
//
// Needs cgo and libssl-dev: go test -tags openssl -run OpenSSL ./internal/pbkdf2/
func TestOpenSSLPBKDF2(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, c := range []struct {
		ossl string
		h    func() hash.Hash
	}{
		{"SHA1", sha1.New},
		{"SHA256", sha256.New},
		{"SHA512", sha512.New},
		{"WHIRLPOOL", whirlpool.New},
		{"RIPEMD160", ripemd160.New},
		{"BLAKE2S-256", blake2s256},
	} {
		t.Run(c.ossl, func(t *testing.T) {
			for trial := 0; trial < 40; trial++ {
				password := make([]byte, rng.IntN(200))
				salt := make([]byte, rng.IntN(80))
				for i := range password {
					password[i] = byte(rng.Uint32())
				}
				for i := range salt {
					salt[i] = byte(rng.Uint32())
				}
				iter := 1 + rng.IntN(60)
				keyLen := 1 + rng.IntN(260)
				want, err := osslhash.PBKDF2(c.ossl, password, salt, iter, keyLen)
				if err != nil {
					t.Fatal(err)
				}
				if got := Key(c.h, password, salt, iter, keyLen); !bytes.Equal(got, want) {
					t.Fatalf("password %d bytes, salt %d, iter %d, keyLen %d: got %x, OpenSSL %x",
						len(password), len(salt), iter, keyLen, got, want)
				}
			}
		})
	}
}
