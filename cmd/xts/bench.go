package main

import (
	"crypto/rand"
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fastxts/xts"
	xcts "golang.org/x/crypto/xts"
)

const benchUsage = `Usage: xts bench [flags]

Measures AES-XTS throughput (with --cipher, another cipher's) on this
machine, in the spirit of the Linux kernel's tcrypt: one row per
implementation available on this CPU (pinned with xts.WithImplementation)
plus golang.org/x/crypto/xts as a baseline (x-crypto-xts), one column
per message size, in MB/s (10^6 bytes/s). Bulk rows time
EncryptSectors/DecryptSectors over a 1 MiB buffer on one core
(enc-sectors, dec-sectors) and over 8 MiB on every core
(enc-sectors-parallel, dec-sectors-parallel), one column per sector size.

Beside the smallest message size, ns/call is the time of one call at that
size: at 16 bytes (one block of work) nearly all of it is what every call
pays whatever its length, the tweak's serial encryption and the call
itself, which a small-message user (a 512-byte sector, a 4 KiB request)
pays once per message.

The last column is each row's best cell as a share of this CPU's
AES-round bound, which bench measures itself: a loop of 12 independent AES
rounds on the widest registers the CPU has (zmm, ymm or xmm). AES-XTS needs
one AES round per 16-byte block per round key, so no implementation can
beat 16 × (block-rounds/s) ÷ (10, 12 or 14 rounds) bytes/s. Parallel rows
are compared with the bound measured on every core at once.

Every call works in place (the destination is the source), as disk
encryption does and as go test -bench (BenchmarkXTS, BenchmarkSectors)
measures, with the sector number counting up from call to call.

Every cell is timed --time long in each of --passes passes, spread over
the run so that a burst of noise spoils one pass, not every figure of a
cell; the best pass counts. Each pass puts the data at another offset in
its page (0, 1024, 2048, 3072 bytes): on some cores (AMD Zen 5, for one)
a load whose address matches a pending store's in the low 12 bits waits
for it ("4K aliasing"), and a call whose key or argument loads alias the
previous call's output loses up to a third of its speed at 16 and 512
bytes, by luck of placement. The bound is sampled before every row of
every pass and its best sample kept. The defaults finish in under 30 s.

--cipher times another block cipher in XTS: serpent, twofish, camellia
or kuznyechik (rows: the generic engine, each assembly variant of the
cipher this CPU runs, and golang.org/x/crypto/xts over the cipher's
block), or a VeraCrypt cascade such as aes-twofish-serpent: the chain over
512-byte data units on one core, beside each of its ciphers (its default
implementation, over the same data units) and their combination
1/(1/a + 1/b + ...), with the chain's ratio to it. No AES-round bound is
shown for them. Cascades take 256-bit keys and message sizes that are
multiples of 512, and have no bulk rows.

libgcrypt's XTS is timed beside ours (AES, Serpent, Twofish, Camellia)
when a harness built by scripts/gcrypt-sid.sh is found: --gcrypt names
one or more (comma-separated), or else $XTS_GCRYPT_BENCH does, or else the
script's default output (gcrypt-bench and gcrypt-bench-system in
$XDG_CACHE_HOME/xts-gcrypt) is used when every implementation is timed.
The harness runs as a subprocess once each pass, interleaved with our
cells, each data unit with a fresh tweak; rows are named after the
library's version (libgcrypt-1.12.4), and a ratio row compares the
cipher's default implementation with each. A harness that was found
rather than named and fails is left out with a warning.

TSV output (--format tsv) is fixed, for scripts: the header
impl	keybits	op	size	mbps	bound_pct
and one row per cell. The bound is a row with impl aes-round-bound, op
rounds (one core) or rounds-parallel (every core) and size 0. JSON output
(--format json) gives every message cell its ns_per_call too.
`

// baselineName is the row of golang.org/x/crypto/xts.
const baselineName = "x-crypto-xts"

// boundName is the row of the AES-round bound.
const boundName = "aes-round-bound"

// Buffers of the bulk rows.
const (
	sectorsBuf         = 1 << 20
	sectorsParallelBuf = 8 << 20
)

type benchOptions struct {
	cipher       string      // --cipher: "aes", "serpent", ... or a cascade "aes-twofish-serpent"
	bc           benchCipher // the cipher (zero for a cascade)
	parts        []string    // a cascade's ciphers, as named; nil otherwise
	defImpl      string      // the implementation the ratio rows compare
	gcrypt       []*gcryptHarness
	impls        []string // message rows, in table order
	sectorImpls  []string // implementations with bulk rows
	keys         []int
	ops          []string
	sizes        []int
	sectorSizes  []int
	perRun       time.Duration
	passes       int
	format       string
	explicitImpl bool
}

