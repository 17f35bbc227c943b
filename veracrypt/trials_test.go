package veracrypt

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestTryBackup: a volume whose primary header is damaged opens from its
// backup header only with Backup or TryBackup; without them the damaged
// header is refused like a wrong password.
func TestTryBackup(t *testing.T) {
	for _, hidden := range []bool{false, true} {
		t.Run(fmt.Sprint("hidden=", hidden), func(t *testing.T) {
			dev := newMemDev(512 << 10)
			co := &CreateOptions{PIM: 1, Rand: seeded(11)}
			pw := []byte("outer")
			if hidden {
				co.Hidden = &HiddenOptions{Password: []byte("hidden"), PIM: 1, Size: 64 << 10}
				pw = co.Hidden.Password
			}
			if err := Create(dev, dev.Size(), []byte("outer"), co); err != nil {
				t.Fatal(err)
			}
			o := Options{PIM: 1, PRF: "sha512", Hidden: hidden}
			want, err := Open(dev, pw, &o)
			if err != nil {
				t.Fatal(err)
			}
			mk := want.Header().MasterKey()
			want.Close()
			off := int64(normalHeaderOffset)
			if hidden {
				off = hiddenHeaderOffset
			}
			dev.b[off+100] ^= 1 // one bit of the encrypted header
			if _, err := Open(dev, pw, &o); !errors.Is(err, ErrPassword) {
				t.Fatalf("damaged primary, no TryBackup: %v, want ErrPassword", err)
			}
			for _, c := range []struct {
				name string
				set  func(*Options)
			}{
				{"TryBackup", func(o *Options) { o.TryBackup = true }},
				{"Backup", func(o *Options) { o.Backup = true }},
			} {
				bo := o
				c.set(&bo)
				v, err := Open(dev, pw, &bo)
				if err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
				h := v.Header()
				if !h.Backup || h.Hidden != hidden || !bytes.Equal(h.MasterKey(), mk) {
					t.Fatalf("%s: backup %v hidden %v, master key equal %v", c.name, h.Backup, h.Hidden, bytes.Equal(h.MasterKey(), mk))
				}
				v.Close()
			}
			// An intact primary is used even with TryBackup.
			dev.b[off+100] ^= 1
			v, err := Open(dev, pw, &Options{PIM: 1, PRF: "sha512", Hidden: hidden, TryBackup: true})
			if err != nil {
				t.Fatal(err)
			}
			if v.Header().Backup {
				t.Fatal("the backup header opened while the primary is intact")
			}
			v.Close()
		})
	}
}

// TestTrialUnits checks the order the units of work go out in: TrueCrypt
// jobs first, then VeraCrypt's likeliest PRF block by block, Argon2id's
// one unit next when there are several workers (last with one), and
// every job's blocks enough for its longest candidate.
func TestTrialUnits(t *testing.T) {
	cands := trialCandidates(chainNames, nil)
	jobs, _ := trialJobs([]byte("pw"), 0, "", false, false, false)
	var trials []*trial
	for _, j := range jobs {
		tr, err := newTrial(j, []byte("pw"), nil, 0, false, cands)
		if err != nil {
			t.Fatal(err)
		}
		trials = append(trials, tr)
	}
	name := func(u unit) string {
		s := u.t.j.p.name
		if u.t.j.tc {
			s = "tc-" + s
		}
		return fmt.Sprintf("%s/%d", s, u.i+1)
	}
	for _, tc := range []struct {
		workers int
		prefix  string // the units after TrueCrypt's
		last    string
	}{
		{2, "sha512/1 sha512/2 sha512/3 argon2id/1 sha256/1", "ripemd160/10"},
		{1, "sha512/1 sha512/2 sha512/3 sha256/1", "argon2id/1"},
	} {
		units := trialUnits(trials, tc.workers)
		var names []string
		seen := map[string]bool{}
		for _, u := range units {
			n := name(u)
			if seen[n] {
				t.Fatalf("workers %d: unit %s twice", tc.workers, n)
			}
			seen[n] = true
			names = append(names, n)
		}
		all := strings.Join(names, " ")
		i := 0
		for i < len(units) && units[i].t.j.tc {
			i++
		}
		if i == 0 || !strings.HasPrefix(strings.Join(names[i:], " "), tc.prefix) || names[len(names)-1] != tc.last {
			t.Fatalf("workers %d: units %s", tc.workers, all)
		}
		for _, u := range units[i:] {
			if u.t.j.tc {
				t.Fatalf("workers %d: a TrueCrypt unit after VeraCrypt's: %s", tc.workers, all)
			}
		}
	}
	want := map[string]int{"sha512": 3, "sha256": 6, "blake2s": 6, "whirlpool": 3, "streebog": 3, "ripemd160": 10, "argon2id": 1,
		"tc-sha512": 3, "tc-whirlpool": 3, "tc-ripemd160": 10, "tc-sha1": 10}
	for _, tr := range trials {
		n := tr.j.p.name
		if tr.j.tc {
			n = "tc-" + n
		}
		if got, ok := want[n]; !ok || got != len(tr.ready) {
			t.Errorf("%s: %d units, want %d", n, len(tr.ready), want[n])
		}
	}
	if len(trials) != len(want) {
		t.Errorf("%d jobs, want %d", len(trials), len(want))
	}
}

// TestTrialDeliver: candidates are handed out once, in order, only when
// every block their key needs is in, whatever order the blocks come in.
func TestTrialDeliver(t *testing.T) {
	cands := trialCandidates(chainNames, nil)
	tr, err := newTrial(job{findPRF("sha256")[0], false}, []byte("pw"), nil, 0, false, cands)
	if err != nil {
		t.Fatal(err)
	}
	blk := func(i int) []byte { return bytes.Repeat([]byte{byte(i + 1)}, tr.size) }
	if cs, key := tr.deliver(1, blk(1)); cs != nil || key != nil {
		t.Fatalf("block 2 before block 1 handed out %d candidates", len(cs))
	}
	cs, key := tr.deliver(0, blk(0))
	if len(cs) == 0 || len(key) != 64 || !bytes.Equal(key[32:], blk(1)) {
		t.Fatalf("after blocks 1-2: %d candidates, key of %d bytes", len(cs), len(key))
	}
	for _, cd := range cs {
		if cd.keySize != 64 {
			t.Fatalf("candidate %s of %d bytes after 64 bytes of key", cd.chain, cd.keySize)
		}
	}
	handed := len(cs)
	for i := 2; i < len(tr.ready); i++ {
		cs, _ := tr.deliver(i, blk(i))
		handed += len(cs)
	}
	if handed != len(tr.cands) || len(tr.cands) != len(chainNames) {
		t.Fatalf("%d candidates handed out, %d in the trial, %d chains", handed, len(tr.cands), len(chainNames))
	}
}
