package argon2_test

import (
	"fmt"

	"github.com/fastxts/xts/internal/argon2"
)

// IDKey with a LUKS2-style cost, scaled down to 64 MiB: 4 passes, 2 lanes,
// a 32-byte key (the output is golang.org/x/crypto/argon2.IDKey's for the
// same inputs).
func ExampleIDKey() {
	key := argon2.IDKey([]byte("correct horse battery staple"), []byte("a 16-byte salt.."), 4, 64*1024, 2, 32)
	fmt.Printf("%x\n", key)
	// Output: 4507e4ac7f5e546b30b564fcc16d811b804f2ddc40b5b3e17d4d4530c2170c22
}
