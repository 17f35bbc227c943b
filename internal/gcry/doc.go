// Package gcry is a test-only bridge to libgcrypt's Serpent, Twofish and
// Camellia (ECB and XTS), implementations written independently of this
// module, used to cross-check packages serpent, twofish and camellia and
// their use through the XTS mode.
//
// The bridge needs cgo and libgcrypt's headers (Debian: libgcrypt20-dev),
// so it is compiled only with the build tag "gcrypt" (and cgo enabled);
// without the tag this package is empty and plain `go test ./...` needs
// neither. Only tests import it; the library never does.
package gcry
