// Package xts implements AES-XTS (IEEE 1619, NIST SP 800-38E) and XTS over
// any block cipher with a 16-byte block.
package xts
