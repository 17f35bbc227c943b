package xts

import (
	"crypto/cipher"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"slices"
	"sync"
)

// Block ciphers other than AES (Serpent, Twofish, Camellia, ...) reach an
// assembly engine through this registry. Each platform file that has
// generated routines for a cipher registers one cipherFamily from an init
// function: the cipher's name, the symbol of its constructor and the
// table of its variants. NewCipher looks a constructor up by its symbol
// (no import: those packages' tests import this one); anything else
// runs on the generic engine.

// otherImpl is one platform-specific implementation of a cipher family.
type otherImpl struct {
	name      string
	available bool
	note      string
	// newEngine returns an engine for the full XTS key (validated) and
	// the block ciphers of its halves.
	newEngine func(key []byte, k1, k2 cipher.Block) engine
}

// cipherFamily is what a platform file registers for one block cipher.
type cipherFamily struct {
	cipher string // as Implementation.Cipher shows it: "Serpent"
	symbol string // the constructor: "github.com/fastxts/xts/serpent.NewCipher"
	// impls returns the platform's implementations best first; called
	// once, on first use.
	impls func() []otherImpl
}

type family struct {
	cipherFamily
	list func() []otherImpl
}

var families []*family

// registerFamily adds a cipher family; platform init functions call it.
func registerFamily(f cipherFamily) {
	families = append(families, &family{cipherFamily: f, list: sync.OnceValue(f.impls)})
}

// familyFor returns the family whose constructor f is (not a function
// that wraps it), or nil.
func familyFor(f func([]byte) (cipher.Block, error)) *family {
	fn := runtime.FuncForPC(reflect.ValueOf(f).Pointer())
	if fn == nil {
		return nil
	}
	for _, fam := range families {
		if fn.Name() == fam.symbol {
			return fam
		}
	}
	return nil
}

// familyNamed returns the family of a cipher by its name ("Serpent"), or
// nil.
func familyNamed(name string) *family {
	for _, fam := range families {
		if fam.cipher == name {
			return fam
		}
	}
	return nil
}

// defaultIndex is the index of the implementation NewCipher uses for the
// family's constructor without WithImplementation, or -1 for generic: the
// first available one, unless XTS_IMPLEMENTATION names generic or another
// available one of the family.
func (f *family) defaultIndex() int {
	impls := f.list()
	env := os.Getenv(envImplementation)
	if env == genericName {
		return -1
	}
	if i := slices.IndexFunc(impls, func(im otherImpl) bool { return im.name == env && im.available }); i >= 0 {
		return i
	}
	return slices.IndexFunc(impls, func(im otherImpl) bool { return im.available })
}

// otherImplementations lists every family's implementations for
// Implementations: available or not, none of them the default (the
// default there is the one for AES keys).
func otherImplementations() []Implementation {
	var list []Implementation
	for _, fam := range families {
		def := fam.defaultIndex()
		for i, im := range fam.list() {
			note := im.note
			if i == def {
				note += "; default for " + fam.cipher + " keys"
			}
			list = append(list, Implementation{Name: im.name, Available: im.available, Note: note, Cipher: fam.cipher})
		}
	}
	return list
}

// otherEngine picks the engine for a block cipher other than
// crypto/aes.NewCipher: an assembly one for a registered family's
// constructor where one runs (or impl names it), nil for the generic
// engine.
func otherEngine(cipherFunc func([]byte) (cipher.Block, error), key []byte, k1, k2 cipher.Block, impl string) (engine, string, error) {
	if impl == genericName {
		return nil, "", nil
	}
	fam := familyFor(cipherFunc)
	if fam == nil {
		for _, other := range families {
			for _, im := range other.list() {
				if im.name == impl {
					return nil, "", fmt.Errorf("%w: %q runs %s only (%s); other block ciphers use %q", ErrImplementation, impl, other.cipher, other.symbol, genericName)
				}
			}
		}
		if impl != "" {
			return nil, "", fmt.Errorf("%w: %q runs AES only; other block ciphers use %q", ErrImplementation, impl, genericName)
		}
		return nil, "", nil
	}
	impls := fam.list()
	i := fam.defaultIndex()
	if impl != "" {
		i = slices.IndexFunc(impls, func(im otherImpl) bool { return im.name == impl })
		if i < 0 {
			return nil, "", fmt.Errorf("%w: %q does not run %s; %s keys use %q or one of this build's %s implementations", ErrImplementation, impl, fam.cipher, fam.cipher, genericName, fam.cipher)
		}
		if !impls[i].available {
			return nil, "", fmt.Errorf("%w: %q cannot run here: %s", ErrImplementation, impl, impls[i].note)
		}
	}
	if i < 0 {
		return nil, "", nil
	}
	return impls[i].newEngine(key, k1, k2), impls[i].name, nil
}
