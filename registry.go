package xts

import (
	"os"
	"sync"
)

// Implementation describes one implementation of XTS known to this build.
type Implementation struct {
	// Name is the stable name used with WithImplementation and the
	// XTS_IMPLEMENTATION environment variable, e.g. "generic" or
	// "vaes-avx10_512".
	Name string
	// Available reports whether this CPU, OS and build can run it.
	Available bool
	// Default reports whether NewCipher uses it for AES keys when no
	// implementation is requested.
	Default bool
	// Note says briefly why it is or is not available and default.
	Note string
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
	return buildRegistry(platformImplementations, os.Getenv(envImplementation))
})

// buildRegistry ranks the platform's implementations ahead of generic and
// picks the default: the first available one, unless override names
// another available one. It is a pure function of its inputs for tests.
func buildRegistry(platform func() []platformImpl, override string) *registry {
	r := &registry{}
	if platform != nil {
		r.impls = append(r.impls, platform()...)
	}
	r.impls = append(r.impls, platformImpl{
		name:      genericName,
		available: true,
		note:      "portable Go over crypto/aes; runs everywhere",
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
// with whether it can run here and which one is the default for AES keys.
// Every available implementation can be chosen with WithImplementation.
func Implementations() []Implementation {
	return append([]Implementation(nil), theRegistry().list...)
}
