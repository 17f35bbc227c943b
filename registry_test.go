package xts

import (
	"crypto/aes"
	"strings"
	"testing"
)

func fakePlatform(avail ...bool) func() []platformImpl {
	names := []string{"fast", "medium", "slow"}
	return func() []platformImpl {
		var out []platformImpl
		for i, a := range avail {
			out = append(out, platformImpl{name: names[i], available: a, note: names[i] + " note"})
		}
		return out
	}
}

func TestBuildRegistry(t *testing.T) {
	tests := []struct {
		name     string
		platform func() []platformImpl
		override string
		want     string // default
		noteHas  string // in the default's note
	}{
		{"no platform", nil, "", "generic", "default"},
		{"best available", fakePlatform(false, true, true), "", "medium", "default"},
		{"none available", fakePlatform(false, false), "", "generic", "default"},
		{"override", fakePlatform(true, true, true), "slow", "slow", "chosen by XTS_IMPLEMENTATION"},
		{"override generic", fakePlatform(true), "generic", "generic", "chosen by XTS_IMPLEMENTATION"},
		{"override unavailable", fakePlatform(true, false), "medium", "fast", "not available here"},
		{"override unknown", fakePlatform(true), "bogus", "fast", "no such implementation"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := buildRegistry(tc.platform, tc.override)
			defaults := 0
			for _, im := range r.list {
				if im.Default {
					defaults++
					if im.Name != tc.want {
						t.Errorf("default %q, want %q", im.Name, tc.want)
					}
					if !strings.Contains(im.Note, tc.noteHas) {
						t.Errorf("default note %q lacks %q", im.Note, tc.noteHas)
					}
					if !im.Available {
						t.Errorf("default %q is unavailable", im.Name)
					}
				}
			}
			if defaults != 1 {
				t.Errorf("%d defaults, want 1", defaults)
			}
			if last := r.list[len(r.list)-1]; last.Name != "generic" || !last.Available {
				t.Errorf("last implementation %+v, want generic, available", last)
			}
		})
	}
}

func TestImplementationsList(t *testing.T) {
	list := Implementations()
	seen := map[string]bool{}
	defaults := 0
	for _, im := range list {
		if seen[im.Name] {
			t.Errorf("%s listed twice", im.Name)
		}
		seen[im.Name] = true
		if im.Note == "" {
			t.Errorf("%s has no note", im.Name)
		}
		if im.Default {
			defaults++
		}
	}
	if defaults != 1 || !seen["generic"] {
		t.Fatalf("%d defaults, generic listed %v: %+v", defaults, seen["generic"], list)
	}
	// The list is a copy.
	list[0].Name = "changed"
	if Implementations()[0].Name == "changed" {
		t.Fatal("Implementations returns shared state")
	}
	// NewCipher without options uses the default.
	c, err := NewCipher(aes.NewCipher, randKey(newRand(t), 64))
	if err != nil {
		t.Fatal(err)
	}
	for _, im := range Implementations() {
		if im.Default && im.Name != c.Implementation() {
			t.Fatalf("NewCipher chose %s, default is %s", c.Implementation(), im.Name)
		}
	}
}
