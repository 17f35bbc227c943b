package streebog_test

import (
	"fmt"

	"github.com/fastxts/xts/internal/hash/streebog"
)

func ExampleNew256() {
	h := streebog.New256()
	h.Write([]byte("The quick brown fox jumps over the lazy dog"))
	fmt.Printf("%x\n", h.Sum(nil))
	// Output: 3e7dea7f2384b6c5a3d0e24aaa29c05e89ddd762145030ec22c71a6db8b2c1f4
}
