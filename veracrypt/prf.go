package veracrypt

import (
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"fmt"
	"hash"
	"strings"
	"sync/atomic"

	"github.com/fastxts/xts/internal/argon2"
	"github.com/fastxts/xts/internal/hash/ripemd160"
	"github.com/fastxts/xts/internal/hash/streebog"
	"github.com/fastxts/xts/internal/hash/whirlpool"
	"github.com/fastxts/xts/internal/pbkdf2"
	"golang.org/x/crypto/blake2s"
)

// A prf is a header key derivation: PBKDF2-HMAC over a hash, or Argon2id.
type prf struct {
	name string
	// hash makes the PBKDF2 hash; nil for Argon2id, and for a hash this
	// build does not have yet (see missing).
	hash func() hash.Hash
	// missing says why the PRF cannot run, or "".
	missing string
	argon2  bool
	// vc and tc: whether VeraCrypt and TrueCrypt use the PRF.
	vc, tc bool
}

func newBlake2s() hash.Hash {
	h, err := blake2s.New256(nil)
	if err != nil {
		panic(err) // no key: cannot fail
	}
	return h
}

// prfs lists the header key derivations, likeliest first: the order of the
// trials when Options.PRF is empty.
var prfs = []*prf{
	{name: "sha512", hash: sha512.New, vc: true, tc: true},
	{name: "sha256", hash: sha256.New, vc: true},
	{name: "blake2s", hash: newBlake2s, vc: true},
	{name: "whirlpool", hash: whirlpool.New, vc: true, tc: true},
	{name: "streebog", hash: streebog.New512, vc: true},
	{name: "ripemd160", hash: ripemd160.New, vc: true, tc: true},
	{name: "sha1", hash: sha1.New, tc: true},
	{name: "argon2id", argon2: true, vc: true},
}

// PRFs returns the names of the header key derivations this build has:
// "sha512", "sha256", "blake2s", "whirlpool", "streebog", "ripemd160",
// "sha1" (TrueCrypt only), "argon2id" (VeraCrypt only).
func PRFs() []string {
	var out []string
	for _, p := range prfs {
		if p.missing == "" {
			out = append(out, p.name)
		}
	}
	return out
}

// findPRF returns the PRFs whose names contain s ("" matches all), as
// cryptsetup's --hash does; "stribog512" and "blake2s-256" (cryptsetup's
// names) are accepted too.
func findPRF(s string) []*prf {
	s = strings.ToLower(s)
	switch s {
	case "stribog512", "stribog", "streebog512":
		s = "streebog"
	case "blake2s-256":
		s = "blake2s"
	}
	var out []*prf
	for _, p := range prfs {
		if strings.Contains(p.name, s) {
			out = append(out, p)
		}
	}
	return out
}

// iterations returns PBKDF2's iteration count for the PRF, or for Argon2id
// its time cost, and Argon2id's memory cost in KiB.
func (p *prf) iterations(pim int, system, truecrypt bool) (iter, memKiB int) {
	if p.argon2 {
		if pim <= 0 {
			pim = 12 // VeraCrypt's default costs: 416 MiB, 6 passes
		}
		mem := min(64+(pim-1)*32, 1024)
		t := 3 + (pim-1)/3
		if pim > 31 {
			t = 13 + (pim - 31)
		}
		return t, mem << 10
	}
	if truecrypt {
		switch p.name {
		case "ripemd160":
			if system {
				return 1000, 0
			}
			return 2000, 0
		case "sha1":
			return 2000, 0
		default:
			return 1000, 0
		}
	}
	// sha512 and whirlpool use the non-system counts for system
	// encryption too; the other hashes have a lighter boot count.
	boot := system && p.name != "sha512" && p.name != "whirlpool"
	if pim > 0 {
		if boot {
			return pim * 2048, 0
		}
		return 15000 + pim*1000, 0
	}
	switch {
	case p.name == "ripemd160" && boot:
		return 327661, 0
	case p.name == "ripemd160":
		return 655331, 0
	case boot:
		return 200000, 0
	}
	return 500000, 0
}

// maxHeaderKey is the longest header key: three ciphers' primary and
// secondary keys.
const maxHeaderKey = 192

// deriver derives a header key lazily: PBKDF2 block by block as longer
// keys are asked for, Argon2id once per key length. Its work stops early,
// returning nil, once *stop is set.
type deriver struct {
	p         *prf
	password  []byte
	salt      []byte
	iter, mem int
	stop      *atomic.Bool
	key       []byte // the blocks so far (PBKDF2), or the key (Argon2id)
	pbkdf2    *pbkdf2.Deriver
}

// get returns the first n bytes of the header key, or nil when stopped.
func (d *deriver) get(n int) []byte {
	if d.p.argon2 {
		// VeraCrypt derives the longest header key (three ciphers)
		// whatever the chain, and Argon2's output depends on its length.
		if d.key == nil {
			var poll func() bool
			if d.stop != nil {
				poll = d.stop.Load
			}
			k, err := argon2.IDKeyStop(poll, d.password, d.salt, uint32(d.iter), uint32(d.mem), 1, maxHeaderKey)
			if err != nil {
				return nil // argon2.ErrStopped
			}
			d.key = k
		}
		return d.key[:n]
	}
	if d.pbkdf2 == nil {
		d.pbkdf2 = pbkdf2.NewDeriver(d.p.hash, d.password, d.salt, d.iter)
	}
	for len(d.key) < n {
		size := d.pbkdf2.Size()
		i := len(d.key)/size + 1
		d.key = append(d.key, make([]byte, size)...)
		if !d.pbkdf2.Block(d.key[len(d.key)-size:], uint32(i), d.stop) {
			clear(d.key[len(d.key)-size:])
			d.key = d.key[:len(d.key)-size] // the block is incomplete
			return nil
		}
	}
	return d.key[:n]
}

// wipe clears the derived keys.
func (d *deriver) wipe() {
	clear(d.key)
	d.key = nil
	if d.pbkdf2 != nil {
		d.pbkdf2.Wipe()
	}
}

// check reports why the PRF cannot run, or nil.
func (p *prf) check() error {
	if p.missing != "" {
		return fmt.Errorf("veracrypt: %s", p.missing)
	}
	return nil
}
