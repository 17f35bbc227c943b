package progress

import (
	"strings"
	"testing"
	"time"
)

// TestProgressLineFits: whatever the numbers, the line is at most width-1
// columns for every terminal width from 20 up, so it never wraps, and it
// keeps the most useful part (the percentage) on narrow terminals.
func TestProgressLineFits(t *testing.T) {
	const tb = int64(1e12)
	states := []struct {
		done, total int64
		elapsed     time.Duration
	}{
		{0, 1 << 30, 0},
		{1 << 29, 1 << 30, time.Second},
		{1, 999 * tb, 1000 * time.Hour}, // ETA of years: the longest duration
		{999 * tb, 999 * tb, time.Millisecond},
		{123456789, -1, 3 * time.Second}, // a pipe: no total
		{999 * tb, -1, time.Nanosecond},
	}
	for _, label := range []string{"encrypting", "decrypting"} {
		for _, s := range states {
			p := &Bar{label: label, total: s.total}
			for width := 20; width <= 250; width++ {
				line := p.line(s.done, s.elapsed, width)
				if len(line) > width-1 {
					t.Fatalf("width %d: line of %d columns: %q", width, len(line), line)
				}
				if s.total > 0 && !strings.Contains(line, "%") {
					t.Errorf("width %d: no percentage in %q", width, line)
				}
				if width >= 100 && s.total > 0 && !strings.Contains(line, "[") {
					t.Errorf("width %d: no bar in %q", width, line)
				}
			}
		}
	}
}
