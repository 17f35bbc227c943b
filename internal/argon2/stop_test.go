package argon2

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"testing"

	xargon2 "golang.org/x/crypto/argon2"
)

// sliceLog records the slices filled through testSliceDone.
type sliceLog struct {
	slices []uint32 // pass*syncPoints+slice, in the order filled
	mem    []block  // the last matrix's memory
	last   uint64   // after the last slice: lane 0's last block's first word
}

// logSlices sets testSliceDone for the rest of the test and returns what it
// records.
func logSlices(t *testing.T) *sliceLog {
	t.Helper()
	l := new(sliceLog)
	testSliceDone = func(m *matrix, pass, slice uint32) {
		l.slices = append(l.slices, pass*syncPoints+slice)
		l.mem = m.region.blocks
		l.last = m.lane(0)[m.laneLen-1][0]
	}
	t.Cleanup(func() { testSliceDone = nil })
	return l
}

// TestIDKeyStopBefore: a stop already reported returns ErrStopped after one
// call, before any memory is allocated or filled.
func TestIDKeyStopBefore(t *testing.T) {
	log := logSlices(t)
	calls := 0
	stop := func() bool { calls++; return true }
	key, err := IDKeyStop(stop, []byte("pw"), []byte("saltsalt"), 3, 1024, 2, 32)
	if !errors.Is(err, ErrStopped) || key != nil {
		t.Fatalf("IDKeyStop = %x, %v; want nil, ErrStopped", key, err)
	}
	if calls != 1 || len(log.slices) != 0 {
		t.Fatalf("stop called %d times, %d slices filled; want 1 and 0", calls, len(log.slices))
	}
	// 1 MiB would come from the Go heap: a stopped call allocates nothing.
	if n := testing.AllocsPerRun(10, func() {
		IDKeyStop(stop, []byte("pw"), []byte("saltsalt"), 3, 1024, 2, 32)
	}); n != 0 {
		t.Fatalf("a stopped IDKeyStop allocates %v times", n)
	}
}

// TestIDKeyStopDuring: a stop that turns true before slice k (k slices
// done) ends the derivation there: exactly k slices filled, in order, stop
// not called again, ErrStopped, and the memory zeroed. A stop that never
// turns true gives IDKey's key after every slice.
func TestIDKeyStopDuring(t *testing.T) {
	for _, tc := range []struct {
		time, memory uint32
		threads      uint8
	}{{1, 64, 1}, {3, 256, 1}, {2, 2053, 3}, {6, 416, 1}} {
		slicesTotal := int(tc.time) * syncPoints
		for k := 0; k <= slicesTotal; k++ {
			t.Run(fmt.Sprintf("t=%d,m=%d,p=%d,after=%d", tc.time, tc.memory, tc.threads, k), func(t *testing.T) {
				log := logSlices(t)
				calls := 0
				// Call 1 is before the allocation, call k+2 before
				// slice k.
				stop := func() bool { calls++; return calls >= k+2 }
				pw, salt := []byte("correct horse"), []byte("16 bytes of salt")
				key, err := IDKeyStop(stop, pw, salt, tc.time, tc.memory, tc.threads, 64)
				if len(log.slices) != k {
					t.Fatalf("%d slices filled (%v), want %d", len(log.slices), log.slices, k)
				}
				for i, s := range log.slices {
					if s != uint32(i) {
						t.Fatalf("slices filled in the order %v", log.slices)
					}
				}
				if k == slicesTotal {
					if err != nil || calls != slicesTotal+1 {
						t.Fatalf("never stopped: err %v, %d calls, want nil and %d", err, calls, slicesTotal+1)
					}
					if want := IDKey(pw, salt, tc.time, tc.memory, tc.threads, 64); !bytes.Equal(key, want) {
						t.Fatalf("key %x, IDKey %x", key, want)
					}
					return
				}
				if !errors.Is(err, ErrStopped) || key != nil {
					t.Fatalf("IDKeyStop = %x, %v; want nil, ErrStopped", key, err)
				}
				if calls != k+2 {
					t.Fatalf("stop called %d times, want %d (not again after true)", calls, k+2)
				}
				// The last lane's last block is written in the last
				// slice of the first pass: by then, the memory held data.
				if k >= syncPoints && log.last == 0 {
					t.Fatal("memory empty after a full pass (test broken)")
				}
				for i := range log.mem {
					if log.mem[i] != (block{}) {
						t.Fatalf("block %d of %d not zeroed after the stop", i, len(log.mem))
					}
				}
			})
		}
	}
}

// TestIDKeyStopNever: with a stop that never reports true (or nil),
// IDKeyStop is IDKey and x/crypto's IDKey, and deriveKey with such a stop
// still gives RFC 9106's Argon2id vector.
func TestIDKeyStopNever(t *testing.T) {
	never := func() bool { return false }
	for _, stop := range []func() bool{nil, never} {
		for _, tc := range []struct {
			time, memory uint32
			threads      uint8
			keyLen       uint32
		}{{1, 8, 1, 32}, {3, 1000, 4, 100}, {2, 4096, 2, 192}} {
			pw, salt := []byte("pw"), []byte("somesalt")
			got, err := IDKeyStop(stop, pw, salt, tc.time, tc.memory, tc.threads, tc.keyLen)
			want := xargon2.IDKey(pw, salt, tc.time, tc.memory, tc.threads, tc.keyLen)
			if err != nil || !bytes.Equal(got, want) || !bytes.Equal(got, IDKey(pw, salt, tc.time, tc.memory, tc.threads, tc.keyLen)) {
				t.Errorf("stop %v, %+v: %x, %v; want %x", stop != nil, tc, got, err, want)
			}
		}
	}
	got, err := deriveKey(typeArgon2id, bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 16),
		bytes.Repeat([]byte{3}, 8), bytes.Repeat([]byte{4}, 12), 3, 32, 4, 32, never)
	if want, _ := hex.DecodeString("0d640df58d78766c08c037a34a8b53c9d01ef0452d75b65eb52520e96b01e659"); err != nil || !bytes.Equal(got, want) {
		t.Fatalf("RFC 9106 Argon2id with a stop: %x, %v", got, err)
	}
}

// TestIDKeyStopPanics: IDKeyStop refuses zero passes, lanes or key length
// as IDKey does, even when stop would report true.
func TestIDKeyStopPanics(t *testing.T) {
	for _, tc := range []struct {
		time    uint32
		threads uint8
		keyLen  uint32
	}{{0, 1, 32}, {1, 0, 32}, {1, 1, 0}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%+v: no panic", tc)
				}
			}()
			IDKeyStop(func() bool { return true }, []byte("pw"), []byte("salt"), tc.time, 64, tc.threads, tc.keyLen)
		}()
	}
}
