package luks

import (
	"fmt"
	"runtime"
	"time"
)

// KDFOptions choose a new keyslot's key derivation function and its cost,
// as cryptsetup's --pbkdf flags do. The zero value is cryptsetup 2.6's
// default for the header version: argon2id (LUKS2) or pbkdf2-sha256
// (LUKS1), benchmarked to take 2 s.
//
// IterTime is wall-clock time, as cryptsetup's --iter-time is: the time
// this package takes to derive the key on this machine, idle. The
// benchmark estimates it from CPU time (for argon2, spread over the cores
// its lanes keep busy), so a busy machine does not make keyslots cheaper. The chosen cost is at least what cryptsetup's own
// benchmark picks for the same IterTime; cryptsetup's Argon2 is slower
// than this package's, so an argon2 keyslot takes it longer to open than
// IterTime (about twice as long on an AMD Zen 5).
type KDFOptions struct {
	Type       string        // "argon2id", "argon2i" or "pbkdf2"; "" for the version's default
	Hash       string        // pbkdf2's hash, also the AF and digest hash; "" for sha256
	IterTime   time.Duration // target unlock time (--iter-time), wall clock on an idle machine; 0 for 2 s
	Iterations int           // > 0: forced cost, no benchmark (--pbkdf-force-iterations: pbkdf2 iterations or argon2 time)
	Memory     int           // argon2 memory in KiB (--pbkdf-memory); 0 for 1 GiB or half of RAM if less (the most the benchmark uses)
	Parallel   int           // argon2 lanes (--pbkdf-parallel); 0 for min(4, CPUs)
}

const (
	defaultIterTime     = 2 * time.Second
	digestIterTime      = 125 * time.Millisecond
	minPBKDF2Iterations = 1000
	minArgon2Time       = 4
	minArgon2Memory     = 32
	defaultArgon2Memory = 1 << 20
)

func (o KDFOptions) withDefaults(version int) (KDFOptions, error) {
	if o.Type == "" {
		o.Type = "argon2id"
		if version == 1 {
			o.Type = "pbkdf2"
		}
	}
	if o.Hash == "" {
		o.Hash = "sha256"
	}
	if _, err := hashFunc(o.Hash); err != nil {
		return o, err
	}
	if o.IterTime <= 0 {
		o.IterTime = defaultIterTime
	}
	switch o.Type {
	case "pbkdf2":
	case "argon2i", "argon2id":
		if version == 1 {
			return o, fmt.Errorf("%w: %s keyslots in LUKS1 (LUKS1 has only pbkdf2)", ErrUnsupported, o.Type)
		}
		if o.Memory == 0 {
			o.Memory = maxArgon2Memory()
		}
		if o.Parallel == 0 {
			o.Parallel = min(4, runtime.NumCPU())
		}
		if o.Memory < minArgon2Memory || o.Memory > MaxArgon2Memory {
			return o, fmt.Errorf("luks: argon2 memory %d KiB (%d to %d)", o.Memory, minArgon2Memory, MaxArgon2Memory)
		}
		if o.Parallel < 1 || o.Parallel > MaxArgon2CPUs {
			return o, fmt.Errorf("luks: argon2 parallel cost %d (1 to %d)", o.Parallel, MaxArgon2CPUs)
		}
		if o.Iterations > MaxArgon2Time {
			return o, fmt.Errorf("luks: argon2 time cost %d (at most %d)", o.Iterations, MaxArgon2Time)
		}
	default:
		return o, fmt.Errorf("%w: key derivation function %q (pbkdf2, argon2i and argon2id are supported)", ErrUnsupported, o.Type)
	}
	if o.Iterations < 0 || o.Iterations > MaxIterations {
		return o, fmt.Errorf("luks: forced iterations %d", o.Iterations)
	}
	return o, nil
}

// newKDF returns the KDF parameters of a new keyslot, benchmarking the
// cost to o.IterTime unless it is forced.
func newKDF(o KDFOptions, keyLen int) (KDF, error) {
	salt, err := randomBytes(32)
	if err != nil {
		return KDF{}, err
	}
	k := KDF{Type: o.Type, Salt: salt}
	if o.Type == "pbkdf2" {
		k.Hash = o.Hash
		k.Iterations = o.Iterations
		if k.Iterations == 0 {
			if k.Iterations, err = benchPBKDF2(o.Hash, keyLen, o.IterTime); err != nil {
				return KDF{}, err
			}
		}
		return k, nil
	}
	k.Memory, k.CPUs, k.Time = o.Memory, o.Parallel, o.Iterations
	if k.Time == 0 {
		k.Time, k.Memory = benchArgon2(o.Type, k.Memory, k.CPUs, keyLen, o.IterTime)
	}
	return k, nil
}

