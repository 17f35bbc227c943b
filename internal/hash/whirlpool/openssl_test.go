//go:build openssl && cgo

package whirlpool

import (
	"testing"

	"github.com/fastxts/xts/internal/hashtest"
)

// TestOpenSSL compares Sum with OpenSSL's WHIRLPOOL, an independent
// implementation, on every length 0…300 and random lengths up to 20,000.
//
// Needs cgo and libssl-dev: go test -tags openssl -run OpenSSL ./internal/hash/...
func TestOpenSSL(t *testing.T) { hashtest.OpenSSL(t, spec, "WHIRLPOOL") }
