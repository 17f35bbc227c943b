//go:build openssl && cgo

package main

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/fastxts/xts/internal/osslxts"
)

// TestEndToEndOpenSSL builds the xts binary and checks what `xts encrypt`
// writes, sector by sector, against OpenSSL's libcrypto AES-XTS under the
// tweak dm-crypt would use for that sector: a 16-byte IV holding the
// sector number little-endian (plain: its low 32 bits), counted as the
// test computes it here from dm-crypt's rules. Then `xts decrypt` must
// round-trip, and streaming through - must give the same bytes.
//
// Needs cgo and libssl-dev: go test -tags openssl -run EndToEnd ./cmd/xts
func TestEndToEndOpenSSL(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "xts")
	build := exec.Command("go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}

	for _, c := range dmCases() {
		for _, keyLen := range []int{32, 64} { // OpenSSL has no AES-192-XTS
			t.Run(fmt.Sprintf("%s/AES-%d", c.name, keyLen*4), func(t *testing.T) {
				dir := t.TempDir()
				key := randBytes(t, keyLen)
				keyPath := writeFile(t, dir, "key", key)
				plain := randBytes(t, c.sectorSize*c.sectors)
				junk := randBytes(t, 512*c.offset)
				in := writeFile(t, dir, "plain", append(append([]byte{}, junk...), plain...))
				enc := filepath.Join(dir, "enc")
				args := append([]string{"--key-file", keyPath}, c.args...)

				runBin(t, bin, nil, append(append([]string{"encrypt"}, args...), in, enc)...)
				got := readFile(t, enc)
				if len(got) != len(plain) {
					t.Fatalf("encrypted image has %d bytes, want %d", len(got), len(plain))
				}
				for k := 0; k < c.sectors; k++ {
					var iv [16]byte
					binary.LittleEndian.PutUint64(iv[:], c.iv(uint64(k)))
					lo, hi := k*c.sectorSize, (k+1)*c.sectorSize
					want := osslxts.MustXTS(true, key, iv[:], plain[lo:hi])
					if !bytes.Equal(got[lo:hi], want) {
						t.Fatalf("sector %d (IV %d) differs from OpenSSL", k, c.iv(uint64(k)))
					}
				}

				// Streaming: - to - through pipes.
				streamed := runBin(t, bin, append(append([]byte{}, junk...), plain...), append(append([]string{"encrypt"}, args...), "-", "-")...)
				if !bytes.Equal(streamed, got) {
					t.Fatal("streaming output differs from file output")
				}

				// Decrypt back; the ciphertext sits behind the same junk.
				cin := writeFile(t, dir, "cipher", append(append([]byte{}, junk...), got...))
				dec := filepath.Join(dir, "dec")
				runBin(t, bin, nil, append(append([]string{"decrypt"}, args...), cin, dec)...)
				if !bytes.Equal(readFile(t, dec), plain) {
					t.Fatal("decrypt does not round-trip")
				}
			})
		}
	}
}

// runBin runs the built binary and returns its standard output; any exit
// status but 0 fails the test.
func runBin(t *testing.T, bin string, stdin []byte, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Stdin = bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("xts %v: %v: %s", args, err, errb.String())
	}
	if errb.Len() != 0 {
		t.Errorf("xts %v wrote to stderr: %s", args, errb.String())
	}
	return out.Bytes()
}
