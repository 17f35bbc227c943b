// Command shiftfloor times the data movement of an in-place encryption
// without the cipher or the header: it moves the first size-2*shift bytes
// of FILE up by shift bytes, as cryptsetup reencrypt --encrypt
// --reduce-device-size 2*shift lays the data out, hotzone by hotzone from
// the end (each shift bytes), each in 1 MiB chunks read and written by
// GOMAXPROCS goroutines, then synced. What it prints (seconds, wall) is a
// floor for any tool that encrypts that file in place there: the same
// reads, writes and syncs, with nothing else to do.
//
// Usage: go run ./scripts/shiftfloor FILE SHIFT_BYTES
//
// scripts/reencrypt-bench.sh runs it as its "floor" row. It changes FILE
// (the data ends up moved, not encrypted): give it a copy.
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
	"time"
)

const chunk = 1 << 20

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: shiftfloor FILE SHIFT_BYTES")
		os.Exit(2)
	}
	shift, err := strconv.ParseInt(os.Args[2], 10, 64)
	if err != nil || shift <= 0 || shift%chunk != 0 {
		fmt.Fprintln(os.Stderr, "shiftfloor: SHIFT_BYTES must be a positive multiple of 1 MiB")
		os.Exit(2)
	}
	f, err := os.OpenFile(os.Args[1], os.O_RDWR, 0)
	if err != nil {
		fmt.Fprintln(os.Stderr, "shiftfloor:", err)
		os.Exit(1)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		fmt.Fprintln(os.Stderr, "shiftfloor:", err)
		os.Exit(1)
	}
	data := fi.Size() - 2*shift
	if data < shift {
		fmt.Fprintln(os.Stderr, "shiftfloor: the file is too small for that shift")
		os.Exit(2)
	}
	t := time.Now()
	if err := move(f, data, shift); err != nil {
		fmt.Fprintln(os.Stderr, "shiftfloor:", err)
		os.Exit(1)
	}
	fmt.Printf("%.3f\n", time.Since(t).Seconds())
}

// move moves [0, data) of f up by shift, hotzone by hotzone from the end.
func move(f *os.File, data, shift int64) error {
	for hi := data; hi > 0; {
		lo := max(0, hi-shift)
		next := make(chan int64, (hi-lo)/chunk+1)
		for o := lo; o < hi; o += chunk {
			next <- o
		}
		close(next)
		var wg sync.WaitGroup
		errs := make(chan error, runtime.GOMAXPROCS(0))
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				b := make([]byte, chunk)
				for o := range next {
					n := min(chunk, hi-o)
					if _, err := f.ReadAt(b[:n], o); err != nil {
						errs <- err
						return
					}
					if _, err := f.WriteAt(b[:n], o+shift); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		if err := <-errs; err != nil {
			return err
		}
		if err := f.Sync(); err != nil {
			return err
		}
		hi = lo
	}
	return nil
}
