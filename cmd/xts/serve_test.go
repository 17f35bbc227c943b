package main

import (
	"bytes"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fastxts/xts/internal/sector"
)

// TestServePlain serves dm-crypt plain-mode images made by xts encrypt
// (checked against dm-crypt elsewhere) with each numbering: nbdcopy
// reads back the plaintext, qemu-io writes at odd offsets, and xts
// decrypt of the image afterwards shows exactly those writes.
func TestServePlain(t *testing.T) {
	needServeTool(t, "nbdcopy")
	needServeTool(t, "qemu-io")
	tests := []struct {
		name  string
		flags []string
		lead  int // bytes before the data (--offset)
	}{
		{"plain64 512", nil, 0},
		{"plain64 4096", []string{"--sector-size", "4096"}, 0},
		{"4096 large IVs skip", []string{"--sector-size", "4096", "--iv-large-sectors", "--skip", "800"}, 0},
		{"plain 32-bit wrap", []string{"--cipher", "aes-xts-plain", "--skip", "4294967000"}, 0},
		{"offset and size", []string{"--offset", "16", "--size", "4096"}, 8192},
		{"key size 256", []string{"--key-size", "256"}, 0},
	}
	const size = 2 << 20
	writes := []struct{ off, n int }{{1, 3}, {511, 2}, {4095, 4098}, {300000, 70001}, {size - 5, 5}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			key := writeFile(t, dir, "key", randBytes(t, 64))
			raw := randBytes(t, size)
			rawPath := writeFile(t, dir, "raw", raw)
			enc := filepath.Join(dir, "enc")
			flags := append([]string{"-d", key}, tt.flags...)
			var cryptFlags []string // xts encrypt: --offset/--size cut the input, not wanted here
			for i := 0; i < len(flags); i++ {
				if flags[i] == "--offset" || flags[i] == "--size" {
					i++
					continue
				}
				cryptFlags = append(cryptFlags, flags[i])
			}
			if r := runCmd(t, nil, append(append([]string{"encrypt"}, cryptFlags...), rawPath, enc)...); r.code != 0 {
				t.Fatalf("encrypt: %s", r.stderr)
			}
			img := filepath.Join(dir, "img")
			lead := randBytes(t, tt.lead)
			tail := randBytes(t, 1000)
			imgData := append(append(bytes.Clone(lead), readFile(t, enc)...), tail...)
			if tt.lead == 0 {
				imgData = imgData[:len(imgData)-len(tail)] // the whole file is served
			}
			if err := os.WriteFile(img, imgData, 0o600); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out")
			if r := runCmd(t, nil, append(append([]string{"serve"}, flags...), "--run", `nbdcopy "$uri" `+out, img)...); r.code != 0 {
				t.Fatalf("serve, nbdcopy: %s", r.stderr)
			}
			if !bytes.Equal(readFile(t, out), raw) {
				t.Fatal("the served plaintext differs")
			}
			want := bytes.Clone(raw)
			script := "qemu-io -f raw"
			for i, w := range writes {
				script += " -c " + shellQuote("write -P "+strconv.Itoa(0x30+i)+" "+strconv.Itoa(w.off)+" "+strconv.Itoa(w.n))
				for j := range w.n {
					want[w.off+j] = byte(0x30 + i)
				}
			}
			if r := runCmd(t, nil, append(append([]string{"serve"}, flags...), "--run", script+` "$uri"`, img)...); r.code != 0 {
				t.Fatalf("serve, qemu-io: %s", r.stderr)
			}
			after := readFile(t, img)
			if !bytes.Equal(after[:tt.lead], lead) || (tt.lead > 0 && !bytes.Equal(after[len(after)-len(tail):], tail)) {
				t.Fatal("bytes outside --offset/--size changed")
			}
			enc2 := writeFile(t, dir, "enc2", after[tt.lead:tt.lead+size])
			dec := filepath.Join(dir, "dec")
			if r := runCmd(t, nil, append(append([]string{"decrypt"}, cryptFlags...), enc2, dec)...); r.code != 0 {
				t.Fatalf("decrypt: %s", r.stderr)
			}
			if !bytes.Equal(readFile(t, dec), want) {
				t.Fatal("the image's plaintext does not hold exactly the writes")
			}
		})
	}
}

