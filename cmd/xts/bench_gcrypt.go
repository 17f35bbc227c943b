package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// envGcrypt names libgcrypt harnesses when --gcrypt is auto.
const envGcrypt = "XTS_GCRYPT_BENCH"

// gcryptCiphers are the ciphers the harness can time in XTS.
var gcryptCiphers = []string{"aes", "serpent", "twofish", "camellia"}

// A gcryptHarness is one build of scripts/gcrypt-bench/harness.c, run as
// a subprocess (cmd/xts has no cgo).
type gcryptHarness struct {
	path  string
	label string // "libgcrypt-1.12.4", from the harness's first line
	auto  bool   // found, not named: a failure is a warning
}

// gcryptDefaults are the harnesses scripts/gcrypt-sid.sh makes, in the
// user's cache directory, that exist.
func gcryptDefaults() []string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return nil
	}
	var out []string
	for _, n := range []string{"gcrypt-bench", "gcrypt-bench-system"} {
		p := filepath.Join(dir, "xts-gcrypt", n)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			out = append(out, p)
		}
	}
	return out
}

// resolveGcrypt reads --gcrypt: none, auto (the XTS_GCRYPT_BENCH
// variable's comma-separated paths, else gcryptDefaults, and only when
// every implementation is timed), or comma-separated paths.
func (o *benchOptions) resolveGcrypt(flag string) error {
	var paths []string
	auto := false
	switch flag {
	case "none":
		return nil
	case "auto":
		if o.explicitImpl {
			return nil
		}
		auto = true
		if v := os.Getenv(envGcrypt); v != "" {
			paths = strings.Split(v, ",")
		} else {
			paths = gcryptDefaults()
		}
	default:
		paths = strings.Split(flag, ",")
	}
	if !slices.Contains(gcryptCiphers, o.cipher) {
		if !auto {
			return usagef("--gcrypt: the harness has no %s (it times %s)", o.cipher, strings.Join(gcryptCiphers, ", "))
		}
		return nil
	}
	for _, p := range paths {
		if p = strings.TrimSpace(p); p != "" {
			o.gcrypt = append(o.gcrypt, &gcryptHarness{path: p, auto: auto})
		}
	}
	return nil
}

// gcryptSizes are the message sizes the harness can time (multiples of
// 16: libgcrypt's XTS has ciphertext stealing, but the harness keeps to
// whole blocks).
func gcryptSizes(sizes []int) []int {
	var out []int
	for _, s := range sizes {
		if s%16 == 0 {
			out = append(out, s)
		}
	}
	return out
}

// runGcrypt runs one harness for one pass (every cell once for d) and
// keeps the best MB/s of each of its rows' cells.
func (b *bench) runGcrypt(h *gcryptHarness, d time.Duration) error {
	sizes := gcryptSizes(b.o.sizes)
	if len(sizes) == 0 {
		return nil
	}
	join := func(v []int) string {
		var s []string
		for _, x := range v {
			s = append(s, strconv.Itoa(x))
		}
		return strings.Join(s, ",")
	}
	args := []string{"-t", strconv.FormatFloat(d.Seconds(), 'f', -1, 64), "-p", "1", "-c", b.o.cipher,
		"-k", join(b.o.keys), "-o", strings.Join(b.o.ops, ","), "-s", join(sizes), "-m", "xts"}
	// Generous: calibration and every cell, with room for a loaded machine.
	limit := time.Duration(len(b.o.keys)*len(b.o.ops)*len(sizes))*(4*d+time.Second) + 30*time.Second
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, h.path, args...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("libgcrypt harness %s: %v: %s", h.path, err, strings.TrimSpace(stderr.String()))
	}
	label, cells, err := parseGcrypt(out)
	if err != nil {
		return fmt.Errorf("libgcrypt harness %s: %v", h.path, err)
	}
	if h.label == "" {
		h.label = label
		for _, r := range b.rows {
			if r.harness == h {
				r.impl = label
			}
		}
	}
	for _, r := range b.rows {
		if r.harness != h {
			continue
		}
		for _, c := range r.cells {
			if v, ok := cells[gcryptKey{b.o.cipher, r.keyBits, r.op, c.size}]; ok {
				c.mbps = max(c.mbps, v)
			}
		}
	}
	return nil
}

type gcryptKey struct {
	cipher  string
	keyBits int
	op      string
	size    int
}

// parseGcrypt reads the harness's output: "# libgcrypt VERSION", then
// cipher, keybits, mode, op, size and MB/s per line, tab-separated. It
// keeps the XTS lines.
func parseGcrypt(out []byte) (string, map[gcryptKey]float64, error) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	label := ""
	cells := map[gcryptKey]float64{}
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "# libgcrypt "); ok && label == "" {
			label = "libgcrypt-" + strings.TrimSpace(v)
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 6 {
			return "", nil, fmt.Errorf("line %q: want 6 tab-separated fields", line)
		}
		bits, err1 := strconv.Atoi(f[1])
		size, err2 := strconv.Atoi(f[4])
		mbps, err3 := strconv.ParseFloat(f[5], 64)
		if err1 != nil || err2 != nil || err3 != nil || !(mbps >= 0) {
			return "", nil, fmt.Errorf("line %q: bad number", line)
		}
		if f[2] == "xts" {
			cells[gcryptKey{f[0], bits, f[3], size}] = mbps
		}
	}
	if label == "" {
		return "", nil, fmt.Errorf("no \"# libgcrypt VERSION\" line")
	}
	return label, cells, nil
}
