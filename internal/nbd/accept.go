package nbd

import (
	"errors"
	"syscall"
)

// acceptRetry reports whether Serve should pause and accept again after
// err rather than return it: a timeout, a shortage of resources (file
// descriptors, socket buffers, memory: they come back as connections
// close) or an error that concerns only the connection being accepted
// (it died in the queue). Anything else, a closed or broken listener,
// ends Serve.
func acceptRetry(err error) bool {
	if isTimeout(err) {
		return true
	}
	for _, e := range []syscall.Errno{
		syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM,
		syscall.ECONNABORTED, syscall.ECONNRESET, syscall.EPROTO, syscall.EPERM,
		syscall.EAGAIN, syscall.EINTR,
	} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
