// Package guard is how the xts command writes what it makes, so that
// nothing is ever lost or left behind: a Guard catches the signals that
// abort a command and owns the command's outputs.
//
//	g := guard.Start(guard.Config{Stderr: stderr, Command: "encrypt"}) // first thing
//	defer g.Stop()                                  // discards any output not committed
//	out, err := g.Create(guard.Spec{Path: path, Force: force, Input: inInfo, Stdout: stdout})
//	if err != nil {
//		return err                              // already carries its exit status
//	}
//	if err := work(g.Context(), out); err != nil { // out is an io.Writer; the context ends on a signal
//		return g.Abort(err)                     // discards the outputs; a signal's error wins
//	}
//	return g.Commit()                               // flush, then link into place unless a signal came first
//
// A file output has no name until Commit: on Linux it is an unnamed
// file (O_TMPFILE) in its directory, elsewhere (or where the file system
// cannot) a hidden temporary file beside it that Abort, Stop and every
// signal remove. An existing file is refused (exit status 5) unless
// Spec.Force; the final link is atomic, so a file that appears while the
// command works is never clobbered. "-" is standard output, which cannot
// be taken back: messages then say how many bytes already went there.
//
// The first of SIGINT, SIGTERM, SIGHUP and SIGQUIT ends the context, and
// from then on the outputs are never committed; the command's error is
// an *Interrupted (exit status 128 + the signal number). A second signal
// while the command is still finishing (a final fsync can take minutes
// on a device) removes any temporary file and exits at once. Once Commit
// begins linking, the command is past the point of no return and later
// signals are ignored. SIGPIPE is caught too, so that a closed pipe on
// standard output is a write error with a message, not a silent death.
//
// Errors returned here carry their exit status (see package exit).
package guard

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// Config says how a Guard reports and acts. Stderr and Command are
// needed; the rest have defaults that tests replace.
type Config struct {
	Stderr    io.Writer            // where the second signal's message goes
	Command   string               // "encrypt", "luks decrypt": names the command in that message
	Exit      func(code int)       // ends the process after a second signal; nil: os.Exit
	Sync      func(*os.File) error // flushes a file to disk; nil: (*os.File).Sync
	NoUnnamed bool                 // use the hidden temporary file even where unnamed files work
	// InPlace, for a command that works in place in steps a later run
	// resumes (xts luks reencrypt), says what a signal leaves behind
	// ("the image is resumable"): a second signal then only says so
	// with this text and does not end the process, which stops at the
	// end of the step in flight as after the first.
	InPlace string
}

// abortSignals abort a command: Ctrl-C, kill, a closed terminal or ssh
// session, Ctrl-\.
var abortSignals = [...]os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}

// Guard catches the abort signals for the life of one command and owns
// its outputs. Its methods may be called from any goroutine.
type Guard struct {
	cfg    Config
	ctx    context.Context // ended by the first signal, and by Stop
	cancel context.CancelFunc

	ch, pipe chan os.Signal
	done     chan struct{}
	barrier  chan struct{} // the loop saw barrierSignal (see drain)
	stopOnce sync.Once

	mu         sync.Mutex
	sig        syscall.Signal // the first signal; 0 until one comes
	committing *Output        // the output the second signal's message talks about during Commit
	committed  bool           // past the point of no return: signals no longer matter

	// omu guards the outputs and temporary names; taken after mu, never
	// before it.
	omu   sync.Mutex
	open  []*Output       // created and neither committed nor discarded, in order
	temps map[string]bool // temporary files that exist now
}

// Start begins catching the abort signals (and SIGPIPE) for one command.
// Call Stop when the command returns.
func Start(cfg Config) *Guard {
	if cfg.Exit == nil {
		cfg.Exit = os.Exit
	}
	if cfg.Sync == nil {
		cfg.Sync = (*os.File).Sync
	}
	ctx, cancel := context.WithCancel(context.Background())
	g := &Guard{
		cfg: cfg, ctx: ctx, cancel: cancel,
		ch: make(chan os.Signal, 4), pipe: make(chan os.Signal, 1), done: make(chan struct{}),
		barrier: make(chan struct{}, 1), temps: map[string]bool{},
	}
	signal.Notify(g.ch, abortSignals[:]...)
	if barrierSignal != nil {
		signal.Notify(g.ch, barrierSignal)
	}
	signal.Notify(g.pipe, syscall.SIGPIPE)
	go g.loop()
	return g
}

