package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// progressBar draws one status line on a terminal, redrawn a few times a
// second from its own goroutine: a bar when the total is known, the bytes
// done, the average rate and the time left. Nil (not a terminal) is a
// valid progressBar that does nothing.
type progressBar struct {
	w      io.Writer
	width  int
	label  string
	total  int64 // bytes expected, or -1 when unknown (a pipe)
	start  time.Time
	done   atomic.Int64
	stop   chan struct{}
	exited sync.WaitGroup
}

// newProgressBar starts a bar on w, or returns nil if w is not a terminal.
func newProgressBar(w io.Writer, label string, total int64) *progressBar {
	width := terminalWidth(w)
	if width == 0 {
		return nil
	}
	p := &progressBar{w: w, width: width, label: label, total: total, start: time.Now(), stop: make(chan struct{})}
	p.exited.Add(1)
	go p.loop()
	return p
}

func (p *progressBar) add(n int64) {
	if p != nil {
		p.done.Add(n)
	}
}

// finish stops redrawing and erases the line, leaving the terminal clean
// for the final message.
func (p *progressBar) finish() {
	if p == nil {
		return
	}
	close(p.stop)
	p.exited.Wait()
	fmt.Fprint(p.w, "\r\x1b[K")
}

func (p *progressBar) loop() {
	defer p.exited.Done()
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			fmt.Fprint(p.w, "\r"+p.line(p.done.Load(), time.Since(p.start))+"\x1b[K")
		}
	}
}

// line renders the status for done bytes after elapsed time.
func (p *progressBar) line(done int64, elapsed time.Duration) string {
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(done) / s
	}
	stats := fmt.Sprintf(" %s  %s/s", humanBytes(done), humanBytes(int64(rate)))
	if p.total <= 0 {
		return p.label + stats
	}
	frac := min(float64(done)/float64(p.total), 1)
	eta := "--:--"
	if rate > 0 {
		eta = humanDuration(time.Duration(float64(p.total-done) / rate * float64(time.Second)))
	}
	stats = fmt.Sprintf(" %3.0f%% %s / %s  %s/s  ETA %s", 100*frac, humanBytes(done), humanBytes(p.total), humanBytes(int64(rate)), eta)
	barWidth := p.width - len(p.label) - len(stats) - 4
	if barWidth < 10 {
		return p.label + stats
	}
	filled := int(frac * float64(barWidth))
	return p.label + " [" + strings.Repeat("=", filled) + strings.Repeat(" ", barWidth-filled) + "]" + stats
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
