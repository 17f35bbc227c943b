package main

import (
	"io"
	"os"

	"golang.org/x/term"
)

// terminalWidth returns the width of w if it is a terminal, or 0 if w is
// not one: progress output is drawn only on terminals, never into files,
// pipes or test buffers. The width is the terminal's, however narrow: the
// progress line cuts itself down to fit.
func terminalWidth(w io.Writer) int {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return 0
	}
	width, _, err := term.GetSize(int(f.Fd()))
	if err != nil || width <= 0 {
		return 80 // a terminal that does not say: the classic width
	}
	return width
}
