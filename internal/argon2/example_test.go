package argon2_test

import (
	"errors"
	"fmt"
	"sync/atomic"

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

// IDKeyStop given up part way: here the stop function turns true after
// the first of the 16 slices (4 passes of 4), as a flag set by another
// goroutine would; the memory is zeroed and released, and the error is
// ErrStopped.
func ExampleIDKeyStop() {
	var stopped atomic.Bool
	calls := 0
	stop := func() bool {
		calls++
		if calls == 3 { // before the allocation, before slice 0, before slice 1
			stopped.Store(true) // another goroutine's work, in a real caller
		}
		return stopped.Load()
	}
	key, err := argon2.IDKeyStop(stop, []byte("correct horse battery staple"), []byte("a 16-byte salt.."), 4, 64*1024, 2, 32)
	fmt.Println(key == nil, errors.Is(err, argon2.ErrStopped), calls)
	// Output: true true 3
}
