package nbd

import (
	"os"
	"testing"
)

// TestMain runs the tests, or, when the test binary is started again by
// a test as a server of its own (childEnv set), that server.
func TestMain(m *testing.M) {
	if cfg := os.Getenv(childEnv); cfg != "" {
		os.Exit(runChild(cfg))
	}
	os.Exit(m.Run())
}
