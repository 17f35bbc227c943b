package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/fastxts/xts/cmd/xts/internal/exit"
)

// keySpec is where the raw XTS key comes from, with cryptsetup's
// plain-mode flags: --key-file (-d), --key-size (-s) in bits,
// --keyfile-offset and --keyfile-size (-l) in bytes.
type keySpec struct {
	path   string
	bits   int    // --key-size: 256, 384 or 512; 0: the key file's exact length decides
	offset uint64 // --keyfile-offset: bytes of the key file skipped
	size   uint64 // --keyfile-size: bytes read at most; 0: no limit
}

// flags defines the key flags on fs.
func (k *keySpec) flags(fs *cmdFlags) {
	fs.StringVar(&k.path, "key-file", "", "raw key `FILE`, or - for standard input (required)")
	fs.alias("d", "key-file")
	fs.IntVar(&k.bits, "key-size", 0, "key size in `BITS` (256, 384 or 512: AES-128/192/256-XTS): read exactly that many bytes from the key file, the rest is ignored; without it the key file must hold exactly 32, 48 or 64 bytes")
	fs.alias("s", "key-size")
	fs.Uint64Var(&k.offset, "keyfile-offset", 0, "`BYTES` at the start of the key file to skip")
	fs.Uint64Var(&k.size, "keyfile-size", 0, "read at most `BYTES` from the key file (after --keyfile-offset)")
	fs.alias("l", "keyfile-size")
}

func (k *keySpec) validate() error {
	if k.path == "" {
		return usagef("--key-file is required (the key is never taken from the command line)")
	}
	switch k.bits {
	case 0, 256, 384, 512:
	default:
		return usagef("--key-size %d: want 256, 384 or 512 bits (AES-128, -192 or -256 in XTS mode)", k.bits)
	}
	if k.bits > 0 && k.size > 0 && k.size < uint64(k.bits/8) {
		return usagef("--keyfile-size %d is less than --key-size %d needs (%d bytes)", k.size, k.bits, k.bits/8)
	}
	return nil
}

// read reads the key. It never accepts more or fewer bytes than a valid
// key, so a passphrase file or a hex dump is caught here.
func (k *keySpec) read(stdin io.Reader) ([]byte, error) {
	r, name, done, err := openKeyFile(k.path, k.offset, stdin)
	if err != nil {
		return nil, err
	}
	defer done()
	want := 65 // one more than the longest key: a longer file is an error
	switch {
	case k.bits > 0:
		want = k.bits / 8
	case k.size > 0:
		want = int(min(k.size, 65))
	}
	key := make([]byte, want)
	n, err := io.ReadFull(r, key)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		clear(key)
		return nil, fmt.Errorf("reading key file %s: %w", name, err)
	}
	key = key[:n]
	after := ""
	if k.offset > 0 {
		after = " after --keyfile-offset"
	}
	switch {
	case k.bits > 0 && n < want:
		clear(key)
		return nil, fmt.Errorf("bad key: key file %s holds %d bytes%s; --key-size %d needs %d", name, n, after, k.bits, want)
	case k.bits == 0 && n == 65:
		clear(key)
		return nil, fmt.Errorf("bad key: key file %s holds more than 64 bytes%s; want exactly 32, 48 or 64 raw bytes, or give --key-size", name, after)
	case k.bits == 0 && n != 32 && n != 48 && n != 64:
		clear(key)
		return nil, fmt.Errorf("bad key: key file %s holds %d bytes%s; want exactly 32, 48 or 64 raw bytes", name, n, after)
	}
	if isHex(key) {
		clear(key)
		return nil, fmt.Errorf("bad key: key file %s holds only hex digits; it must hold the raw key bytes (convert it with xxd -r -p)", name)
	}
	return key, nil
}

// openKeyFile opens a key file (- is standard input) and skips its first
// offset bytes, as cryptsetup's --keyfile-offset does; name is what
// messages call it. Call done when finished.
func openKeyFile(path string, offset uint64, stdin io.Reader) (r io.Reader, name string, done func(), err error) {
	r, name, done = stdin, "standard input", func() {}
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, "", nil, fmt.Errorf("key file: %w", err)
		}
		r, name, done = f, path, func() { f.Close() }
	}
	if offset > 0 {
		if n, err := io.CopyN(io.Discard, r, int64(offset)); err != nil {
			done()
			if errors.Is(err, io.EOF) {
				return nil, "", nil, exit.Errorf(exitUsage, "key file %s holds only %d bytes; --keyfile-offset %d skips past its end", name, n, offset)
			}
			return nil, "", nil, fmt.Errorf("reading key file %s: %w", name, err)
		}
	}
	return r, name, done, nil
}

// isHex reports whether b is all hexadecimal digits: a key written out as
// text by mistake. A random raw key looks like that with probability
// (22/256)^32 < 1e-33.
func isHex(b []byte) bool {
	for _, c := range b {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return false
		}
	}
	return true
}
