// Command xts benchmarks this package's AES-XTS implementations, reports
// what the CPU offers, and encrypts or decrypts disk images exactly as
// dm-crypt's plain mode does.
//
//	xts bench   [flags]            throughput table with the CPU's AES-round bound
//	xts info                       CPU features and implementations
//	xts encrypt [flags] IN OUT     dm-crypt plain-mode image encryption
//	xts decrypt [flags] IN OUT     and decryption
//
// Exit status: 0 success, 1 failure, 2 usage error.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Exit statuses.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

const topUsage = `xts: AES-XTS benchmarks, CPU report and dm-crypt plain-mode image encryption

Usage:
  xts bench   [flags]                             throughput table (MB/s) and share of the AES-round bound
  xts info                                        CPU features and the implementations available
  xts encrypt --key-file FILE [flags] INPUT OUTPUT
  xts decrypt --key-file FILE [flags] INPUT OUTPUT

Run 'xts COMMAND --help' for the flags of a command.
Exit status: 0 success, 1 failure, 2 usage error.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// env is what a command may touch: its standard streams. Tests run
// commands in-process with buffers in place of the files.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// run executes one command line and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		fmt.Fprint(stderr, topUsage)
		return exitUsage
	}
	var err error
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "bench":
		err = runBench(e, rest)
	case "info":
		err = runInfo(e, rest)
	case "encrypt":
		err = runCrypt(e, rest, true)
	case "decrypt":
		err = runCrypt(e, rest, false)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, topUsage)
		return exitOK
	default:
		fmt.Fprintf(stderr, "xts: unknown command %q\n\n%s", cmd, topUsage)
		return exitUsage
	}
	return report(stderr, cmd, err)
}

// usageError marks a mistake on the command line (exit status 2).
type usageError struct{ msg string }

func (u *usageError) Error() string { return u.msg }

func usagef(format string, a ...any) error {
	return &usageError{fmt.Sprintf(format, a...)}
}

// errHelpShown means --help printed the usage: success, nothing more to say.
var errHelpShown = errors.New("help shown")

// report prints err as one line naming the command and maps it to an exit
// status.
func report(stderr io.Writer, cmd string, err error) int {
	var u *usageError
	switch {
	case err == nil, errors.Is(err, errHelpShown):
		return exitOK
	case errors.As(err, &u):
		fmt.Fprintf(stderr, "xts %s: %s (see 'xts %s --help')\n", cmd, u.msg, cmd)
		return exitUsage
	default:
		fmt.Fprintf(stderr, "xts %s: %s\n", cmd, err)
		return exitFailure
	}
}
