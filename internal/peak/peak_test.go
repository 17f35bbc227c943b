package peak

import (
	"math"
	"testing"
	"time"
)

func TestBoundMBps(t *testing.T) {
	// 14e9 block-rounds/s at 14 rounds is 1e9 blocks/s, 16e9 B/s.
	if got := BoundMBps(14e9, 256); math.Abs(got-16000) > 1e-6 {
		t.Errorf("BoundMBps(14e9, 256) = %v, want 16000", got)
	}
	if got := BoundMBps(10e9, 128); math.Abs(got-16000) > 1e-6 {
		t.Errorf("BoundMBps(10e9, 128) = %v, want 16000", got)
	}
	if got := BoundMBps(1e9, 100); got != 0 {
		t.Errorf("BoundMBps with a bad key size = %v, want 0", got)
	}
}

func TestWidestRuns(t *testing.T) {
	l, err := Widest()
	if err == ErrUnavailable {
		t.Skip("no AES round loop on this CPU or build")
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range Loops() {
		if o.Runnable() && o.Width > l.Width {
			t.Errorf("Widest = %s (%d bytes) but %s (%d bytes) runs too", l.Name, l.Width, o.Name, o.Width)
		}
	}
	// Every runnable loop must run and report a plausible rate: more than
	// 1e6 block-rounds/s (any AES core does over 1e9; qemu-user, which
	// runs the arm64 tests in CI, emulates AES at about 2e7) and less than
	// 1e12 (no core retires 100 per cycle).
	for _, o := range Loops() {
		if !o.Runnable() {
			t.Logf("%s: %s", o.Name, o.Missing())
			continue
		}
		r := o.Rate(5 * time.Millisecond)
		t.Logf("%s: %.2f G block-rounds/s, AES-256 bound %.0f MB/s", o.Name, r/1e9, BoundMBps(r, 256))
		if r < 1e6 || r > 1e12 {
			t.Errorf("%s: implausible rate %g block-rounds/s", o.Name, r)
		}
	}
}

// TestLatency: every runnable loop with a chain times one dependent round
// plausibly (between 0.1 ns and 1 µs; qemu-user is slow), and no faster
// than the independent rounds go through: a chain can only wait, so
// latency × instructions/s is at least about one (0.5 allows for a
// throughput run slowed by interference).
func TestLatency(t *testing.T) {
	ran := false
	for _, o := range Loops() {
		if !o.Runnable() || o.chain == nil {
			continue
		}
		ran = true
		var lat, rate float64
		for range 3 {
			if l := o.Latency(2 * time.Millisecond); lat == 0 || l < lat {
				lat = l
			}
			rate = max(rate, o.Rate(2*time.Millisecond))
		}
		perInstr := rate / float64(o.Width/16)
		t.Logf("%s: %.3f ns a dependent round, %.1f rounds in flight at the bound", o.Name, lat*1e9, lat*perInstr)
		if lat < 1e-10 || lat > 1e-6 {
			t.Errorf("%s: implausible latency %g s", o.Name, lat)
		}
		if lat*perInstr < 0.5 {
			t.Errorf("%s: a dependent round (%g s) faster than independent ones go through (%g/s)", o.Name, lat, perInstr)
		}
	}
	if !ran {
		t.Skip("no chain loop runs here (amd64 only, and a CPU with AES-NI)")
	}
}
