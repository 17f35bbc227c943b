package xts

import (
	"crypto/cipher"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"sync"
)

// serpentImpl is one platform-specific Serpent-XTS implementation, as the
// platform's table (serpent_amd64.go) reports it.
type serpentImpl struct {
	name      string
	available bool
	note      string
	// newEngine returns an engine for the full XTS key (validated) and
	// the block ciphers of its halves.
	newEngine func(key []byte, k1, k2 cipher.Block) engine
}

// serpentPlatform, set by platform code in an init function, returns the
// platform's Serpent implementations best first; nil means none.
var serpentPlatform func() []serpentImpl

var theSerpentImpls = sync.OnceValue(func() []serpentImpl {
	if serpentPlatform == nil {
		return nil
	}
	return serpentPlatform()
})

// serpentNewCipher is the symbol of serpent.NewCipher (package
// github.com/fastxts/xts/serpent). It is matched by name, not by an
// import: package serpent's own tests import this package.
const serpentNewCipher = "github.com/fastxts/xts/serpent.NewCipher"

// isSerpent reports whether f is serpent.NewCipher itself (not a function
// that wraps it).
func isSerpent(f func([]byte) (cipher.Block, error)) bool {
	fn := runtime.FuncForPC(reflect.ValueOf(f).Pointer())
	return fn != nil && fn.Name() == serpentNewCipher
}

// serpentImplementations lists the Serpent implementations for
// Implementations: available or not, none of them the default (the
// default there is the one for AES keys).
func serpentImplementations() []Implementation {
	var list []Implementation
	def := serpentDefault()
	for i, im := range theSerpentImpls() {
		note := im.note
		if i == def {
			note += "; default for Serpent keys"
		}
		list = append(list, Implementation{Name: im.name, Available: im.available, Note: note, Cipher: "Serpent"})
	}
	return list
}

// serpentDefault is the index of the Serpent implementation NewCipher
// uses for serpent.NewCipher without WithImplementation, or -1 for
// generic: the first available one, unless XTS_IMPLEMENTATION names
// generic or another available one.
func serpentDefault() int {
	impls := theSerpentImpls()
	env := os.Getenv(envImplementation)
	if env == genericName {
		return -1
	}
	for i, im := range impls {
		if im.name == env && im.available {
			return i
		}
	}
	for i, im := range impls {
		if im.available {
			return i
		}
	}
	return -1
}

// otherEngine picks the engine for a block cipher other than
// crypto/aes.NewCipher: an assembly one for serpent.NewCipher where one
// runs (or impl names it), nil for the generic engine.
func otherEngine(cipherFunc func([]byte) (cipher.Block, error), key []byte, k1, k2 cipher.Block, impl string) (engine, string, error) {
	if impl == genericName {
		return nil, "", nil
	}
	if !isSerpent(cipherFunc) {
		for _, im := range theSerpentImpls() {
			if im.name == impl {
				return nil, "", fmt.Errorf("%w: %q runs Serpent only (serpent.NewCipher); other block ciphers use %q", ErrImplementation, impl, genericName)
			}
		}
		if impl != "" {
			return nil, "", fmt.Errorf("%w: %q runs AES only; other block ciphers use %q", ErrImplementation, impl, genericName)
		}
		return nil, "", nil
	}
	impls := theSerpentImpls()
	i := serpentDefault()
	if impl != "" {
		i = -1
		for j, im := range impls {
			if im.name == impl {
				i = j
			}
		}
		if i < 0 {
			return nil, "", fmt.Errorf("%w: %q does not run Serpent; Serpent keys use %q or one of this build's Serpent implementations", ErrImplementation, impl, genericName)
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
