package veracrypt

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/fastxts/xts/internal/argon2"
	"github.com/fastxts/xts/internal/pbkdf2"
)

// How the trials share the cores
//
// A wrong password costs every job's whole header key: for PBKDF2, up to
// 192 bytes, that is 3 blocks of SHA-512, Whirlpool or Streebog, 6 of
// SHA-256 or BLAKE2s, 10 of RIPEMD-160, each block a full run of the
// iterations. The unit of work handed to a core is therefore one PBKDF2
// output block, not one PRF: the blocks are independent, so a job's
// blocks run on several cores at once (a SHA-512 cascade's 3-block key is
// ready after 2 blocks' time), and no PRF is a tail that one core runs
// alone while the other idles (Streebog's 3 blocks are 4.5 s of CPU on a
// Zen 5, a third of every derivation together; with whole PRFs as units
// the finish depends on when it happens to start). Argon2id (one lane,
// which internal/argon2 runs on a goroutine of its own while the worker
// waits: one core, not two) cannot be split: its unit is the
// whole key, handed out right after the likeliest PRF's blocks so that it
// runs beside the rest rather than after it.
//
// The units go out in the jobs' order (TrueCrypt's cheap derivations,
// then VeraCrypt's likeliest first); whenever a job's blocks 1..k are all
// in, the worker that brought the last one tries the candidates whose
// keys fit in k blocks. With the right password the first match stops
// every PBKDF2 unit within 1024 iterations, and an Argon2id run under way
// (argon2.IDKeyStop polls the same flag before each of its 4*passes
// slices) within one slice: a 24th of VeraCrypt's default 6 passes, about
// 75 ms on a Zen 5 core, after which its memory (416 MiB by default) is
// zeroed and released. runTrials returns at the match without waiting for
// that; the stopped workers only touch what the trials own (their keys,
// the password copies, the Argon2 memory), never the Header returned.

// A trial is one job's state while the trials run.
type trial struct {
	j         job
	pw        []byte // the password with the keyfiles applied
	iter, mem int
	size      int         // bytes per unit: a PBKDF2 block, or Argon2id's whole key
	cands     []candidate // the job's candidates, shortest key first

	mu    sync.Mutex
	key   []byte // units × size bytes, filled as the units come in
	ready []bool
	next  int // the first candidate not yet handed out
}

// A unit is one piece of a trial's key: PBKDF2 block i+1, or for
// Argon2id (i = 0) the whole key.
type unit struct {
	t *trial
	i int
}

// newTrial prepares job j's trial, or returns the error passwordFor gives.
func newTrial(j job, password []byte, keyfiles [][]byte, pim int, system bool, cands []candidate) (*trial, error) {
	pw, err := passwordFor(password, keyfiles, j.tc)
	if err != nil {
		return nil, err
	}
	t := &trial{j: j, pw: pw}
	t.iter, t.mem = j.p.iterations(pim, system, j.tc)
	longest := 0
	for _, cd := range cands {
		if cd.applies(j) {
			t.cands = append(t.cands, cd)
			longest = max(longest, cd.keySize)
		}
	}
	units := 1
	if j.p.argon2 {
		// VeraCrypt derives the longest header key (three ciphers)
		// whatever the chain, and Argon2's output depends on its length.
		t.size = maxHeaderKey
	} else {
		t.size = j.p.hash().Size()
		units = (longest + t.size - 1) / t.size
	}
	t.key = make([]byte, units*t.size)
	t.ready = make([]bool, units)
	return t, nil
}

// trialHooks, set by tests only (and only while no trial runs), observe
// and pace runTrials.
var trialHooks struct {
	// argon2Stop wraps the stop function an Argon2id unit polls.
	argon2Stop func(stop func() bool) func() bool
	// computing is called by a worker before it derives unit u.
	computing func(u unit)
	// beforeTry is called by a worker before it tries the candidates
	// that unit u completed.
	beforeTry func(u unit)
	// exited is called once every worker is out and the trials' secrets
	// are wiped.
	exited func()
}

// compute derives unit i into out (t.size bytes); false when stopped.
func (t *trial) compute(out, salt []byte, i int, stop *atomic.Bool) bool {
	if t.j.p.argon2 {
		poll := stop.Load
		if wrap := trialHooks.argon2Stop; wrap != nil {
			poll = wrap(poll)
		}
		k, err := argon2.IDKeyStop(poll, t.pw, salt, uint32(t.iter), uint32(t.mem), 1, maxHeaderKey)
		if err != nil {
			return false // argon2.ErrStopped
		}
		copy(out, k)
		clear(k)
		return true
	}
	d := pbkdf2.NewDeriver(t.j.p.hash, t.pw, salt, t.iter)
	defer d.Wipe()
	return d.Block(out, uint32(i+1), stop)
}

