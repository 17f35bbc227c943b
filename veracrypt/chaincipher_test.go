package veracrypt

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"strings"
	"testing"

	"github.com/fastxts/xts"
)

// TestChainCipher: a ChainCipher is its ciphers' XTS one after the other,
// the last-named first, with the key laid out as the header stores it;
// decryption inverts it; bad names, keys and lengths are refused.
func TestChainCipher(t *testing.T) {
	for _, name := range []string{"serpent", "aes-twofish-serpent", "kuznyechik-aes", "kuznyechik-camellia"} {
		t.Run(name, func(t *testing.T) {
			canon, _ := CanonicalChain(name)
			parts := strings.Split(canon, "-")
			n := len(parts)
			key := make([]byte, ChainKeySize(canon))
			rand.Read(key)
			c, err := NewChainCipher(name, key, xts.WithoutParallelism())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Wipe()
			// Three pieces' worth, so the cascade's batching shows.
			src := make([]byte, 3*cascadePiece+1024)
			rand.Read(src)
			want := bytes.Clone(src)
			for i := range n {
				k := append(bytes.Clone(key[32*i:32*i+32]), key[32*n+32*i:32*n+32*i+32]...)
				x, err := xts.NewCipher(blockCiphers[parts[n-1-i]], k)
				if err != nil {
					t.Fatal(err)
				}
				x.EncryptSectors(want, want, 512, 7)
			}
			got := make([]byte, len(src))
			c.EncryptSectors(got, src, 7)
			if !bytes.Equal(got, want) {
				t.Fatal("EncryptSectors differs from the ciphers applied one by one")
			}
			c.DecryptSectors(got, got, 7)
			if !bytes.Equal(got, src) {
				t.Fatal("DecryptSectors does not invert EncryptSectors")
			}
		})
	}
	if _, err := NewChainCipher("aes-des", make([]byte, 128)); err == nil || !strings.HasPrefix(err.Error(), "veracrypt: ") {
		t.Errorf("unknown chain: err %v", err)
	}
	if _, err := NewChainCipher("aes-twofish", make([]byte, 64)); err == nil {
		t.Error("short key accepted")
	}
	k := make([]byte, 64)
	rand.Read(k)
	c, err := NewChainCipher("aes", k)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Error("a length that is not a multiple of 512 did not panic")
		}
	}()
	c.EncryptSectors(make([]byte, 600), make([]byte, 600), 0)
}

// A cascade's XTS over 512-byte data units, as a volume's data area
// runs it.
func ExampleNewChainCipher() {
	key := make([]byte, ChainKeySize("aes-twofish-serpent")) // 192 bytes
	rand.Read(key)
	c, err := NewChainCipher("aes-twofish-serpent", key)
	if err != nil {
		panic(err)
	}
	defer c.Wipe()
	data := []byte(strings.Repeat("sixteen bytes!!!", 64)) // two data units
	orig := bytes.Clone(data)
	c.EncryptSectors(data, data, 100) // units 100 and 101, in place
	c.DecryptSectors(data, data, 100)
	fmt.Println(len(key), bytes.Equal(data, orig))
	// Output: 192 true
}
