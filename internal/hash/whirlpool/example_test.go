package whirlpool_test

import (
	"fmt"

	"github.com/fastxts/xts/internal/hash/whirlpool"
)

func ExampleNew() {
	h := whirlpool.New()
	h.Write([]byte("abc"))
	fmt.Printf("%x\n", h.Sum(nil)[:16])
	// Output: 4e2448a4c6f486bb16b6562c73b4020b
}
