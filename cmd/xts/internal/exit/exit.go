// Package exit holds the exit statuses of the xts command, which are
// cryptsetup's, and the errors that carry them.
//
// A command returns an error; Code maps it to the status the process
// exits with: an error that says its own code (an *Error, or any error
// with an ExitCode method, such as a signal's 128 + N), else one chosen
// by the system error inside, else Failure.
package exit

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
)

// Exit statuses, as cryptsetup documents them; a signal gives 128 + its
// number.
const (
	OK          = 0
	Usage       = 1 // wrong parameters (a usage error, a bad key file)
	Failure     = 1 // any other failure (a read or write error)
	Permission  = 2 // no permission, or a bad passphrase
	NoMemory    = 3 // out of memory
	WrongDevice = 4 // wrong device or file specified
	Busy        = 5 // the device or file already exists, or is busy
)

// Error is an error with the exit status it should give.
type Error struct {
	Code int
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// ExitCode is the status the error gives.
func (e *Error) ExitCode() int { return e.Code }

// With gives err the exit status code; a nil err stays nil.
func With(code int, err error) error {
	if err == nil {
		return nil
	}
	return &Error{code, err}
}

// Errorf is fmt.Errorf (with %w) whose result gives exit status code.
func Errorf(code int, format string, a ...any) error {
	return &Error{code, fmt.Errorf(format, a...)}
}

// Code maps err to the exit status: OK for nil, the code of the first
// error in the chain that has an ExitCode method, else by the system
// error inside, else Failure.
func Code(err error) int {
	var coded interface{ ExitCode() int }
	switch {
	case err == nil:
		return OK
	case errors.As(err, &coded):
		return coded.ExitCode()
	case errors.Is(err, fs.ErrPermission):
		return Permission
	case errors.Is(err, syscall.ENOMEM):
		return NoMemory
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENODEV), errors.Is(err, syscall.ENXIO),
		errors.Is(err, syscall.EISDIR), errors.Is(err, syscall.ENOTDIR):
		return WrongDevice
	case errors.Is(err, fs.ErrExist), errors.Is(err, syscall.EBUSY):
		return Busy
	}
	return Failure
}
