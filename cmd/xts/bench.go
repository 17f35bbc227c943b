package main

import (
	"crypto/aes"
	"crypto/rand"
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"strconv"
	"time"

	"github.com/fastxts/xts"
	xcts "golang.org/x/crypto/xts"
)

const benchUsage = `Usage: xts bench [flags]

Measures AES-XTS throughput on this machine, in the spirit of the Linux
kernel's tcrypt: one row per implementation available on this CPU (pinned
with xts.WithImplementation) plus golang.org/x/crypto/xts as a baseline
(x-crypto-xts), one column per message size, in MB/s (10^6 bytes/s). Bulk
rows time EncryptSectors/DecryptSectors over a 1 MiB buffer on one core
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
	var implFlag, keyFlag, opFlag, sizesFlag, sectorFlag, timeFlag string
	var o benchOptions
	fs := newFlagSet("bench", benchUsage, e.stdout)
	fs.StringVar(&implFlag, "impl", "all", "comma-separated implementations to time (see 'xts info'), "+baselineName+" for the baseline, or all")
	fs.StringVar(&keyFlag, "key", "256", "comma-separated key sizes in bits: 128, 192, 256")
	fs.StringVar(&opFlag, "op", "dec", "comma-separated operations: enc, dec")
	fs.StringVar(&sizesFlag, "sizes", "16,512,4096,65536", "comma-separated message sizes in bytes (at least 16)")
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
	if err := o.parse(implFlag, keyFlag, opFlag, sizesFlag, sectorFlag, timeFlag); err != nil {
		return err
	}

	b, err := newBench(&o)
	if err != nil {
		return err
	}
	b.run(e)
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
	if o.keys, err = parseInts("key", keyFlag); err != nil {
		return err
	}
	for _, k := range o.keys {
		if k != 128 && k != 192 && k != 256 {
			return usagef("--key: %d is not 128, 192 or 256", k)
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
	}
	o.sizes = dedupSorted(o.sizes)
	if sectorFlag != "none" {
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
	var all []xts.Implementation
	for _, im := range xts.Implementations() {
		if im.Cipher == "" { // AES-XTS (and generic): what bench times
			all = append(all, im)
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
	}
	return nil
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

// newKey returns a random XTS key for keyBits-bit AES (both halves).
func newKey(keyBits int) []byte {
	k := make([]byte, 2*keyBits/8)
	rand.Read(k)
	return k
}

// opFuncs returns the encryption and decryption of one message of the
// implementation under test: a pinned xts.Cipher on one core, or
// x/crypto/xts for the baseline. Both are method values with the same
// signature, called directly in the timed loop as BenchmarkXTS calls them.
func opFuncs(impl string, key []byte) (enc, dec func(dst, src []byte, sectorNum uint64), err error) {
	if impl == baselineName {
		c, err := xcts.NewCipher(aes.NewCipher, key)
		if err != nil {
			return nil, nil, err
		}
		return c.Encrypt, c.Decrypt, nil
	}
	c, err := xts.NewCipher(aes.NewCipher, key, xts.WithImplementation(impl), xts.WithoutParallelism())
	if err != nil {
		return nil, nil, err
	}
	return c.Encrypt, c.Decrypt, nil
}

// threads is the number of goroutines parallel rows and the all-core bound
// use.
func threads() int { return runtime.GOMAXPROCS(0) }
