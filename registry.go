package xts

import (
	"crypto/fips140"
	"os"
	"sync"
)

// Implementation describes one implementation of XTS known to this build.
type Implementation struct {
	// Name is the stable name used with WithImplementation and the
	// XTS_IMPLEMENTATION environment variable: "generic", or the name of
	// an assembly variant (the README's table lists them).
	Name string
	// Available reports whether this CPU, OS and build can run it.
	Available bool
	// Default reports whether NewCipher uses it for AES keys when no
	// implementation is requested.
	Default bool
	// Note says briefly why it is or is not available and default.
	Note string
	// Cipher is "" for the implementations of AES-XTS and for generic
	// (which runs any block cipher); otherwise the one block cipher the
	// implementation runs, e.g. "Serpent" (serpent.NewCipher, chosen for
	// it by default where available): such an implementation is never
	// Default, which is about AES keys.
	Cipher string
}

// platformImpl is one platform-specific AES implementation, as the
// platform's variant table (variants_amd64.go) reports it.
type platformImpl struct {
	name      string
	available bool
	note      string
	// newAES returns an engine for the full XTS key K1‖K2 (32, 48 or 64
	// bytes, already validated). Only called when available.
	newAES func(key []byte) engine
}

// platformImplementations, set by platform code in an init function,
// returns the platform's implementations best first. nil means none: only
// generic exists.
var platformImplementations func() []platformImpl

const genericName = "generic"

// envImplementation names the environment variable that overrides the
// default implementation for the whole process.
const envImplementation = "XTS_IMPLEMENTATION"

// registry is the process-wide ordered list of implementations, built once.
type registry struct {
	impls []platformImpl // best first; generic last with newAES == nil
	def   int            // index of the default implementation
	list  []Implementation
}

var theRegistry = sync.OnceValue(func() *registry {
	return buildRegistry(platformImplementations, os.Getenv(envImplementation), fips140.Enabled())
})

// genericNote is the portable implementation's note. Under -tags purego
// crypto/aes itself drops its assembly for lookup tables indexed by key
// and data, which are not constant time: the note says so.
func genericNote() string {
	if puregoBuild {
		return "portable Go over crypto/aes; runs everywhere; -tags purego: crypto/aes uses lookup tables, not constant time"
	}
	return "portable Go over crypto/aes; runs everywhere"
}

// fipsNote is the note of every assembly implementation in FIPS 140 mode.
const fipsNote = "FIPS 140 mode (GODEBUG=fips140): AES goes through crypto/aes, the generic implementation"

// buildRegistry ranks the platform's implementations ahead of generic and
// picks the default: the first available one, unless override names
// another available one. In FIPS 140 mode only generic, which runs the
// validated crypto/aes, is available: what an x/crypto/xts user gets in
// that mode. It is a pure function of its inputs for tests.
func buildRegistry(platform func() []platformImpl, override string, fips bool) *registry {
	r := &registry{}
	if platform != nil {
		r.impls = append(r.impls, platform()...)
	}
	if fips {
		for i := range r.impls {
			r.impls[i].available = false
			r.impls[i].note = fipsNote
		}
	}
	r.impls = append(r.impls, platformImpl{
		name:      genericName,
		available: true,
		note:      genericNote(),
	})

	r.def = len(r.impls) - 1
	for i, im := range r.impls {
		if im.available {
			r.def = i
			break
		}
	}
	overrideNote := ""
	if override != "" {
		i := r.index(override)
		switch {
		case i < 0:
			overrideNote = "; " + envImplementation + "=" + override + " ignored: no such implementation"
		case !r.impls[i].available:
			overrideNote = "; " + envImplementation + "=" + override + " ignored: not available here"
		default:
			r.def = i
		}
	}

	for i, im := range r.impls {
		note := im.note
		if i == r.def {
			if override != "" && im.name == override {
				note += "; default (chosen by " + envImplementation + ")"
			} else {
				note += "; default"
			}
			note += overrideNote
		}
		r.list = append(r.list, Implementation{
			Name:      im.name,
			Available: im.available,
			Default:   i == r.def,
			Note:      note,
		})
	}
	return r
}

func (r *registry) index(name string) int {
	for i, im := range r.impls {
		if im.name == name {
			return i
		}
	}
	return -1
}

// Implementations lists every implementation in this build, best first,
// with whether it can run here and which one is the default for AES keys;
// those for one other block cipher only (Cipher) come after the AES ones.
// Every available implementation can be chosen with WithImplementation.
func Implementations() []Implementation {
	list := theRegistry().list
	// The AES variants, the other ciphers' (cipher_select.go), generic.
	out := append([]Implementation(nil), list[:len(list)-1]...)
	out = append(out, otherImplementations()...)
	return append(out, list[len(list)-1])
}
