// Package gcry is a test-only bridge to libgcrypt's Camellia (ECB and XTS),
// an implementation written independently of this module, used to
// cross-check package camellia and its use through the XTS mode.
//
// The bridge needs cgo and libgcrypt's headers (Debian: libgcrypt20-dev),
// so it is compiled only with the build tag "gcrypt" (and cgo enabled);
// without the tag this package is empty and plain `go test ./...` needs
// neither. Only tests import it; the library never does.
package gcry
