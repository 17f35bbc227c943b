package nbd

import (
	"os"
	"testing"

	"github.com/fastxts/xts/internal/sock"
)

// listenUnix is how the tests listen: the sockets cmd/xts serves on.
var listenUnix = sock.ListenUnix

// TestMain runs the tests, or, when the test binary is started again by
// a test as a server of its own (childEnv set), that server.
func TestMain(m *testing.M) {
	if cfg := os.Getenv(childEnv); cfg != "" {
		os.Exit(runChild(cfg))
	}
	os.Exit(m.Run())
}