// benchPBKDF2 returns the iterations that take about target here (at
// least 1000): the count doubles until one run takes 50 ms, and the
// cheapest of benchRuns runs at that count, in CPU time (which on an idle
// machine is its wall-clock time: pbkdf2 runs on one core), is scaled to
// target.
func benchPBKDF2(hashName string, keyLen int, target time.Duration) (int, error) {
	pass, salt := []byte("benchmark passphrase"), make([]byte, 32)
	for n := 1000; ; n *= 2 {
		start := time.Now()
		if _, err := pbkdf2Key(hashName, pass, salt, n, keyLen); err != nil {
			return 0, err
		}
		if time.Since(start) >= 50*time.Millisecond || n >= MaxIterations/2 {
			el := cheapest(func() { pbkdf2Key(hashName, pass, salt, n, keyLen) }, true)
			it := int(float64(n) * float64(target) / float64(el))
			return min(max(it, minPBKDF2Iterations), MaxIterations), nil
		}
	}
}

// argon2Probe is the memory (KiB) at which benchArgon2 measures: larger
// than the caches, so a pass costs per KiB what it costs at 1 GiB, and
// small enough that the probes take a fraction of a second.
const argon2Probe = 64 << 10

// benchArgon2 returns a time cost (at least 4) and memory cost (at most
// memory) that take about target here: the full memory with the time
// cost that fills target, or, when even the lowest time cost would take
// too long, that time cost with less memory (as cryptsetup does).
//
// A derivation takes memory × (setup + passes × pass): setup is paid once
// per KiB (mapping and faulting the memory in, filling the first blocks),
// pass on every pass. Probes at argon2Probe KiB with one pass and with
// three separate the two, so neither is charged as the other. (Taking one
// pass's time as the time per pass counted the setup once per pass, and
// chose keyslots about four times cheaper than asked.) Each probe's time
// is its CPU time spread over the cores its lanes use (see cheapest).
func benchArgon2(typ string, memory, cpus, keyLen int, target time.Duration) (tcost, mem int) {
	pass, salt := []byte("benchmark passphrase"), make([]byte, 32)
	f := argon2idKey
	if typ == "argon2i" {
		f = argon2iKey
	}
	probe := min(memory, argon2Probe)
	// The lanes run in parallel: on an idle machine with enough cores a
	// derivation takes its CPU time divided by the cores it keeps busy.
	busy := float64(min(cpus, runtime.NumCPU()))
	run := func(t uint32) float64 {
		return float64(cheapest(func() { f(pass, salt, t, uint32(probe), uint8(cpus), uint32(keyLen)) }, false)) / busy
	}
	one, three := run(1), run(3)
	perPass := (three - one) / 2 / float64(probe)
	setup := one/float64(probe) - perPass
	if perPass <= 0 {
		// Noise larger than two passes: charge everything to the passes,
		// which can only make the keyslot dearer.
		perPass, setup = three/3/float64(probe), 0
	}
	setup = max(setup, 0)
	if t := int((float64(target)/float64(memory) - setup) / perPass); t >= minArgon2Time {
		return min(t, MaxArgon2Time), memory
	}
	m := int(float64(target) / (setup + minArgon2Time*perPass))
	m = max(m, max(minArgon2Memory, 8*cpus))
	return minArgon2Time, min(m, memory)
}

// maxArgon2Memory is the most memory a benchmarked keyslot uses: 1 GiB,
// or half of the machine's RAM if that is less, as cryptsetup caps it.
func maxArgon2Memory() int {
	m := defaultArgon2Memory
	if total := totalMemoryKiB(); total > 0 && total/2 < uint64(m) {
		m = max(int(total/2), minArgon2Memory)
	}
	return m
}

// digestIterations is the cost of a new digest: pbkdf2 benchmarked to
// 125 ms, or the minimum when the keyslot cost is forced (as cryptsetup
// does with --pbkdf-force-iterations).
func digestIterations(hashName string, keyLen int, forced bool) (int, error) {
	if forced {
		return minPBKDF2Iterations, nil
	}
	return benchPBKDF2(hashName, keyLen, digestIterTime)
}
