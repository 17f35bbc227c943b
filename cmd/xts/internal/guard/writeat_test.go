//go:build unix

package guard

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestWriteAt: a file output written at offsets, out of order and from
// several goroutines, holds every piece once committed and counts them;
// standard output has no offsets.
func TestWriteAt(t *testing.T) {
	bothOutputKinds(t, func(t *testing.T, noUnnamed bool) {
		var stderr bytes.Buffer
		g, _ := testGuard(t, &stderr, noUnnamed, nil)
		path := filepath.Join(t.TempDir(), "out")
		o, err := g.Create(Spec{Path: path})
		if err != nil {
			t.Fatal(err)
		}
		if !o.Positional() {
			t.Fatal("a file output is not Positional")
		}
		const piece, pieces = 1000, 16
		want := make([]byte, piece*pieces)
		for i := range want {
			want[i] = byte(i * 7)
		}
		var wg sync.WaitGroup
		for i := pieces - 1; i >= 0; i-- { // last first
			wg.Go(func() {
				if n, err := o.WriteAt(want[i*piece:(i+1)*piece], int64(i*piece)); n != piece || err != nil {
					t.Errorf("WriteAt piece %d = %d, %v", i, n, err)
				}
			})
		}
		wg.Wait()
		if o.Written() != int64(len(want)) {
			t.Errorf("Written = %d, want %d", o.Written(), len(want))
		}
		if err := g.Commit(); err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(path); err != nil || !bytes.Equal(got, want) {
			t.Errorf("committed output: %d bytes, %v; differs from what was written", len(got), err)
		}
	})
	t.Run("stdout", func(t *testing.T) {
		var stderr, stdout bytes.Buffer
		g, _ := testGuard(t, &stderr, false, nil)
		o, err := g.Create(Spec{Path: "-", Stdout: &stdout})
		if err != nil {
			t.Fatal(err)
		}
		if o.Positional() {
			t.Error("standard output is Positional")
		}
		if n, err := o.WriteAt([]byte("x"), 0); n != 0 || err == nil || !strings.Contains(err.Error(), "standard output") {
			t.Errorf("WriteAt on standard output = %d, %v; want an error naming it", n, err)
		}
		if stdout.Len() != 0 {
			t.Errorf("standard output got %q", stdout.String())
		}
	})
}
