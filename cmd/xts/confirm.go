package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/fastxts/xts/cmd/xts/internal/exit"
)

// askYES asks cryptsetup's question after warning (both on standard
// output, as cryptsetup writes them) and reads the answer from the
// terminal, or as the next line of standard input when that is not one.
// It reports whether the answer was YES.
func askYES(e *env, warning string) (bool, error) {
	fmt.Fprintf(e.stdout, "\nWARNING!\n========\n%s\n\nAre you sure? (Type 'yes' in capital letters): ", warning)
	if e.lines == nil {
		e.lines = bufio.NewReader(e.stdin)
	}
	answer, err := e.lines.ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return false, fmt.Errorf("reading the answer: %w", err)
	}
	if f, ok := e.stdin.(*os.File); !ok || !isTerminal(f) {
		fmt.Fprintln(e.stdout) // where the terminal would have echoed the newline
	}
	return strings.TrimSuffix(answer, "\n") == "YES", nil
}

// confirmOnTerminal asks as cryptsetup's header verbs do: only on a
// terminal and without -q (with standard input not a terminal,
// cryptsetup goes ahead too). It reports whether to go on.
func confirmOnTerminal(e *env, batch bool, warning string) (bool, error) {
	f, ok := e.stdin.(*os.File)
	if batch || !ok || !isTerminal(f) {
		return true, nil
	}
	return askYES(e, warning)
}

// confirmOrAbort asks before a keyslot is destroyed (the last one, or
// all): anything but YES, an empty input too, aborts with exit 2 and
// aborted, as cryptsetup exits.
func confirmOrAbort(e *env, warning, aborted string) error {
	ok, err := askYES(e, warning)
	if err != nil {
		return err
	}
	if !ok {
		return exit.Errorf(exitPermission, "%s", aborted)
	}
	return nil
}
