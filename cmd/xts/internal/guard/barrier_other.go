//go:build !unix

package guard

import (
	"errors"
	"os"
)

// barrierSignal is nil here: Guard.drain has no signal to send itself.
var barrierSignal os.Signal

func signalSelf(os.Signal) error { return errors.New("no signals to send oneself here") }
