package bitlocker

import (
	"bytes"
	"crypto/aes"
	"encoding/hex"
	"errors"
	"testing"
)

func seq(from, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(from + i)
	}
	return b
}

// TestCCMVectors: RFC 3610 packet vector #1, the examples 1-3 of NIST SP
// 800-38C appendix C, and BitLocker's shape (AES-256, 12-byte nonce,
// 16-byte tag, no associated data; the expected output computed with
// pyca/cryptography's AESCCM).
func TestCCMVectors(t *testing.T) {
	tests := []struct {
		name               string
		key, nonce, ad, pt []byte
		tag                int
		out                string
	}{
		{"RFC 3610 #1", seq(0xc0, 16), unhexS("00000003020100a0a1a2a3a4a5"), seq(0, 8), seq(8, 23), 8,
			"588c979a61c663d2f066d0c2c0f989806d5f6b61dac38417e8d12cfdf926e0"},
		{"SP 800-38C C.1", seq(0x40, 16), seq(0x10, 7), seq(0, 8), seq(0x20, 4), 4, "7162015b4dac255d"},
		{"SP 800-38C C.2", seq(0x40, 16), seq(0x10, 8), seq(0, 16), seq(0x20, 16), 6,
			"d2a1f0e051ea5f62081a7792073d593d1fc64fbfaccd"},
		{"SP 800-38C C.3", seq(0x40, 16), seq(0x10, 12), seq(0, 20), seq(0x20, 24), 8,
			"e3b201a9f5b71a7a9b1ceaeccd97e70b6176aad9a4428aa5484392fbc1b09951"},
		{"BitLocker shape", seq(0, 32), seq(0xa0, 12), nil, seq(0x30, 44), 16,
			"5fa57063a4c9d053726112195bb28cee7485f106fafb3e0fb7eb8fcdf69ad444beeffbb3da3a9b4712d559e1801a9ba0cb1d0360676e4cc08d0858d7"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := aes.NewCipher(tc.key)
			if err != nil {
				t.Fatal(err)
			}
			out, err := ccmSeal(b, tc.nonce, tc.ad, tc.pt, tc.tag)
			if err != nil {
				t.Fatal(err)
			}
			if got := hex.EncodeToString(out); got != tc.out {
				t.Fatalf("seal %s, want %s", got, tc.out)
			}
			pt, err := ccmOpen(b, tc.nonce, tc.ad, out, tc.tag)
			if err != nil || !bytes.Equal(pt, tc.pt) {
				t.Fatalf("open: %x, %v", pt, err)
			}
			// Any flipped bit, in the data or the tag, fails.
			for i := range out {
				bad := bytes.Clone(out)
				bad[i] ^= 0x10
				if _, err := ccmOpen(b, tc.nonce, tc.ad, bad, tc.tag); !errors.Is(err, errCCMAuth) {
					t.Fatalf("byte %d flipped: %v", i, err)
				}
			}
		})
	}
}

func unhexS(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func TestCCMParameters(t *testing.T) {
	b, _ := aes.NewCipher(make([]byte, 16))
	for _, tc := range []struct {
		nonce, tag, n int
		ok            bool
	}{
		{12, 16, 100, true}, {6, 16, 1, false}, {14, 16, 1, false}, {12, 3, 1, false},
		{12, 18, 1, false}, {12, 7, 1, false}, {13, 16, 1 << 16, false}, {13, 16, 1<<16 - 1, true},
	} {
		_, err := ccmSeal(b, make([]byte, tc.nonce), nil, make([]byte, tc.n), tc.tag)
		if (err == nil) != tc.ok {
			t.Errorf("nonce %d tag %d length %d: %v", tc.nonce, tc.tag, tc.n, err)
		}
	}
	if _, err := ccmOpen(b, make([]byte, 12), nil, make([]byte, 15), 16); err == nil {
		t.Error("open of less than a tag succeeded")
	}
}
