package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// Signals that abort a command: Ctrl-C, kill, a closed terminal or ssh
// session, Ctrl-\.
var abortSignals = []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// signalGuard catches the abort signals for the life of one command. The
// first cancels ctx, and from then on the output is never committed; a
// second, while the command is still finishing (a final fsync can take
// minutes on a device), removes any temporary file and exits at once with
// 128 + its number. SIGPIPE is caught too, so that a closed pipe on
// standard output is a write error with a message, not a silent death.
type signalGuard struct {
	ctx    context.Context // cancelled by the first signal
	cancel context.CancelFunc
	stderr io.Writer
	cmd    string // "encrypt", "luks decrypt": names the command in messages
	exit   func(code int)

	ch, pipe chan os.Signal
	done     chan struct{}
	barrier  chan struct{} // the loop saw barrierSignal (see drain)

	mu        sync.Mutex
	sig       syscall.Signal // the first signal; 0 until one comes
	out       *output        // the output being committed, for the second signal's message
	committed bool           // past the point of no return (a commit began linking): signals no longer matter
}

// watchSignals starts catching signals for command cmd (as it is named in
// messages); messages for a second signal go to stderr. Call stop when the
// command returns.
func watchSignals(stderr io.Writer, cmd string) *signalGuard {
	ctx, cancel := context.WithCancel(context.Background())
	g := &signalGuard{
		ctx: ctx, cancel: cancel, stderr: stderr, cmd: cmd, exit: os.Exit,
		ch: make(chan os.Signal, 4), pipe: make(chan os.Signal, 1), done: make(chan struct{}),
		barrier: make(chan struct{}, 1),
	}
	signal.Notify(g.ch, abortSignals...)
	if barrierSignal != nil {
		signal.Notify(g.ch, barrierSignal)
	}
	signal.Notify(g.pipe, syscall.SIGPIPE)
	go g.loop()
	return g
}

// stop restores the default signal handling.
func (g *signalGuard) stop() {
	signal.Stop(g.ch)
	signal.Stop(g.pipe)
	close(g.done)
	g.cancel()
}

func (g *signalGuard) loop() {
	for {
		select {
		case s := <-g.ch:
			if s == barrierSignal {
				select {
				case g.barrier <- struct{}{}:
				default:
				}
				continue
			}
			g.received(s.(syscall.Signal))
		case <-g.pipe: // the write that hit the closed pipe reports it
		case <-g.done:
			return
		}
	}
}

func (g *signalGuard) received(s syscall.Signal) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.committed {
		return
	}
	if g.sig == 0 {
		g.sig = s
		g.cancel()
		return
	}
	// The second signal: the user means it.
	removeTemps()
	out := g.out
	if out == nil {
		out = current.Load()
	}
	ie := newInterrupted(s, out)
	fmt.Fprintf(g.stderr, "xts %s: %s (a second signal while finishing)\n", g.cmd, ie)
	g.exit(ie.exitCode())
}

// signal returns the first signal received, or 0.
func (g *signalGuard) signal() syscall.Signal {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.sig
}

// abort discards out after err and returns the error to report: an
// *interruptedError if a signal came, else err, saying how many bytes
// already went to standard output, if any did (a file output leaves
// nothing).
func (g *signalGuard) abort(out *output, err error) error {
	out.abort()
	if s := g.signal(); s != 0 {
		return newInterrupted(s, out)
	}
	if err != nil && out != nil && out.f == nil {
		if n := out.bytesWritten(); n > 0 {
			return fmt.Errorf("%w; %d bytes of output already went to standard output", err, n)
		}
	}
	return err
}