func runBench(e *env, args []string) error {
	var implFlag, keyFlag, opFlag, sizesFlag, sectorFlag, timeFlag, cipherFlag, gcryptFlag string
	var o benchOptions
	fs := newFlagSet("bench", benchUsage, e.stdout)
	fs.StringVar(&cipherFlag, "cipher", "aes", "block cipher: aes, serpent, twofish, camellia, kuznyechik, or a VeraCrypt cascade such as aes-twofish-serpent")
	fs.StringVar(&gcryptFlag, "gcrypt", "auto", "libgcrypt harnesses (scripts/gcrypt-sid.sh) to time beside ours: comma-separated paths, none, or auto ($"+envGcrypt+", else the script's default output)")
	fs.StringVar(&implFlag, "impl", "all", "comma-separated implementations to time (see 'xts info'), "+baselineName+" for the baseline, or all")
	fs.StringVar(&keyFlag, "key", "256", "comma-separated key sizes in bits: 128, 192, 256")
	fs.StringVar(&opFlag, "op", "dec", "comma-separated operations: enc, dec")
	fs.StringVar(&sizesFlag, "sizes", "", "comma-separated message sizes in bytes (at least 16; multiples of 512 for a cascade); default 16,512,4096,65536 for AES, 512,4096,65536 otherwise")
	fs.StringVar(&sectorFlag, "sector-sizes", "512,4096", "comma-separated sector sizes of the bulk rows, or none")
	fs.StringVar(&timeFlag, "time", "0.2s", "time per cell and pass (a duration such as 200ms, or seconds)")
	fs.IntVar(&o.passes, "passes", 3, "passes over every cell; the best counts")
	fs.StringVar(&o.format, "format", "table", "output format: table, tsv or json")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("unexpected argument %q", pos[0])
	}
	if err := o.resolveCipher(cipherFlag); err != nil {
		return err
	}
	if err := o.parse(implFlag, keyFlag, opFlag, sizesFlag, sectorFlag, timeFlag); err != nil {
		return err
	}
	if err := o.resolveGcrypt(gcryptFlag); err != nil {
		return err
	}

	b, err := newBench(&o)
	if err != nil {
		return err
	}
	if err := b.run(e); err != nil {
		return err
	}
	switch o.format {
	case "tsv":
		b.writeTSV(e.stdout)
	case "json":
		return b.writeJSON(e.stdout)
	default:
		b.writeTable(e.stdout)
	}
	return nil
}

// parse validates the flags and resolves the implementations.
func (o *benchOptions) parse(implFlag, keyFlag, opFlag, sizesFlag, sectorFlag, timeFlag string) error {
	var err error
	if o.cipher == "" {
		o.cipher, o.bc = "aes", benchCiphers["aes"]
	}
	if o.keys, err = parseInts("key", keyFlag); err != nil {
		return err
	}
	allowed := o.bc.keyBits
	if o.isCascade() {
		allowed = []int{256} // VeraCrypt's keys are 256-bit
	}
	for _, k := range o.keys {
		if !slices.Contains(allowed, k) {
			return usagef("--key: %s takes %s-bit keys, not %d", o.cipher, joinInts(allowed, ", "), k)
		}
	}
	if sizesFlag == "" {
		sizesFlag = "512,4096,65536"
		if o.isAES() {
			sizesFlag = "16,512,4096,65536"
		}
	}
	o.keys = dedupSorted(o.keys)
	if o.ops, err = parseList("op", opFlag, []string{"enc", "dec"}); err != nil {
		return err
	}
	if o.sizes, err = parseInts("sizes", sizesFlag); err != nil {
		return err
	}
	for _, s := range o.sizes {
		if s < 16 || s > 16<<20 {
			return usagef("--sizes: %d is outside 16 .. 16777216 bytes", s)
		}
		if o.isCascade() && s%512 != 0 {
			return usagef("--sizes: %d is not a multiple of 512, a cascade's data unit", s)
		}
	}
	o.sizes = dedupSorted(o.sizes)
	if sectorFlag != "none" && !o.isCascade() {
		if o.sectorSizes, err = parseInts("sector-sizes", sectorFlag); err != nil {
			return err
		}
		for _, s := range o.sectorSizes {
			if s < 16 || s > sectorsBuf || bits.OnesCount(uint(s)) != 1 {
				return usagef("--sector-sizes: %d is not a power of two from 16 to %d", s, sectorsBuf)
			}
		}
		o.sectorSizes = dedupSorted(o.sectorSizes)
	}
	if o.perRun, err = parseSeconds(timeFlag); err != nil {
		return err
	}
	if o.passes < 1 || o.passes > 100 {
		return usagef("--passes %d: want 1 .. 100", o.passes)
	}
	switch o.format {
	case "table", "tsv", "json":
	default:
		return usagef("--format %q: want table, tsv or json", o.format)
	}
	return o.resolveImpls(implFlag)
}

