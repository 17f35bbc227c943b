package main

import (
	"io"

	"github.com/fastxts/xts/cmd/xts/internal/progress"
)

// terminalWidth returns the width of w if it is a terminal, or 0 if w is
// not one (see progress.TerminalWidth): status lines are drawn only on
// terminals.
func terminalWidth(w io.Writer) int { return progress.TerminalWidth(w) }
