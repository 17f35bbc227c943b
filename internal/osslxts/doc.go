// Package osslxts is a test-only bridge to OpenSSL's libcrypto AES-XTS
// (EVP_aes_128_xts, EVP_aes_256_xts), an implementation written
// independently of this module, used to cross-check it.
//
// The bridge needs cgo and libcrypto's headers (Debian: libssl-dev), so it
// is compiled only with the build tag "openssl" (and cgo enabled); without
// the tag this package is empty and plain `go test ./...` needs neither.
// Only tests import it; the library never does.
package osslxts
