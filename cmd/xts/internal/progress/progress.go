// Package progress draws the xts command's status line on a terminal:
// a bar, the bytes done, the rate and the time left, cut down to fit the
// terminal and redrawn when it is resized. Nothing is drawn where the
// output is not a terminal (a file, a pipe, a test's buffer).
package progress

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"
)

// Bar draws one status line on a terminal, redrawn a few times a
// second from its own goroutine: a bar when the total is known, the bytes
// done, the average rate and the time left. The line never wraps: it is
// cut down to fit the terminal's width (re-read on SIGWINCH), dropping
// the bar, then the byte counts, then the label, down to "45% ETA 1:23"
// on the narrowest terminals. Nil (not a terminal) is a valid
// Bar that does nothing.
type Bar struct {
	w      io.Writer
	width  atomic.Int64 // the terminal's columns, updated on SIGWINCH
	label  string
	total  int64 // bytes expected, or -1 when unknown (a pipe)
	start  time.Time
	done   atomic.Int64
	stop   chan struct{}
	exited sync.WaitGroup
}

// New starts a bar labelled label ("encrypting") for total bytes (-1
// when unknown: a pipe) on w, or returns nil if w is not a terminal.
func New(w io.Writer, label string, total int64) *Bar {
	width := TerminalWidth(w)
	if width == 0 {
		return nil
	}
	p := &Bar{w: w, label: label, total: total, start: time.Now(), stop: make(chan struct{})}
	p.width.Store(int64(width))
	resized := make(chan os.Signal, 1)
	notifyResize(resized)
	p.exited.Add(1)
	go p.loop(resized)
	return p
}

// Add counts n more bytes done.
func (p *Bar) Add(n int64) {
	if p != nil {
		p.done.Add(n)
	}
}

// finish stops redrawing and erases the line, leaving the terminal clean
// for the final message.
func (p *Bar) Finish() {
	if p == nil {
		return
	}
	close(p.stop)
	p.exited.Wait()
	fmt.Fprint(p.w, "\r\x1b[K")
}

func (p *Bar) loop(resized chan os.Signal) {
	defer p.exited.Done()
	defer signal.Stop(resized)
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-resized:
			if w := TerminalWidth(p.w); w > 0 {
				p.width.Store(int64(w))
			}
		case <-t.C:
		}
		line := p.line(p.done.Load(), time.Since(p.start), int(p.width.Load()))
		fmt.Fprint(p.w, "\r"+line+"\x1b[K")
	}
}

// line renders the status for done bytes after elapsed time, at most
// width-1 columns wide (a character in the last column makes some
// terminals wrap): the most detailed form that fits.
func (p *Bar) line(done int64, elapsed time.Duration, width int) string {
	limit := width - 1
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(done) / s
	}
	speed := humanBytes(int64(rate)) + "/s"
	var forms []string
	if p.total <= 0 {
		forms = []string{
			p.label + " " + humanBytes(done) + "  " + speed,
			humanBytes(done) + " " + speed,
			humanBytes(done),
		}
	} else {
		frac := min(float64(done)/float64(p.total), 1)
		eta := "--:--"
		if rate > 0 {
			eta = humanDuration(time.Duration(float64(p.total-done) / rate * float64(time.Second)))
		}
		pct := fmt.Sprintf("%3.0f%%", 100*frac)
		stats := fmt.Sprintf(" %s %s / %s  %s  ETA %s", pct, humanBytes(done), humanBytes(p.total), speed, eta)
		if bar := limit - len(p.label) - len(stats) - 3; bar >= 10 {
			filled := int(frac * float64(bar))
			forms = append(forms, p.label+" ["+strings.Repeat("=", filled)+strings.Repeat(" ", bar-filled)+"]"+stats)
		}
		forms = append(forms,
			p.label+stats,
			p.label+" "+pct+"  "+speed+"  ETA "+eta,
			pct+" "+speed+" ETA "+eta,
			pct+" ETA "+eta,
			pct,
		)
	}
	for _, f := range forms {
		if len(f) <= limit {
			return f
		}
	}
	return forms[len(forms)-1][:max(limit, 0)]
}

// humanBytes formats n with a decimal (SI) unit, as MB/s is in this tool.
func humanBytes(n int64) string {
	const units = "kMGTPE"
	if n < 1000 {
		return fmt.Sprintf("%d B", n)
	}
	f := float64(n)
	i := -1
	for f >= 1000 && i < len(units)-1 {
		f /= 1000
		i++
	}
	return fmt.Sprintf("%.1f %cB", f, units[i])
}

func humanDuration(d time.Duration) string {
	s := int64(d.Round(time.Second).Seconds())
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// TerminalWidth returns the width of w if it is a terminal, or 0 if w is
// not one: progress output is drawn only on terminals, never into files,
// pipes or test buffers. The width is the terminal's, however narrow: the
// progress line cuts itself down to fit.
func TerminalWidth(w io.Writer) int {
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
