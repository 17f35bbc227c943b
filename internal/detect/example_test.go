package detect_test

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/fastxts/xts/internal/detect"
)

func ExampleDetect() {
	hdr := make([]byte, 4096)
	copy(hdr, "LUKS\xba\xbe\x00\x02") // a LUKS2 header's first bytes
	f, err := detect.Detect(bytes.NewReader(hdr))
	fmt.Println(f, err)

	_, err = detect.Detect(bytes.NewReader(make([]byte, 4096)))
	fmt.Println(errors.Is(err, detect.ErrUnknown))
	// Output:
	// luks2 <nil>
	// true
}
