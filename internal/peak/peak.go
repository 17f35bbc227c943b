// Package peak measures this CPU's AES round throughput, the hardware limit
// that AES-XTS throughput is compared against.
//
// AES-XTS needs at least one AES round per 16-byte block per round key: 10,
// 12 or 14 rounds for AES-128, -192 or -256. Tweaks, XORs, loads and stores
// can hide beside the rounds but never make them cheaper, so a core that
// retires R block-rounds per second cannot exceed 16·R/rounds bytes per
// second. The loops here issue 12 independent rounds per iteration (more
// than latency × throughput on any current core), on the widest registers
// the CPU and OS allow.
package peak

import (
	"errors"
	"runtime"
	"time"
)

// RoundsPerIter is the number of AES instructions in one iteration of every
// generated loop.
const RoundsPerIter = 12

// ErrUnavailable is returned where no loop can run: not amd64, the purego
// build tag, or a CPU without AES-NI.
var ErrUnavailable = errors.New("peak: AES round bound unavailable on this CPU or build")

// A Loop is one generated AES round loop.
type Loop struct {
	Name    string // e.g. "vaesenc-zmm"
	Width   int    // bytes per register: 16, 32 or 64
	run     func(n uint64)
	chain   func(n uint64) // the same rounds in one dependent chain; nil where not generated
	missing string         // what the CPU or OS lacks; "" when the loop can run
}

// Runnable reports whether this CPU and OS can run the loop.
func (l Loop) Runnable() bool { return l.run != nil && l.missing == "" }

// Missing says what the CPU or OS lacks for the loop, or "" if nothing.
func (l Loop) Missing() string { return l.missing }

// Loops lists every loop known on this platform, narrowest first, runnable
// or not.
func Loops() []Loop { return loops() }

// Widest returns the runnable loop with the widest registers.
func Widest() (Loop, error) {
	var best Loop
	for _, l := range loops() {
		if l.Runnable() && l.Width >= best.Width {
			best = l
		}
	}
	if !best.Runnable() {
		return Loop{}, ErrUnavailable
	}
	return best, nil
}

// Rate runs the loop for about d after calibrating it and returns the
// measured block-rounds per second (one block-round = one AES round on one
// 16-byte block). The caller takes the best of several calls: interference
// only ever makes a run slower.
func (l Loop) Rate(d time.Duration) float64 {
	if !l.Runnable() {
		return 0
	}
	n, t := timeFor(l.run, d)
	rounds := float64(n) * RoundsPerIter * float64(l.Width/16)
	return rounds / t.Seconds()
}

// Latency runs the loop's rounds as one dependent chain (each round
// waits for the one before) for about d and returns the seconds one round
// takes, 0 where the platform has no chain loop. Latency × the rate of
// instructions (Rate / (Width/16)) is how many rounds must be in flight
// to reach the bound: the independent AES chains a routine needs, and
// the floor on any serial chain such as a tweak's encryption (15 rounds
// for AES-256). The caller takes the best of several calls.
func (l Loop) Latency(d time.Duration) float64 {
	if !l.Runnable() || l.chain == nil {
		return 0
	}
	n, t := timeFor(l.chain, d)
	return t.Seconds() / float64(n*RoundsPerIter)
}

// timeFor runs run(n) for an n that takes about d, on a locked OS
// thread, and returns n and the time it took: n grows until one run is
// long enough to time reliably, then scales to d.
func timeFor(run func(n uint64), d time.Duration) (uint64, time.Duration) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	timed := func(n uint64) time.Duration {
		start := time.Now()
		run(n)
		return time.Since(start)
	}
	n := uint64(1 << 10)
	t := timed(n)
	for t < 2*time.Millisecond && n < 1<<40 {
		n *= 4
		t = timed(n)
	}
	if want := uint64(float64(n) * d.Seconds() / t.Seconds()); want > n {
		n = want
		t = timed(n)
	}
	return n, t
}

// Rounds returns the AES round count for a key of keyBits bits (128, 192
// or 256), or 0 for any other size.
func Rounds(keyBits int) int {
	switch keyBits {
	case 128:
		return 10
	case 192:
		return 12
	case 256:
		return 14
	}
	return 0
}

// BoundMBps converts block-rounds per second into the AES-XTS throughput
// limit in MB/s (10^6 bytes per second) for a key of keyBits bits.
func BoundMBps(blockRoundsPerSec float64, keyBits int) float64 {
	r := Rounds(keyBits)
	if r == 0 {
		return 0
	}
	return 16 * blockRoundsPerSec / float64(r) / 1e6
}
