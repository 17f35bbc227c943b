//go:build unix

package main

import (
	"errors"
	"github.com/fastxts/xts/cmd/xts/internal/exit"
	"os"
	"syscall"
)

// lockImage takes an advisory lock on the image being served: exclusive
// for reading and writing, shared for --readonly, so that a second xts
// serve or xts luks serve of the same image cannot write beside this one
// (their read-modify-writes of partial sectors would lose updates). The
// lock goes with the file's close. File systems without locks serve
// unlocked.
func lockImage(f *os.File, write bool) error {
	how := syscall.LOCK_SH
	if write {
		how = syscall.LOCK_EX
	}
	err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
	switch {
	case err == nil, errors.Is(err, syscall.ENOLCK), errors.Is(err, syscall.EOPNOTSUPP), errors.Is(err, syscall.EINVAL):
		return nil
	case errors.Is(err, syscall.EWOULDBLOCK):
		return exit.Errorf(exitBusy, "%s is being served by another process (xts serve or xts luks serve)", f.Name())
	}
	return err
}
