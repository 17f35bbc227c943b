package main

import (
	"errors"

	"github.com/fastxts/xts/cmd/xts/internal/exit"
)

// Exit statuses, as cryptsetup documents them (package exit); a signal
// gives 128 + its number (guard.Interrupted).
const (
	exitOK          = exit.OK
	exitUsage       = exit.Usage       // wrong parameters (a usage error, a bad key file)
	exitFailure     = exit.Failure     // any other failure (a read or write error)
	exitPermission  = exit.Permission  // no permission, or a bad passphrase
	exitNoMemory    = exit.NoMemory    // out of memory
	exitWrongDevice = exit.WrongDevice // wrong device or file specified
	exitBusy        = exit.Busy        // the device or file already exists, or is busy
)

// exitHelp is the exit-status section of every --help.
const exitHelp = `Exit status (as cryptsetup's): 0 success, 1 wrong parameters or failure,
2 no permission or bad passphrase, 3 out of memory, 4 wrong device or file
specified, 5 output already exists or busy, 128+N killed by signal N
(130 SIGINT, 129 SIGHUP, 131 SIGQUIT, 143 SIGTERM) with no output left.
`

// exitCode maps err to the exit status: 0 after --help, else as
// exit.Code does (a signal's 128+n, an explicit status, a usage error's
// 1, else by the system error inside, else 1).
func exitCode(err error) int {
	if errors.Is(err, errHelpShown) {
		return exitOK
	}
	return exit.Code(err)
}