// commit flushes the outputs to disk and links them into place, unless a
// signal came first (before the links, however late): then they are all
// discarded and the error is an *interruptedError. Any failure discards
// the outputs not yet linked. Once the links begin the command is past
// the point of no return: later signals are ignored, so that a command
// that commits its outputs in several calls (an image, then its detached
// header) finishes them all; give them to one call where possible.
func (g *signalGuard) commit(outs ...*output) error {
	g.mu.Lock()
	if g.out == nil || g.out.f != nil {
		for _, o := range outs {
			if g.out == nil || o.f == nil {
				g.out = o // the second signal's message: standard output if any
			}
		}
	}
	g.mu.Unlock()
	abortAll := func(outs []*output) {
		for _, o := range outs {
			o.abort()
		}
	}
	for _, o := range outs {
		if err := o.sync(); err != nil {
			abortAll(outs)
			return g.abort(o, err)
		}
	}
	g.drain()
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.sig != 0 && !g.committed {
		abortAll(outs)
		return newInterrupted(g.sig, g.out)
	}
	g.committed = true
	for i, o := range outs {
		if err := o.link(); err != nil {
			abortAll(outs[i:])
			return err
		}
	}
	return nil
}

// drain returns once every abort signal sent to this process before the
// call has reached received. Ctrl-C reaches a pipeline's processes
// together: the producer dies, and this command may read the end of its
// input, and get here, before the runtime has handed its own SIGINT on.
// So it sends itself barrierSignal and waits for it to come through the
// same channel: the kernel delivers pending standard signals lowest
// number first (SIGHUP, SIGINT, SIGQUIT and SIGTERM are all below
// SIGWINCH), and os/signal and the loop keep their order. It gives up
// after a second (no such signal here, or it was lost).
func (g *signalGuard) drain() {
	if barrierSignal == nil {
		return
	}
	select {
	case <-g.barrier: // a stale one, from a terminal resize
	default:
	}
	if err := signalSelf(barrierSignal); err != nil {
		return
	}
	select {
	case <-g.barrier:
	case <-time.After(time.Second):
	}
}

// interruptedError is a command stopped by a signal. Its exit status is
// 128 + the signal number, as a shell reports a process killed by it.
type interruptedError struct {
	sig         syscall.Signal
	toStdout    bool  // the output was standard output
	stdoutBytes int64 // bytes that already went there
	pending     int64 // bytes of a write in progress (a second signal can come during one)
}

func newInterrupted(s syscall.Signal, out *output) *interruptedError {
	ie := &interruptedError{sig: s}
	if out != nil && out.f == nil {
		ie.toStdout, ie.stdoutBytes, ie.pending = true, out.bytesWritten(), out.pending.Load()
	}
	return ie
}

func (e *interruptedError) Error() string {
	name := signalName(e.sig)
	switch {
	case e.pending > 0:
		return fmt.Sprintf("interrupted by %s; partial output already went to standard output (%d to %d bytes)", name, e.stdoutBytes, e.stdoutBytes+e.pending)
	case e.stdoutBytes > 0:
		return fmt.Sprintf("interrupted by %s; %d bytes of partial output already went to standard output", name, e.stdoutBytes)
	case e.toStdout:
		return fmt.Sprintf("interrupted by %s; nothing was written to standard output", name)
	default:
		return fmt.Sprintf("interrupted by %s; no output written", name)
	}
}

func (e *interruptedError) exitCode() int { return 128 + int(e.sig) }

func signalName(s syscall.Signal) string {
	switch s {
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGQUIT:
		return "SIGQUIT"
	}
	return fmt.Sprintf("signal %d", int(s))
}

// errNoUnnamed: unnamed files (O_TMPFILE) are not available here.
var errNoUnnamed = errors.New("unnamed files are not supported here")

// temps holds the names of temporary files that exist now, so that a
// second signal, which exits at once, removes them.
var temps struct {
	sync.Mutex
	names map[string]bool
}

func registerTemp(name string) {
	temps.Lock()
	defer temps.Unlock()
	if temps.names == nil {
		temps.names = map[string]bool{}
	}
	temps.names[name] = true
}

func unregisterTemp(name string) {
	temps.Lock()
	defer temps.Unlock()
	delete(temps.names, name)
}

func removeTemps() {
	temps.Lock()
	defer temps.Unlock()
	for name := range temps.names {
		os.Remove(name)
		delete(temps.names, name)
	}
}
