// Package osslhash is a test-only bridge to OpenSSL's libcrypto digests
// and PKCS5_PBKDF2_HMAC, implementations written independently of this
// module, used to cross-check its Whirlpool, RIPEMD-160 and PBKDF2.
//
// The bridge needs cgo and libcrypto's headers (Debian: libssl-dev), so it
// is compiled only with the build tag "openssl" (and cgo enabled); without
// the tag this package is empty and plain `go test ./...` needs neither.
// Only tests import it; the library never does. Whirlpool is in OpenSSL
// 3's legacy provider, which the bridge loads.
package osslhash
