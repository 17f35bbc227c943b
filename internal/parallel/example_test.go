package parallel_test

import (
	"fmt"
	"sync/atomic"

	"github.com/fastxts/xts/internal/parallel"
)

// Sum 0..999 in pieces of 100 on up to four goroutines.
func ExampleRun() {
	var sum atomic.Int64
	err := parallel.Run(1000, 100, 4, func(lo, hi int) error {
		s := 0
		for i := lo; i < hi; i++ {
			s += i
		}
		sum.Add(int64(s))
		return nil
	})
	fmt.Println(sum.Load(), err)
	// Output: 499500 <nil>
}
