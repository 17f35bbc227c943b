package main

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
)

// Exit statuses, as cryptsetup documents them; a signal gives 128 + its
// number (see interruptedError).
const (
	exitOK          = 0
	exitUsage       = 1 // wrong parameters (a usage error, a bad key file)
	exitFailure     = 1 // any other failure (a read or write error)
	exitPermission  = 2 // no permission, or a bad passphrase
	exitNoMemory    = 3 // out of memory
	exitWrongDevice = 4 // wrong device or file specified
	exitBusy        = 5 // the device or file already exists, or is busy
)

// exitHelp is the exit-status section of every --help.
const exitHelp = `Exit status (as cryptsetup's): 0 success, 1 wrong parameters or failure,
2 no permission or bad passphrase, 3 out of memory, 4 wrong device or file
specified, 5 output already exists or busy, 128+N killed by signal N
(130 SIGINT, 129 SIGHUP, 131 SIGQUIT, 143 SIGTERM) with no output left.
`

// exitError is an error with the exit status it should give.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// exitErr gives err the exit status code.
func exitErr(code int, err error) error {
	if err == nil {
		return nil
	}
	return &exitError{code, err}
}

// exitErrorf is fmt.Errorf (with %w) whose result gives exit status code.
func exitErrorf(code int, format string, a ...any) error {
	return &exitError{code, fmt.Errorf(format, a...)}
}

// exitCode maps err to the exit status: a signal's 128+n, an explicit
// exitError, a usage error's 1, else by the system error inside, else 1.
func exitCode(err error) int {
	var ie *interruptedError
	var ee *exitError
	var ue *usageError
	switch {
	case err == nil, errors.Is(err, errHelpShown):
		return exitOK
	case errors.As(err, &ie):
		return ie.exitCode()
	case errors.As(err, &ee):
		return ee.code
	case errors.As(err, &ue):
		return exitUsage
	case errors.Is(err, fs.ErrPermission):
		return exitPermission
	case errors.Is(err, syscall.ENOMEM):
		return exitNoMemory
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENODEV), errors.Is(err, syscall.ENXIO),
		errors.Is(err, syscall.EISDIR), errors.Is(err, syscall.ENOTDIR):
		return exitWrongDevice
	case errors.Is(err, fs.ErrExist), errors.Is(err, syscall.EBUSY):
		return exitBusy
	}
	return exitFailure
}
