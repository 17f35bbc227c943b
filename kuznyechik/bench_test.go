package kuznyechik_test

import (
	"testing"

	"github.com/fastxts/xts/internal/blocktest"
)

func BenchmarkEncrypt(b *testing.B) { blocktest.BenchEncrypt(b, spec) }

func BenchmarkDecrypt(b *testing.B) { blocktest.BenchDecrypt(b, spec) }

func BenchmarkNewCipher(b *testing.B) { blocktest.BenchNewCipher(b, spec) }

// BenchmarkXTS is Kuznyechik-XTS (VeraCrypt) over 4 KiB sectors through
// the root package.
func BenchmarkXTS(b *testing.B) { blocktest.BenchXTS(b, spec) }