// resolveImpls turns --impl into rows. By default every available
// implementation gets a message row and the default one the bulk rows;
// naming implementations gives each of them both.
func (o *benchOptions) resolveImpls(implFlag string) error {
	if o.isCascade() {
		// The chain, its parts on their default implementations, and
		// what the parts make together.
		if implFlag != "all" {
			return usagef("--impl: a cascade runs its ciphers' default implementations; want all")
		}
		o.impls = append([]string{o.cipher}, o.parts...)
		o.impls = append(o.impls, cascadeName)
		return nil
	}
	var all []xts.Implementation
	for _, im := range xts.Implementations() {
		if o.isAES() && im.Cipher == "" || // AES-XTS (and generic)
			im.Name == "generic" || strings.EqualFold(im.Cipher, o.bc.name) {
			all = append(all, im)
		}
	}
	if !o.isAES() {
		// The default for the cipher's keys: its first available
		// implementation, else generic.
		def := slices.IndexFunc(all, func(im xts.Implementation) bool { return im.Available && im.Name != "generic" })
		if def < 0 {
			def = slices.IndexFunc(all, func(im xts.Implementation) bool { return im.Name == "generic" })
		}
		for i := range all {
			all[i].Default = i == def
		}
	}
	names := []string{baselineName}
	for _, im := range all {
		names = append(names, im.Name)
	}
	if implFlag == "all" {
		for _, im := range all {
			if im.Available {
				o.impls = append(o.impls, im.Name)
			}
			if im.Default {
				o.sectorImpls = []string{im.Name}
				o.defImpl = im.Name
			}
		}
		o.impls = append(o.impls, baselineName)
		return nil
	}
	o.explicitImpl = true
	list, err := parseList("impl", implFlag, append(names, "all"))
	if err != nil {
		return err
	}
	for _, name := range list {
		if name == "all" {
			return usagef("--impl: all cannot be combined with names")
		}
		if name == baselineName {
			o.impls = append(o.impls, name)
			continue
		}
		im := all[slices.IndexFunc(all, func(im xts.Implementation) bool { return im.Name == name })]
		if !im.Available {
			return fmt.Errorf("implementation %s is not available here: %s", name, im.Note)
		}
		o.impls = append(o.impls, name)
		o.sectorImpls = append(o.sectorImpls, name)
		if o.defImpl == "" {
			o.defImpl = name
		}
	}
	return nil
}

// joinInts joins numbers with sep.
func joinInts(v []int, sep string) string {
	var s []string
	for _, x := range v {
		s = append(s, strconv.Itoa(x))
	}
	return strings.Join(s, sep)
}

// parseSeconds accepts a Go duration ("200ms") or a number of seconds.
func parseSeconds(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil {
			return 0, usagef("--time %q: want a duration such as 200ms or a number of seconds", s)
		}
		d = time.Duration(f * float64(time.Second))
	}
	if d <= 0 || d > time.Minute {
		return 0, usagef("--time %s: want more than 0 and at most 1m", s)
	}
	return d, nil
}

func dedupSorted(v []int) []int {
	slices.Sort(v)
	return slices.Compact(v)
}

// newKey returns a random XTS key for a keyBits-bit cipher (both halves).
func newKey(keyBits int) []byte {
	k := make([]byte, 2*keyBits/8)
	rand.Read(k)
	return k
}

// opFuncs returns the encryption and decryption of one message of the
// implementation under test: a pinned xts.Cipher on one core, or
// x/crypto/xts for the baseline. Both are method values with the same
// signature, called directly in the timed loop as BenchmarkXTS calls them.
func opFuncs(o *benchOptions, impl string, key []byte) (enc, dec func(dst, src []byte, sectorNum uint64), err error) {
	if o.isCascade() {
		return cascadeOpFuncs(o, impl)
	}
	if impl == baselineName {
		c, err := xcts.NewCipher(o.bc.newBlock, key)
		if err != nil {
			return nil, nil, err
		}
		return c.Encrypt, c.Decrypt, nil
	}
	c, err := xts.NewCipher(o.bc.newBlock, key, xts.WithImplementation(impl), xts.WithoutParallelism())
	if err != nil {
		return nil, nil, err
	}
	return c.Encrypt, c.Decrypt, nil
}

// threads is the number of goroutines parallel rows and the all-core bound
// use.
func threads() int { return runtime.GOMAXPROCS(0) }