func TestServeRefuses(t *testing.T) {
	dir := t.TempDir()
	key := writeFile(t, dir, "key", randBytes(t, 64))
	img := writeFile(t, dir, "img", make([]byte, 4096+100))
	tests := []struct {
		name    string
		args    []string
		code    int
		wantErr string
	}{
		{"no key", []string{"--socket", "s", img}, 1, "--key-file is required"},
		{"stdin image", []string{"-d", key, "--socket", "s", "-"}, 1, "not standard input"},
		{"two images", []string{"-d", key, "--socket", "s", img, img}, 1, "want IMAGE"},
		{"partial sector", []string{"-d", key, "--run", "true", img}, 4, "not a positive multiple"},
		{"offset past the end", []string{"-d", key, "--offset", "100", "--run", "true", img}, 4, "less than --offset"},
		{"bad sector size", []string{"-d", key, "--sector-size", "1000", "--run", "true", img}, 1, "--sector-size"},
		{"missing image", []string{"-d", key, "--run", "true", filepath.Join(dir, "nope")}, 4, "image"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runCmd(t, nil, append([]string{"serve"}, tt.args...)...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.wantErr) {
				t.Errorf("exit %d %q, want %d and %q", r.code, r.stderr, tt.code, tt.wantErr)
			}
		})
	}
}

// TestPlainBackendOddOffsets drives the plain-mode backend directly with
// reads and writes at odd offsets and lengths (qemu-io aligns its own to
// the advertised block size, so TestServePlain never sends the server a
// partial sector), against a plaintext model, then checks the image with
// xts decrypt.
func TestPlainBackendOddOffsets(t *testing.T) {
	for _, ss := range []int{512, 4096} {
		t.Run(strconv.Itoa(ss), func(t *testing.T) {
			const size = 256 << 10
			dir := t.TempDir()
			key := randBytes(t, 64)
			keyPath := writeFile(t, dir, "key", key)
			model := randBytes(t, size)
			rawPath := writeFile(t, dir, "raw", model)
			img := filepath.Join(dir, "img")
			ssFlag := strconv.Itoa(ss)
			if r := runCmd(t, nil, "encrypt", "-d", keyPath, "--sector-size", ssFlag, rawPath, img); r.code != 0 {
				t.Fatal(r.stderr)
			}
			o := cryptOptions{}
			o.num.sectorSize = ss
			b, err := openPlain(img, &o, false)
			if err != nil {
				t.Fatal(err)
			}
			defer b.close()
			o.cipher = "aes-xts-plain64"
			c, err := sector.New(o.cipher, key, o.num.sector())
			if err != nil {
				t.Fatal(err)
			}
			b.c = c
			r := mrand.New(mrand.NewPCG(uint64(ss), 9))
			for i := range 300 {
				off := r.IntN(size)
				n := r.IntN(min(size-off, 3*ss)) + 0
				if i%2 == 0 {
					p := randBytes(t, n)
					if _, err := b.WriteAt(p, int64(off)); err != nil {
						t.Fatal(err)
					}
					copy(model[off:], p)
				} else {
					p := make([]byte, n)
					if _, err := b.ReadAt(p, int64(off)); err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(p, model[off:off+n]) {
						t.Fatalf("read of %d bytes at %d differs from the model", n, off)
					}
				}
			}
			if _, err := b.WriteAt([]byte{1}, size); err == nil {
				t.Error("a write past the end succeeded")
			}
			dec := filepath.Join(dir, "dec")
			if r := runCmd(t, nil, "decrypt", "-d", keyPath, "--sector-size", ssFlag, img, dec); r.code != 0 {
				t.Fatal(r.stderr)
			}
			if !bytes.Equal(readFile(t, dec), model) {
				t.Fatal("the image does not decrypt to the model")
			}
		})
	}
}

func TestSocketURI(t *testing.T) {
	tests := []struct{ path, want string }{
		{"/tmp/a.sock", "nbd+unix:///?socket=/tmp/a.sock"},
		{"/tmp/x y/{z}&q=1%", "nbd+unix:///?socket=/tmp/x%20y/%7Bz%7D%26q%3D1%25"},
		{"/t/ü", "nbd+unix:///?socket=/t/%C3%BC"},
	}
	for _, tt := range tests {
		if got := socketURI(tt.path); got != tt.want {
			t.Errorf("socketURI(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}
