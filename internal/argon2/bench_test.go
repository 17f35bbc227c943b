package argon2

import (
	"fmt"
	"testing"

	xargon2 "golang.org/x/crypto/argon2"
)

// BenchmarkIDKey times IDKey beside x/crypto's on the same parameters. The
// small sizes stay in cache and compare the compression functions; for
// cryptsetup's default (t=4, m=1 GiB, p=2) run cmd argon2time by hand (see
// its doc), since a 1 GiB benchmark loop is too heavy for a shared machine.
func BenchmarkIDKey(b *testing.B) {
	password, salt := []byte("password"), []byte("somesaltsomesalt")
	for _, c := range []struct {
		time, memory uint32
		threads      uint8
	}{{1, 1 << 10, 1}, {1, 16 << 10, 2}, {1, 64 << 10, 2}} {
		name := fmt.Sprintf("t=%d,m=%dKiB,p=%d", c.time, c.memory, c.threads)
		b.Run("impl=this/"+name, func(b *testing.B) {
			b.SetBytes(int64(c.memory) * 1024 * int64(c.time))
			for b.Loop() {
				IDKey(password, salt, c.time, c.memory, c.threads, 32)
			}
		})
		b.Run("impl=xcrypto/"+name, func(b *testing.B) {
			b.SetBytes(int64(c.memory) * 1024 * int64(c.time))
			for b.Loop() {
				xargon2.IDKey(password, salt, c.time, c.memory, c.threads, 32)
			}
		})
	}
}

// BenchmarkCompress times one compression function call (a 1 KiB block)
// for every implementation this CPU runs.
func BenchmarkCompress(b *testing.B) {
	var out, x, y, tmp block
	for i := range x {
		x[i], y[i] = uint64(i)*0x9e3779b97f4a7c15, ^uint64(i)
	}
	for _, impl := range compressImpls {
		b.Run("impl="+impl.name, func(b *testing.B) {
			b.SetBytes(1024)
			for b.Loop() {
				impl.run(&out, &x, &y, &tmp, true)
			}
		})
	}
}