// deliver stores unit i and returns the candidates whose keys are now
// complete and were not handed out yet, with a copy of the key they need
// (nil when there are none).
func (t *trial) deliver(i int, data []byte) ([]candidate, []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	copy(t.key[i*t.size:], data)
	t.ready[i] = true
	have := 0
	for have < len(t.ready) && t.ready[have] {
		have++
	}
	n := t.next
	for n < len(t.cands) && t.cands[n].keySize <= have*t.size {
		n++
	}
	if n == t.next {
		return nil, nil
	}
	cands := t.cands[t.next:n]
	t.next = n
	return cands, append([]byte(nil), t.key[:cands[len(cands)-1].keySize]...)
}

// wipe clears the trial's secrets.
func (t *trial) wipe() {
	clear(t.pw)
	t.mu.Lock()
	clear(t.key)
	t.mu.Unlock()
}

// trialUnits returns the order the units are handed out in: the jobs'
// order, block by block, with an Argon2id unit moved to right after the
// first VeraCrypt job's blocks when there is more than one worker.
func trialUnits(trials []*trial, workers int) []unit {
	var units, late []unit
	firstVC := -1
	for _, t := range trials {
		if t.j.p.argon2 && workers > 1 {
			late = append(late, unit{t, 0})
			continue
		}
		for i := range t.ready {
			units = append(units, unit{t, i})
		}
		if !t.j.tc && firstVC < 0 {
			firstVC = len(units)
		}
	}
	if firstVC < 0 {
		firstVC = len(units)
	}
	return append(units[:firstVC:firstVC], append(late, units[firstVC:]...)...)
}

// runTrials runs the jobs on the header block over up to GOMAXPROCS
// goroutines and returns the header found, or nil and the last error
// preparing a job gave. It returns as soon as a header decrypts, having
// told every unit still running to stop; those finish their current
// stretch (1024 PBKDF2 iterations, an Argon2id slice) on their own and
// then wipe the trials' secrets. Without a match it returns once every
// unit is done.
func runTrials(ctx context.Context, block, password []byte, keyfiles [][]byte, pim int, system bool, jobs []job, cands []candidate) (*Header, error) {
	var lastErr error
	var trials []*trial
	for _, j := range jobs {
		t, err := newTrial(j, password, keyfiles, pim, system, cands)
		if err != nil {
			lastErr = err
			continue
		}
		trials = append(trials, t)
	}
	if len(trials) == 0 {
		return nil, lastErr
	}
	salt := block[:SaltSize]
	workers := runtime.GOMAXPROCS(0)
	units := trialUnits(trials, workers)
	workers = min(workers, len(units))

	var (
		stop  atomic.Bool
		next  atomic.Int64
		wg    sync.WaitGroup
		once  sync.Once
		found = make(chan *Header, 1)
	)
	// A done ctx stops the trials as a match does; the caller tells the
	// two apart by ctx.Err.
	defer context.AfterFunc(ctx, func() { stop.Store(true) })()
	work := func() {
		dec := make([]byte, HeaderSize)
		defer clear(dec)
		copy(dec, salt)
		for !stop.Load() {
			i := int(next.Add(1)) - 1
			if i >= len(units) {
				return
			}
			u := units[i]
			out := make([]byte, u.t.size)
			if hook := trialHooks.computing; hook != nil {
				hook(u)
			}
			ok := u.t.compute(out, salt, u.i, &stop)
			if !ok {
				clear(out)
				return
			}
			cs, key := u.t.deliver(u.i, out)
			clear(out)
			if hook := trialHooks.beforeTry; hook != nil && len(cs) > 0 {
				hook(u)
			}
			for _, cd := range cs {
				if stop.Load() {
					break
				}
				if h := tryCandidate(u.t.j, cd, key, block, dec); h != nil {
					h.PRF, h.Iterations = u.t.j.p.name, u.t.iter
					if u.t.mem > 0 {
						h.Memory = u.t.mem
					}
					// Stop the others first: runTrials may
					// return as soon as h is sent.
					stop.Store(true)
					once.Do(func() { found <- h })
					break
				}
			}
			clear(key)
		}
	}
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work()
		}()
	}
	// The trials' secrets are wiped once every worker is out, which after
	// a match is shortly after runTrials returns.
	done := make(chan struct{})
	exited := trialHooks.exited
	go func() {
		wg.Wait()
		for _, t := range trials {
			t.wipe()
		}
		close(done)
		if exited != nil {
			exited()
		}
	}()
	select {
	case h := <-found:
		return h, nil
	case <-done:
	}
	select {
	case h := <-found:
		return h, nil
	default:
	}
	return nil, lastErr
}
