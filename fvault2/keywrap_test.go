package fvault2

import (
	"bytes"
	"crypto/aes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"testing"
)

// aesWrap is RFC 3394's key wrap (section 2.2.1, index based), the
// inverse of aesUnwrap; the tests use it to build synthetic volumes.
func aesWrap(kek, key []byte) []byte {
	b, err := aes.NewCipher(kek)
	if err != nil || len(key)%8 != 0 || len(key) < 16 {
		panic("aesWrap: bad arguments")
	}
	n := len(key) / 8
	r := append([]byte(nil), key...)
	var blk [16]byte
	copy(blk[:8], kwIV[:])
	for j := 0; j <= 5; j++ {
		for i := 1; i <= n; i++ {
			copy(blk[8:], r[8*(i-1):8*i])
			b.Encrypt(blk[:], blk[:])
			a := binary.BigEndian.Uint64(blk[:8]) ^ uint64(n*j+i)
			binary.BigEndian.PutUint64(blk[:8], a)
			copy(r[8*(i-1):8*i], blk[8:])
		}
	}
	return append(blk[:8:8], r...)
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The test vectors of RFC 3394, section 4.
func TestAESKeyWrapRFC3394(t *testing.T) {
	const kd = "00112233445566778899AABBCCDDEEFF000102030405060708090A0B0C0D0E0F"
	const kek = "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F"
	for _, tc := range []struct {
		name, kek, key, wrapped string
	}{
		{"4.1 128-bit KEK, 128-bit key", kek[:32], kd[:32], "1FA68B0A8112B447AEF34BD8FB5A7B829D3E862371D2CFE5"},
		{"4.2 192-bit KEK, 128-bit key", kek[:48], kd[:32], "96778B25AE6CA435F92B5B97C050AED2468AB8A17AD84E5D"},
		{"4.3 256-bit KEK, 128-bit key", kek, kd[:32], "64E8C3F9CE0F5BA263E9777905818A2A93C8191E7D6E8AE7"},
		{"4.4 192-bit KEK, 192-bit key", kek[:48], kd[:48], "031D33264E15D33268F24EC260743EDCE1C6C7DDEE725A936BA814915C6762D2"},
		{"4.5 256-bit KEK, 192-bit key", kek, kd[:48], "A8F9BC1612C68B3FF6E6F4FBE30E71E4769C8B80A32CB8958CD5D17D6B254DA1"},
		{"4.6 256-bit KEK, 256-bit key", kek, kd, "28C9F404C4B810F4CBCCB35CFB87F8263F5786E2D80ED326CBC7F0E71A99F43BFB988B9B7A02DD21"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, key, w := unhex(t, tc.kek), unhex(t, tc.key), unhex(t, tc.wrapped)
			got, err := aesUnwrap(k, w)
			if err != nil || !bytes.Equal(got, key) {
				t.Fatalf("unwrap = %x, %v; want %x", got, err, key)
			}
			if got := aesWrap(k, key); !bytes.Equal(got, w) {
				t.Fatalf("wrap = %x; want %x", got, w)
			}
			for i := range w { // any flipped bit fails the check
				bad := bytes.Clone(w)
				bad[i] ^= 0x10
				if got, err := aesUnwrap(k, bad); !errors.Is(err, errUnwrap) || got != nil {
					t.Fatalf("byte %d flipped: %x, %v; want errUnwrap", i, got, err)
				}
			}
		})
	}
}

func TestAESUnwrapRefuses(t *testing.T) {
	for _, tc := range []struct {
		name     string
		kek, key []byte
	}{
		{"short", make([]byte, 16), make([]byte, 16)},
		{"not 64-bit blocks", make([]byte, 16), make([]byte, 25)},
		{"bad KEK size", make([]byte, 15), make([]byte, 24)},
	} {
		if _, err := aesUnwrap(tc.kek, tc.key); err == nil || errors.Is(err, errUnwrap) {
			t.Errorf("%s: err = %v, want a size error", tc.name, err)
		}
	}
}
