package veracrypt

import (
	"bytes"
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fastxts/xts/internal/argon2"
)

// hangGuard bounds the waits below, which only a broken stop (a hook never
// called) would make hang; it is not a timing assertion.
const hangGuard = time.Minute

// TestArgon2StopsAtMatch: a SHA-512 header matches while the Argon2id trial
// is filling its memory (the SHA-512 worker waits, through the beforeTry
// hook, until the Argon2id unit has polled its stop function before its
// first slice). Open returns the SHA-512 header, the Argon2id unit sees the
// stop at its next poll and polls no more (it would poll 1+4*3 times at PIM
// 1 if it ran to the end), and every worker exits.
func TestArgon2StopsAtMatch(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		// The Argon2id unit goes out beside SHA-512's only with two
		// workers or more.
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	dev := newMemDev(512 << 10)
	pw := []byte("correct horse")
	if err := Create(dev, dev.Size(), pw, &CreateOptions{PIM: 1, Rand: seeded(41)}); err != nil {
		t.Fatal(err)
	}

	var (
		runs    atomic.Int32
		polls   []bool // what the Argon2id unit's polls returned
		running = make(chan struct{})
		exited  = make(chan struct{})
	)
	trialHooks.argon2Stop = func(stop func() bool) func() bool {
		runs.Add(1)
		return func() bool {
			v := stop()
			polls = append(polls, v)
			if len(polls) == 2 { // before slice 0: the memory is allocated
				close(running)
			}
			return v
		}
	}
	trialHooks.beforeTry = func(u unit) {
		if u.t.j.p.argon2 {
			return
		}
		select {
		case <-running:
		case <-time.After(hangGuard):
			t.Error("the Argon2id unit never polled its stop function")
		}
	}
	trialHooks.exited = func() { close(exited) }
	t.Cleanup(func() { trialHooks.argon2Stop, trialHooks.beforeTry, trialHooks.exited = nil, nil, nil })

	before := runtime.NumGoroutine()
	v, err := Open(dev, pw, &Options{PIM: 1, Cipher: "aes", NoTrueCrypt: true})
	if err != nil {
		t.Fatal(err)
	}
	if h := v.Header(); h.PRF != "sha512" || h.Cipher != "aes" {
		t.Fatalf("opened with %s %s, want sha512 aes", h.PRF, h.Cipher)
	}
	v.Close()
	select {
	case <-exited:
	case <-time.After(hangGuard):
		t.Fatal("the trials' workers did not exit")
	}
	if n := runs.Load(); n != 1 {
		t.Fatalf("%d Argon2id runs, want 1", n)
	}
	if len(polls) < 3 || len(polls) >= 1+4*3 {
		t.Fatalf("the Argon2id unit polled %d times (%v), want 3 to %d", len(polls), polls, 4*3)
	}
	for i, p := range polls {
		if p != (i == len(polls)-1) {
			t.Fatalf("polls %v: want false until the last, which saw the stop", polls)
		}
	}
	// The waiting goroutine calls exited just before it ends: poll
	// until the goroutines are back to their number before Open.
	for i := 0; runtime.NumGoroutine() > before; i++ {
		if i == 10000 {
			t.Fatalf("%d goroutines after the trials, %d before", runtime.NumGoroutine(), before)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestDeriverArgon2Stopped: a deriver whose stop is set derives no
// Argon2id key (nil) and keeps none; unset, it derives IDKey's 192-byte
// key.
func TestDeriverArgon2Stopped(t *testing.T) {
	p := findPRF("argon2id")[0]
	var stop atomic.Bool
	stop.Store(true)
	d := &deriver{p: p, password: []byte("pw"), salt: make([]byte, SaltSize), iter: 1, mem: 64, stop: &stop}
	if k := d.get(64); k != nil || d.key != nil {
		t.Fatalf("stopped deriver gave %x", k)
	}
	stop.Store(false)
	want := argon2.IDKey([]byte("pw"), make([]byte, SaltSize), 1, 64, 1, maxHeaderKey)
	if k := d.get(64); !bytes.Equal(k, want[:64]) {
		t.Fatalf("deriver gave %x, want %x", k, want[:64])
	}
}

// TestOpenContext: a context done before Open starts stops it before any
// trial; one cancelled while the first unit is being derived (a stretch of
// two million PBKDF2 iterations) stops that derivation at its next poll, so
// that no unit completes; either way the error matches the context's cause,
// not ErrPassword, and every worker exits.
func TestOpenContext(t *testing.T) {
	dev := newMemDev(512 << 10)
	const pim = 2000 // 15000 + 1000*PIM iterations a SHA-512 block
	if err := Create(dev, dev.Size(), []byte("right"), &CreateOptions{PIM: 1, Rand: seeded(42)}); err != nil {
		t.Fatal(err)
	}
	opts := &Options{PIM: pim, PRF: "sha512", Cipher: "aes", NoTrueCrypt: true}
	cause := errors.New("the user gave up")

	var (
		computing, tried atomic.Int32
		exited           = make(chan struct{}, 1)
	)
	trialHooks.beforeTry = func(unit) { tried.Add(1) }
	trialHooks.exited = func() { exited <- struct{}{} }
	t.Cleanup(func() { trialHooks.computing, trialHooks.beforeTry, trialHooks.exited = nil, nil, nil })

	t.Run("done before", func(t *testing.T) {
		ctx, cancel := context.WithCancelCause(context.Background())
		cancel(cause)
		trialHooks.computing = func(unit) { computing.Add(1) }
		v, err := OpenContext(ctx, dev, []byte("wrong"), opts)
		if v != nil || !errors.Is(err, cause) || errors.Is(err, ErrPassword) {
			t.Fatalf("OpenContext with a cancelled context: %v, %v; want the cause", v, err)
		}
		if _, err := ReadHeaderContext(ctx, dev, []byte("right"), opts); !errors.Is(err, cause) {
			t.Fatalf("ReadHeaderContext with a cancelled context: %v; want the cause", err)
		}
		if n := computing.Load(); n != 0 {
			t.Fatalf("%d units derived after the context was done", n)
		}
	})

	t.Run("during", func(t *testing.T) {
		for name, open := range map[string]func(context.Context) error{
			"OpenContext": func(ctx context.Context) error {
				_, err := OpenContext(ctx, dev, []byte("wrong"), opts)
				return err
			},
			"ReadHeaderContext": func(ctx context.Context) error {
				_, err := ReadHeaderContext(ctx, dev, []byte("wrong"), opts)
				return err
			},
		} {
			ctx, cancel := context.WithCancelCause(context.Background())
			computing.Store(0)
			trialHooks.computing = func(unit) {
				if computing.Add(1) == 1 {
					cancel(cause)
				}
			}
			err := open(ctx)
			cancel(nil)
			if !errors.Is(err, cause) || errors.Is(err, ErrPassword) {
				t.Fatalf("%s cancelled during the trials: %v; want the cause", name, err)
			}
			select {
			case <-exited:
			case <-time.After(hangGuard):
				t.Fatalf("%s: the trials' workers did not exit", name)
			}
			if n := tried.Load(); n != 0 {
				t.Fatalf("%s: %d units completed after the cancel: the derivation did not stop", name, n)
			}
		}
	})
}
