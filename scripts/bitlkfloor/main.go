// Command bitlkfloor decrypts a whole BitLocker volume, with its volume key
// given, into a new file, as `xts bitlk decrypt --volume-key-file` does, but
// in as little Go as that takes: the bitlocker package's Open and ReadAt,
// and one goroutine per core (up to 4) reading, decrypting and writing
// 512 KiB at a time at the same offsets. There is no command line to parse,
// no signal handling, no temporary output made visible only once complete,
// and nothing else linked in. Its time is a floor for any Go command that
// does this job: the Go runtime's start and exit, the package, and the
// copies in and out of the kernel.
//
// Usage: go run ./scripts/bitlkfloor IMAGE VOLUME-KEY-FILE OUTPUT
//
// scripts/bitlk-bench.sh runs it as its "go-floor" row. OUTPUT must not
// exist; on an error it is left as far as it got (this is a measuring
// tool, not a command to rely on).
package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/fastxts/xts/bitlocker"
)

const chunk = 512 << 10

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: bitlkfloor IMAGE VOLUME-KEY-FILE OUTPUT")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2], os.Args[3]); err != nil {
		fmt.Fprintln(os.Stderr, "bitlkfloor:", err)
		os.Exit(1)
	}
}

func run(image, keyFile, output string) error {
	img, err := os.Open(image)
	if err != nil {
		return err
	}
	defer img.Close()
	key, err := os.ReadFile(keyFile)
	if err != nil {
		return err
	}
	v, err := bitlocker.Open(img, bitlocker.VolumeKey(key), &bitlocker.Options{ReadOnly: true})
	if err != nil {
		return err
	}
	defer v.Close()
	out, err := os.OpenFile(output, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	size := v.Size()
	workers := int(min(int64(min(runtime.GOMAXPROCS(0), 4)), (size+chunk-1)/chunk))
	var next atomic.Int64
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			buf := make([]byte, chunk)
			for {
				off := next.Add(chunk) - chunk
				if off >= size {
					return
				}
				b := buf[:min(chunk, size-off)]
				if n, err := v.ReadAt(b, off); n < len(b) {
					if err == nil {
						err = io.ErrUnexpectedEOF
					}
					errs[w] = err
					return
				}
				if _, err := out.WriteAt(b, off); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			out.Close()
			return err
		}
	}
	return out.Close()
}
