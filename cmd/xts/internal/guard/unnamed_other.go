//go:build !linux

package guard

import (
	"errors"
	"os"
)

// openUnnamed: only Linux has O_TMPFILE; elsewhere the output goes to a
// hidden temporary file that Abort, Stop and every caught signal remove.
func openUnnamed(string) (*os.File, error) { return nil, errNoUnnamed }

func linkUnnamed(*os.File, string) error { return errors.ErrUnsupported }
