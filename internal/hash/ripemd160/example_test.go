package ripemd160_test

import (
	"fmt"

	"github.com/fastxts/xts/internal/hash/ripemd160"
)

func ExampleNew() {
	h := ripemd160.New()
	h.Write([]byte("abc"))
	fmt.Printf("%x\n", h.Sum(nil))
	// Output: 8eb208f7e05d987a9b044a8e98c6b087f15a0bfc
}
