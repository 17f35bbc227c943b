// Command argon2time runs one Argon2id derivation, by this package or by
// golang.org/x/crypto/argon2, so that its wall, user and system time can be
// measured from outside, beside `cryptsetup open --test-passphrase` on a
// keyslot of the same cost:
//
//	go build -o /tmp/argon2time ./internal/argon2/argon2time
//	/usr/bin/time -f '%e s wall %U s user %S s sys %M KiB max RSS' /tmp/argon2time -impl this -t 4 -m 1048576 -p 2
//	/usr/bin/time -f '%e s wall %U s user %S s sys %M KiB max RSS' /tmp/argon2time -impl xcrypto -t 4 -m 1048576 -p 2
//
// It prints the derived key in hex (the two implementations must agree) and
// the time the derivation itself took.
package main

import (
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"time"

	xargon2 "golang.org/x/crypto/argon2"

	"github.com/fastxts/xts/internal/argon2"
)

func main() {
	impl := flag.String("impl", "this", "implementation: this (internal/argon2) or xcrypto (golang.org/x/crypto/argon2)")
	passes := flag.Uint("t", 4, "time cost (passes)")
	memory := flag.Uint("m", 1<<20, "memory cost in KiB")
	lanes := flag.Uint("p", 2, "parallelism (lanes)")
	keyLen := flag.Uint("len", 64, "key length in bytes")
	password := flag.String("password", "password", "password")
	salt := flag.String("salt", "0123456789abcdef0123456789abcdef", "salt")
	flag.Parse()
	if *passes < 1 || *passes > 1<<32-1 || *memory > 1<<32-1 || *lanes < 1 || *lanes > 255 || *keyLen < 1 || *keyLen > 1<<32-1 {
		fmt.Fprintln(os.Stderr, "argon2time: -t must be at least 1, -p between 1 and 255, -len at least 1, all 32-bit")
		os.Exit(2)
	}
	var f func(password, salt []byte, time, memory uint32, threads uint8, keyLen uint32) []byte
	switch *impl {
	case "this":
		f = argon2.IDKey
	case "xcrypto":
		f = xargon2.IDKey
	default:
		fmt.Fprintf(os.Stderr, "argon2time: unknown -impl %q (this or xcrypto)\n", *impl)
		os.Exit(2)
	}
	start := time.Now()
	key := f([]byte(*password), []byte(*salt), uint32(*passes), uint32(*memory), uint8(*lanes), uint32(*keyLen))
	elapsed := time.Since(start)
	fmt.Printf("%s argon2id t=%d m=%d p=%d: %s in %.3f s\n", *impl, *passes, *memory, *lanes, hex.EncodeToString(key), elapsed.Seconds())
}
