package pbkdf2_test

import (
	"crypto/sha256"
	"fmt"

	"github.com/fastxts/xts/internal/pbkdf2"
)

// RFC 7914, section 11, first PBKDF2-HMAC-SHA-256 vector. A VeraCrypt
// header key would use, for example, whirlpool.New with 500,000
// iterations and a 64-byte salt.
func ExampleKey() {
	key := pbkdf2.Key(sha256.New, []byte("passwd"), []byte("salt"), 1, 64)
	fmt.Printf("%x\n", key[:16])
	// Output: 55ac046e56e3089fec1691c22544b605
}
