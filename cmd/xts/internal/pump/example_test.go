package pump_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/fastxts/xts/cmd/xts/internal/pump"
)

// A stream pumped in 4-byte chunks through a transform on three workers:
// the chunks are transformed in any order and written in order.
func Example() {
	in := strings.NewReader("chunks come out in the order they went in")
	var out bytes.Buffer
	p := &pump.Pump{
		Size:      -1, // a stream: read until a short chunk
		ChunkSize: 4,
		Buffers:   8,
		Workers:   3,
		Read: func(buf []byte, _ int64) (int, error) {
			n, err := io.ReadFull(in, buf)
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				err = nil // the end: a short chunk says so
			}
			return n, err
		},
		Transform: func(buf []byte, _ int64) error {
			copy(buf, bytes.ToUpper(buf))
			return nil
		},
		W: &out,
	}
	n, err := p.Run(context.Background())
	fmt.Println(n, err)
	fmt.Println(out.String())
	// Output:
	// 41 <nil>
	// CHUNKS COME OUT IN THE ORDER THEY WENT IN
}
