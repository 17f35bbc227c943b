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
