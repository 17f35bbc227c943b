package main

import (
	"strings"
	"testing"
)

// TestServeHostileFlags checks --max-connections and --max-memory: bad
// values are refused up front (exit 1), good ones serve.
func TestServeHostileFlags(t *testing.T) {
	img, pass := serveImage(t, "luks2", make([]byte, 1<<20))
	tests := []struct {
		name    string
		flags   []string
		code    int
		wantErr string
	}{
		{"memory too small", []string{"--max-memory", "512K"}, 1, "want 1M or more"},
		{"memory not a size", []string{"--max-memory", "lots"}, 1, "--max-memory"},
		{"share too small", []string{"--max-memory", "2M"}, 1, "less than 72K"},
		{"negative connections", []string{"--max-connections", "-1"}, 1, "--max-connections"},
		{"small but fine", []string{"--max-memory", "2M", "--max-connections", "8"}, 0, ""},
		{"no connection limit", []string{"--max-connections", "0", "--max-memory", "1G"}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"luks", "serve", "-d", pass, "--run", "true"}, tt.flags...)
			r := runCmd(t, nil, append(args, img)...)
			if r.code != tt.code || !strings.Contains(r.stderr, tt.wantErr) {
				t.Errorf("exit %d, stderr %q; want %d and %q", r.code, r.stderr, tt.code, tt.wantErr)
			}
		})
	}
}
