// Package xts (directory internal/xcryptotest) runs golang.org/x/crypto/xts's
// own test file, xts_test.go, copied from the module cache (v0.59.0) with
// only its import changed (a dot import of github.com/fastxts/xts) and
// AllowEqualKeyHalves() where its vectors need it (IEEE 1619 vector 1 and
// the all-zero keys): the drop-in promise, checked by x/crypto's own test.
// xts_test.go keeps its Go Authors copyright notice (BSD licence).
//
// TestMain below runs the file once per available implementation, by
// running this test binary again with XTS_IMPLEMENTATION set.
package xts

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"

	fastxts "github.com/fastxts/xts"
)

// envChild marks a re-executed run, pinned to one implementation.
const envChild = "XTS_XCRYPTOTEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(envChild) != "" {
		os.Exit(m.Run())
	}
	failed := false
	ran := 0
	for _, im := range fastxts.Implementations() {
		if im.Cipher != "" {
			continue // not AES (serpent-avx512 runs serpent.NewCipher only)
		}
		if !im.Available {
			fmt.Printf("x/crypto/xts tests: %s skipped: %s\n", im.Name, im.Note)
			continue
		}
		cmd := exec.Command(os.Args[0], os.Args[1:]...)
		cmd.Env = append(os.Environ(), envChild+"=1", "XTS_IMPLEMENTATION="+im.Name)
		out, err := cmd.CombinedOutput()
		if errors.Is(err, syscall.ENOEXEC) {
			// qemu-user without binfmt_misc cannot start the binary
			// again: only the default implementation runs, below.
			fmt.Printf("x/crypto/xts tests: cannot run the test binary again (%v); only the default implementation is tested\n", err)
			os.Exit(m.Run())
		}
		fmt.Printf("x/crypto/xts tests with %s: %v\n%s", im.Name, status(err), out)
		if err != nil {
			failed = true
		}
		ran++
	}
	if failed || ran == 0 {
		os.Exit(1)
	}
	// The default implementation is covered above; this run checks that
	// XTS_IMPLEMENTATION was honoured in the children.
	os.Exit(m.Run())
}

func status(err error) string {
	if err != nil {
		return "FAIL (" + err.Error() + ")"
	}
	return "ok"
}

// TestPinnedImplementation: in each child run, the x/crypto tests ran on
// the implementation XTS_IMPLEMENTATION names.
func TestPinnedImplementation(t *testing.T) {
	want := os.Getenv("XTS_IMPLEMENTATION")
	if os.Getenv(envChild) == "" || want == "" {
		t.Skip("parent run: the children run the x/crypto tests pinned to each implementation")
	}
	for _, im := range fastxts.Implementations() {
		if im.Default && im.Name != want {
			t.Fatalf("default implementation %s, XTS_IMPLEMENTATION=%s", im.Name, want)
		}
	}
}
