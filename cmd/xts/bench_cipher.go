package main

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"fmt"
	"slices"
	"strings"

	"github.com/fastxts/xts"
	"github.com/fastxts/xts/camellia"
	"github.com/fastxts/xts/kuznyechik"
	"github.com/fastxts/xts/serpent"
	"github.com/fastxts/xts/twofish"
	"github.com/fastxts/xts/veracrypt"
)

// benchCipher is a block cipher xts bench --cipher can time.
type benchCipher struct {
	name     string // as the tables print it: "Serpent"
	newBlock func([]byte) (cipher.Block, error)
	keyBits  []int // the key sizes it takes
}

var benchCiphers = map[string]benchCipher{
	"aes":        {"AES", aes.NewCipher, []int{128, 192, 256}},
	"serpent":    {"Serpent", serpent.NewCipher, []int{128, 192, 256}},
	"twofish":    {"Twofish", twofish.NewCipher, []int{128, 192, 256}},
	"camellia":   {"Camellia", camellia.NewCipher, []int{128, 192, 256}},
	"kuznyechik": {"Kuznyechik", kuznyechik.NewCipher, []int{256}},
}

// cascadeName is the name of the combined row of a cascade: the speed
// its parts would have together, 1 / Σ 1/speed.
const cascadeName = "combined"

// resolveCipher reads --cipher: a cipher of benchCiphers or a VeraCrypt
// cascade ("aes-twofish-serpent", in VeraCrypt's or cryptsetup's
// naming).
func (o *benchOptions) resolveCipher(name string) error {
	name = strings.ToLower(strings.TrimSpace(name))
	if c, ok := benchCiphers[name]; ok {
		o.cipher, o.bc = name, c
		return nil
	}
	canon, ok := veracrypt.CanonicalChain(name)
	if !ok || !strings.Contains(canon, "-") {
		var names []string
		for n := range benchCiphers {
			names = append(names, n)
		}
		slices.Sort(names)
		return usagef("--cipher %q: want one of %s or a VeraCrypt cascade (%s)", name,
			strings.Join(names, ", "), strings.Join(cascades(), ", "))
	}
	o.cipher = canon
	o.parts = strings.Split(canon, "-")
	return nil
}

// cascades lists the VeraCrypt chains of more than one cipher.
func cascades() []string {
	var out []string
	for _, c := range veracrypt.Chains() {
		if strings.Contains(c, "-") {
			out = append(out, c)
		}
	}
	return out
}

// isAES reports whether the run is AES-XTS, the only cipher with a bound.
func (o *benchOptions) isAES() bool { return o.cipher == "aes" }

// isCascade reports whether the run times a VeraCrypt cascade.
func (o *benchOptions) isCascade() bool { return len(o.parts) > 0 }

// title is the cipher's name in the tables' headings.
func (o *benchOptions) title(keyBits int) string {
	if o.isCascade() {
		var names []string
		for _, p := range o.parts {
			names = append(names, benchCiphers[p].name)
		}
		return strings.Join(names, "-") + " (VeraCrypt cascade, 512-byte data units)"
	}
	return fmt.Sprintf("%s-%d-XTS", o.bc.name, keyBits)
}

// cascadeOpFuncs returns the functions of a cascade's message rows: the
// chain itself (impl = the chain's name) or one of its parts on its
// default implementation, both over a message of 512-byte data units on
// one core, the first unit counting up by the message's units from call
// to call.
func cascadeOpFuncs(o *benchOptions, impl string) (enc, dec func(dst, src []byte, n uint64), err error) {
	units := func(f func(dst, src []byte, unit uint64)) func(dst, src []byte, n uint64) {
		return func(dst, src []byte, n uint64) { f(dst, src, n*uint64(len(src)/512)) }
	}
	if impl == o.cipher {
		key := make([]byte, veracrypt.ChainKeySize(o.cipher))
		rand.Read(key)
		c, err := veracrypt.NewChainCipher(o.cipher, key, xts.WithoutParallelism())
		if err != nil {
			return nil, nil, err
		}
		return units(c.EncryptSectors), units(c.DecryptSectors), nil
	}
	c, err := xts.NewCipher(benchCiphers[impl].newBlock, newKey(256), xts.WithoutParallelism())
	if err != nil {
		return nil, nil, err
	}
	sectors := func(f func(dst, src []byte, size int, first uint64)) func(dst, src []byte, unit uint64) {
		return func(dst, src []byte, unit uint64) { f(dst, src, 512, unit) }
	}
	return units(sectors(c.EncryptSectors)), units(sectors(c.DecryptSectors)), nil
}

// combine fills a cascade's combined rows from its parts' rows: per
// size, 1 / Σ 1/speed (the time of the parts one after the other).
func (b *bench) combine() {
	if !b.o.isCascade() {
		return
	}
	for _, r := range b.rows {
		if r.impl != cascadeName {
			continue
		}
		for i, c := range r.cells {
			var inv float64
			for _, p := range b.rows {
				if p.keyBits == r.keyBits && p.op == r.op && p.impl != cascadeName && p.impl != b.o.cipher && p.cells[i].has() {
					inv += 1 / p.cells[i].mbps
				}
			}
			if inv > 0 {
				c.mbps = 1 / inv
			}
		}
	}
}

// ratioLines are the table's ratio rows under a message block: for a
// cascade, the chain over its combined parts; for another cipher, our
// default implementation over each libgcrypt row.
func (b *bench) ratioLines(k int, op string) []tableLine {
	find := func(impl string) *benchRow {
		for _, r := range b.rows {
			if r.impl == impl && r.keyBits == k && r.op == op {
				return r
			}
		}
		return nil
	}
	ratio := func(label string, num, den *benchRow) tableLine {
		l := tableLine{label: label}
		for i := range num.cells {
			if num.cells[i].has() && den.cells[i].has() {
				l.cells = append(l.cells, fmt.Sprintf("%.2fx", num.cells[i].mbps/den.cells[i].mbps))
			} else {
				l.cells = append(l.cells, "-")
			}
		}
		return l
	}
	var out []tableLine
	if b.o.isCascade() {
		if num, den := find(b.o.cipher), find(cascadeName); num != nil && den != nil {
			out = append(out, ratio(b.o.cipher+" / "+cascadeName, num, den))
		}
		return out
	}
	ours := find(b.o.defImpl)
	if ours == nil {
		return nil
	}
	for _, r := range b.rows {
		if r.keyBits == k && r.op == op && r.gcrypt {
			out = append(out, ratio(b.o.defImpl+" / "+r.impl, ours, r))
		}
	}
	return out
}
