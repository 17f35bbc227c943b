//go:build !unix

package progress

import "os"

// notifyResize: no SIGWINCH here; the width read at the start stays.
func notifyResize(chan<- os.Signal) {}