// Stop discards every output not committed and restores the default
// signal handling. Calls after the first do nothing.
func (g *Guard) Stop() {
	g.discard(g.takeOpen())
	g.stopOnce.Do(func() {
		signal.Stop(g.ch)
		signal.Stop(g.pipe)
		close(g.done)
		g.cancel()
	})
}

// Context ends with the first signal (and with Stop): work that watches
// it stops early, and Abort then reports the signal.
func (g *Guard) Context() context.Context { return g.ctx }

func (g *Guard) loop() {
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

func (g *Guard) received(s syscall.Signal) {
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
	if g.cfg.InPlace != "" {
		fmt.Fprintf(g.cfg.Stderr, "xts %s: %s again: stopping after the step in flight; %s\n", g.cfg.Command, SignalName(s), g.cfg.InPlace)
		return
	}
	// The second signal: the user means it.
	g.omu.Lock()
	for name := range g.temps {
		os.Remove(name)
		delete(g.temps, name)
	}
	out := g.committing
	if out == nil && len(g.open) > 0 {
		out = g.open[len(g.open)-1]
	}
	g.omu.Unlock()
	ie := newInterrupted(s, out)
	fmt.Fprintf(g.cfg.Stderr, "xts %s: %s (a second signal while finishing)\n", g.cfg.Command, ie)
	g.cfg.Exit(ie.ExitCode())
}

// Signal returns the first signal received, or 0.
func (g *Guard) Signal() syscall.Signal {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.sig
}

// Err is an *Interrupted once a signal came (saying nothing of outputs),
// else nil.
func (g *Guard) Err() error {
	if s := g.Signal(); s != 0 {
		return newInterrupted(s, nil)
	}
	return nil
}

// Interruptible runs f (a key derivation that cannot stop half-way) and
// returns its error, or, when a signal comes first, the interruption at
// once: f must write nothing, so that there is nothing to undo, and the
// process may exit with f still running.
func (g *Guard) Interruptible(f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-g.ctx.Done():
		if err := g.Err(); err != nil {
			return err
		}
		return <-done
	}
}

// Abort discards every output not yet committed after err and returns
// the error to report: an *Interrupted if a signal came, else err,
// saying how many bytes already went to standard output, if any did (a
// file output leaves nothing).
func (g *Guard) Abort(err error) error {
	outs := g.takeOpen()
	g.discard(outs)
	stdout := stdoutOf(outs)
	if s := g.Signal(); s != 0 {
		return newInterrupted(s, stdout)
	}
	if err != nil && stdout != nil {
		if n := stdout.Written(); n > 0 {
			return fmt.Errorf("%w; %d bytes of output already went to standard output", err, n)
		}
	}
	return err
}

// Commit flushes every output not yet committed to disk and links them
// into place, unless a signal came first (before the links, however
// late): then they are all discarded and the error is an *Interrupted.
// Any failure discards the outputs not yet linked. The outputs appear
// together, in the order they were created, or none does.
func (g *Guard) Commit() error {
	g.omu.Lock()
	outs := append([]*Output(nil), g.open...)
	g.omu.Unlock()
	g.mu.Lock()
	g.committing = stdoutOf(outs) // the second signal's message: standard output if any
	if g.committing == nil && len(outs) > 0 {
		g.committing = outs[0]
	}
	g.mu.Unlock()
	for _, o := range outs {
		if err := o.sync(); err != nil {
			return g.Abort(err)
		}
	}
	g.drain()
	g.mu.Lock()
	defer g.mu.Unlock()
	outs = g.takeOpen()
	if g.sig != 0 && !g.committed {
		g.discard(outs)
		return newInterrupted(g.sig, g.committing)
	}
	g.committed = true
	for i, o := range outs {
		if err := o.link(); err != nil {
			g.discard(outs[i:])
			return err
		}
	}
	return nil
}

// takeOpen removes the open outputs from the guard and returns them.
func (g *Guard) takeOpen() []*Output {
	g.omu.Lock()
	defer g.omu.Unlock()
	outs := g.open
	g.open = nil
	return outs
}

func (g *Guard) discard(outs []*Output) {
	for _, o := range outs {
		o.discard()
	}
}

func stdoutOf(outs []*Output) *Output {
	for _, o := range outs {
		if o.f == nil {
			return o
		}
	}
	return nil
}

func (g *Guard) addTemp(name string) {
	g.omu.Lock()
	defer g.omu.Unlock()
	g.temps[name] = true
}

func (g *Guard) dropTemp(name string) {
	g.omu.Lock()
	defer g.omu.Unlock()
	delete(g.temps, name)
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
func (g *Guard) drain() {
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
