package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/fastxts/xts/cmd/xts/internal/exit"
	"golang.org/x/term"
)

// maxKeyFile is the most a LUKS key file may hold, as cryptsetup's default
// --keyfile-size-max (8 MiB).
const maxKeyFile = 8 << 20

// passSpec is where a LUKS passphrase comes from: --key-file (-d), read
// whole as cryptsetup reads it (after --keyfile-offset, at most
// --keyfile-size bytes; - is standard input), or, without it, a prompt on
// the terminal, or one line of standard input when that is not a terminal
// (as cryptsetup does). Never from the command line.
type passSpec struct {
	path   string
	offset uint64
	size   uint64
}

func (p *passSpec) flags(fs *cmdFlags) {
	fs.StringVar(&p.path, "key-file", "", "read the passphrase from `FILE` (all of it, as cryptsetup does; - for standard input) instead of prompting")
	fs.alias("d", "key-file")
	fs.Uint64Var(&p.offset, "keyfile-offset", 0, "`BYTES` at the start of the key file to skip")
	fs.Uint64Var(&p.size, "keyfile-size", 0, "read at most `BYTES` from the key file; 0: all of it (up to 8 MiB)")
	fs.alias("l", "keyfile-size")
}

// readKeyFile reads a LUKS key file the way cryptsetup does.
func readKeyFile(path string, offset, size uint64, stdin io.Reader) ([]byte, error) {
	r, name, done, err := openKeyFile(path, offset, stdin)
	if err != nil {
		return nil, err
	}
	defer done()
	limit := int64(maxKeyFile)
	if size > 0 {
		limit = int64(min(size, maxKeyFile))
	}
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		clear(b)
		return nil, fmt.Errorf("reading key file %s: %w", name, err)
	}
	if size == 0 && int64(len(b)) > limit {
		clear(b)
		return nil, exit.Errorf(exitUsage, "key file %s is larger than %d bytes (cryptsetup's limit)", name, maxKeyFile)
	}
	if int64(len(b)) > limit {
		b = b[:limit]
	}
	if size > 0 && uint64(len(b)) < size {
		clear(b)
		return nil, exit.Errorf(exitUsage, "key file %s holds %d bytes, less than --keyfile-size %d", name, len(b), size)
	}
	if len(b) == 0 {
		return nil, exit.Errorf(exitUsage, "key file %s is empty", name)
	}
	return b, nil
}

// passphrase returns the passphrase: from the key file, else prompted
// for (twice when verify, for a new passphrase).
func (p *passSpec) passphrase(e *env, prompt string, verify bool) ([]byte, error) {
	if p.path != "" {
		return readKeyFile(p.path, p.offset, p.size, e.stdin)
	}
	return promptPass(e, prompt, verify)
}

// orVolumeKey returns the raw volume key in volumeKeyFile when one is
// named (cryptsetup --volume-key-file), else the passphrase for image
// name.
func (p *passSpec) orVolumeKey(e *env, volumeKeyFile, name string) ([]byte, error) {
	if volumeKeyFile != "" {
		return readKeyFile(volumeKeyFile, 0, 0, e.stdin)
	}
	return p.passphrase(e, fmt.Sprintf("Enter passphrase for %s: ", name), false)
}

// promptPass reads a passphrase from the terminal (without echo), or one
// line of standard input when it is not a terminal.
func promptPass(e *env, prompt string, verify bool) ([]byte, error) {
	f, ok := e.stdin.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		line, err := e.readLine()
		if err != nil {
			return nil, err
		}
		return line, nil
	}
	return terminalPass(e, f, prompt, verify, exit.Errorf(exitUsage, "empty passphrase"))
}

// terminalPass reads a passphrase from the terminal f without echo, and
// when verify asks for it again. An empty one is refused with emptyErr
// (before any second prompt) unless emptyErr is nil.
func terminalPass(e *env, f *os.File, prompt string, verify bool, emptyErr error) ([]byte, error) {
	read := func(msg string) ([]byte, error) {
		fmt.Fprint(e.stderr, msg)
		b, err := term.ReadPassword(int(f.Fd()))
		fmt.Fprintln(e.stderr)
		if err != nil {
			return nil, fmt.Errorf("reading the passphrase: %w", err)
		}
		return b, nil
	}
	pass, err := read(prompt)
	if err != nil {
		return nil, err
	}
	if len(pass) == 0 && emptyErr != nil {
		return nil, emptyErr
	}
	if verify {
		again, err := read("Verify passphrase: ")
		if err != nil {
			clear(pass)
			return nil, err
		}
		same := bytes.Equal(pass, again)
		clear(again)
		if !same {
			clear(pass)
			return nil, exit.Errorf(exitUsage, "Passphrases do not match.")
		}
	}
	return pass, nil
}

// readLine reads one passphrase line (its newline dropped) from standard
// input, buffered once for the whole command, so that two lines (old and
// new passphrase) can follow each other on one pipe.
func (e *env) readLine() ([]byte, error) {
	if e.lines == nil {
		e.lines = bufio.NewReader(e.stdin)
	}
	br := e.lines
	line, err := br.ReadBytes('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("reading the passphrase from standard input: %w", err)
	}
	line = bytes.TrimSuffix(line, []byte("\n"))
	if len(line) == 0 {
		return nil, exit.Errorf(exitUsage, "no passphrase: give --key-file, or type it on a terminal")
	}
	if len(line) > 512 {
		clear(line)
		return nil, exit.Errorf(exitUsage, "passphrase line longer than 512 bytes (use --key-file)")
	}
	return line, nil
}
