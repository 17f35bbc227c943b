package sock

import (
	"testing"
)

func TestParseHostPort(t *testing.T) {
	tests := []struct {
		in   string
		host string
		port uint16
		bad  bool
	}{
		{"127.0.0.1:10809", "127.0.0.1", 10809, false},
		{":0", "", 0, false},
		{"localhost:65535", "localhost", 65535, false},
		{"[::1]:80", "::1", 80, false},
		{"[::]:1", "::", 1, false},
		{"::1:80", "", 0, true},     // IPv6 without brackets
		{"[::1]80", "", 0, true},    // no colon after the bracket
		{"[::1", "", 0, true},       // no closing bracket
		{"host", "", 0, true},       // no port
		{"host:", "", 0, true},      // empty port
		{"host:65536", "", 0, true}, // too big
		{"host:-1", "", 0, true},
		{"host:nbd", "", 0, true}, // service names are not looked up
		{"a:b:c", "", 0, true},
	}
	for _, tt := range tests {
		host, port, err := ParseHostPort(tt.in)
		if tt.bad {
			if err == nil {
				t.Errorf("ParseHostPort(%q) = %q, %d; want an error", tt.in, host, port)
			}
			continue
		}
		if err != nil || host != tt.host || port != tt.port {
			t.Errorf("ParseHostPort(%q) = %q, %d, %v; want %q, %d", tt.in, host, port, err, tt.host, tt.port)
		}
	}
}

func TestResolveHost(t *testing.T) {
	for in, want := range map[string]string{
		"localhost": "127.0.0.1", "LocalHost": "127.0.0.1", "10.1.2.3": "10.1.2.3",
		"::1": "::1", "0.0.0.0": "0.0.0.0", "::ffff:1.2.3.4": "::ffff:1.2.3.4",
	} {
		if a, err := ResolveHost(in); err != nil || a.String() != want {
			t.Errorf("ResolveHost(%q) = %v, %v; want %s", in, a, err, want)
		}
	}
	for _, in := range []string{"example.com", "", "fe80::1%eth0", "1.2.3"} {
		if a, err := ResolveHost(in); err == nil {
			t.Errorf("ResolveHost(%q) = %v; want an error", in, a)
		}
	}
}
