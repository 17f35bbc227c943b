// Command xts benchmarks this package's AES-XTS implementations, reports
// what the CPU offers, and encrypts or decrypts disk images exactly as
// dm-crypt's plain mode does, and opens, reads and makes LUKS1/LUKS2
// images.
//
//	xts bench   [flags]            throughput table with the CPU's AES-round bound
//	xts info                       CPU features and implementations
//	xts encrypt [flags] IN OUT     dm-crypt plain-mode image encryption
//	xts decrypt [flags] IN OUT     and decryption
//	xts luks dump|decrypt|encrypt|add-key|reencrypt|... LUKS images without root
//	xts help [COMMAND]             usage
//	xts --version                  module version from the build info
//
// Exit status as cryptsetup's: 0 success, 1 wrong parameters or failure,
// 2 no permission, 3 out of memory, 4 wrong device or file, 5 exists or
// busy, 128+N after signal N.
//
// Each command's file parses its flags and glues together the plumbing
// in cmd/xts/internal: guard (outputs that appear only when complete,
// and the signals that abort a command), pump (the one streaming
// engine), input, progress and exit (see README.md).
package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/fastxts/xts/cmd/xts/internal/guard"
)

const topUsage = `xts: AES-XTS benchmarks, CPU report and dm-crypt plain-mode image encryption

Usage:
  xts bench   [flags]                             throughput table (MB/s) and share of the AES-round bound
  xts info                                        CPU features and the implementations available
  xts encrypt -d KEYFILE [flags] INPUT OUTPUT     dm-crypt plain-mode encryption (cryptsetup's flags)
  xts decrypt -d KEYFILE [flags] INPUT OUTPUT     and decryption
  xts serve -d KEYFILE [flags] (--socket P|--listen A) IMAGE   a plain-mode image's plaintext over NBD
  xts luks COMMAND [flags] ...                    LUKS1/LUKS2 images without root, cryptsetup's verbs and flags:
                                                  dump, decrypt, encrypt, keys, headers, convert, reencrypt,
                                                  serve, mount ('xts luks --help' lists them)
  xts tcrypt|bitlk|fvault2 COMMAND [flags] ...    VeraCrypt/TrueCrypt, BitLocker, FileVault 2 images without root:
                                                  dump, decrypt, serve, mount (and tcrypt create, change-key)
  xts dump [--type T] IMAGE                       the header of any image (the type detected when it has one)
  xts serve|mount --type T [flags] IMAGE ...      serve or mount an image of any type (T: luks, tcrypt, bitlk,
                                                  fvault2; serve's default is plain)
  xts help [COMMAND]                              this text, or a command's flags
  xts --version                                   the module version this binary was built from

Run 'xts help COMMAND' or 'xts COMMAND --help' for the flags of a command.

` + exitHelp

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// env is what a command may touch: its standard streams, and the few
// settings tests change. Tests run commands in-process with buffers in
// place of the files.
type env struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	// Set by tests; the zero values are the command's own.
	chunkSize int                  // plain mode's chunk; 0: defaultChunkSize
	sync      func(*os.File) error // flushes outputs to disk; nil: (*os.File).Sync

	lines *bufio.Reader // stdin, buffered once a passphrase line is read from it
}

// run executes one command line and returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return (&env{stdin: stdin, stdout: stdout, stderr: stderr}).run(args)
}

// guard starts catching signals for command cmd (as messages name it);
// the outputs it creates are flushed by e.sync.
func (e *env) guard(cmd string) *guard.Guard {
	return guard.Start(guard.Config{Stderr: e.stderr, Command: cmd, Sync: e.sync})
}

// run executes one command line and returns the exit status.
func (e *env) run(args []string) int {
	stdout, stderr := e.stdout, e.stderr
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
	case "luks":
		cmd, err = runLUKS(e, rest)
	case "tcrypt", "bitlk", "fvault2":
		if f := formatByName(cmd); f != nil {
			cmd, err = runFormat(e, f, rest)
		} else {
			err = usagef("xts %s: not in this build", cmd)
		}
	case "serve", "mount", "dump":
		var f *volumeFormat
		if f, rest, err = typeFlag(rest); err != nil {
			break
		}
		switch {
		case f != nil:
			cmd, err = runFormat(e, f, append([]string{cmd}, rest...))
		case cmd == "serve":
			err = runServe(e, rest)
		case cmd == "dump":
			if f, err = detectedFormat(rest); err == nil {
				cmd, err = runFormat(e, f, append([]string{cmd}, rest...))
			}
		default:
			err = usagef("xts %s needs --type: %s", cmd, formatNames())
		}
	case "help", "-h", "-help", "--help":
		if len(rest) > 0 && cmd == "help" {
			// xts help CMD [SUBCMD] is xts CMD [SUBCMD] --help.
			return e.run(append(rest[:len(rest):len(rest)], "--help"))
		}
		fmt.Fprint(stdout, topUsage)
		return exitOK
	case "version", "-version", "--version":
		fmt.Fprint(stdout, versionText())
		return exitOK
	default:
		fmt.Fprintf(stderr, "xts: unknown command %q\n\n%s", cmd, topUsage)
		return exitUsage
	}
	return report(stderr, cmd, err)
}

// usageError marks a mistake on the command line (exit status 1, wrong
// parameters).
type usageError struct{ msg string }

func (u *usageError) Error() string { return u.msg }
func (u *usageError) ExitCode() int { return exitUsage }

func usagef(format string, a ...any) error {
	return &usageError{fmt.Sprintf(format, a...)}
}

// errHelpShown means --help printed the usage: success, nothing more to say.
var errHelpShown = errors.New("help shown")

// report prints err as one line naming the command and returns its exit
// status (see exitCode).
func report(stderr io.Writer, cmd string, err error) int {
	code := exitCode(err)
	if code == exitOK {
		return code
	}
	var u *usageError
	if errors.As(err, &u) {
		fmt.Fprintf(stderr, "xts %s: %s (see 'xts help %s')\n", cmd, cleanMessage(u.msg), cmd)
	} else {
		fmt.Fprintf(stderr, "xts %s: %s\n", cmd, cleanMessage(err.Error()))
	}
	return code
}

// cleanMessage drops the "xts: " that errors of the xts package start
// with: the line already begins with "xts COMMAND: ".
func cleanMessage(msg string) string {
	msg = strings.TrimPrefix(msg, "xts: ")
	return strings.ReplaceAll(msg, ": xts: ", ": ")
}

// versionText is what --version prints: the module version from the
// build info ("(devel)" for a build inside the source tree), the VCS
// revision when the build recorded one, and the Go version.
func versionText() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "xts (no build information) " + runtime.Version() + "\n"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	s := fmt.Sprintf("xts %s %s", bi.Main.Path, v)
	for _, kv := range bi.Settings {
		switch kv.Key {
		case "vcs.revision":
			s += " " + kv.Value
		case "vcs.modified":
			if kv.Value == "true" {
				s += " (modified)"
			}
		}
	}
	return s + " " + bi.GoVersion + " " + runtime.GOOS + "/" + runtime.GOARCH + "\n"
}
