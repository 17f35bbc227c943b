package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestNoNetNoCgo keeps the command off the net package on Linux: with
// cgo on, net links the C library for its resolver, and every xts
// command then starts through the dynamic loader and makes its threads
// with pthread_create (3-8 ms of a 40-60 ms BitLocker decrypt on the VM
// where it was measured). xts serve's sockets come from internal/sock.
func TestNoNetNoCgo(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("no go command to list the dependencies with: %v", err)
	}
	cmd := exec.Command(gobin, "list", "-deps", ".")
	cmd.Env = append(cmd.Environ(), "CGO_ENABLED=1", "GOOS=linux")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	for _, bad := range []string{"net", "runtime/cgo", "os/user"} {
		if slices.Contains(deps, bad) {
			t.Errorf("cmd/xts imports %s on Linux (its importer: go list -f '{{.ImportPath}}: {{.Imports}}' -deps ./cmd/xts)", bad)
		}
	}
	if !slices.Contains(deps, "github.com/fastxts/xts/internal/sock") {
		t.Error("go list -deps does not list internal/sock: is the listing right?")
	}
}
