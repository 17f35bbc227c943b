package kuznyechik

import (
	"encoding/hex"
	"testing"

	"github.com/fastxts/xts/internal/blocktest"
)

// The examples of RFC 7801, section 5 (GOST R 34.12-2015, Appendix A.1).

const (
	rfcKey    = "8899aabbccddeeff0011223344556677fedcba98765432100123456789abcdef"
	rfcPlain  = "1122334455667700ffeeddccbbaa9988"
	rfcCipher = "7f679d90bebc24305a468d42b9d4edcd"
)

// rfcRoundKeys are K_1..K_10 of RFC 7801, section 5.4.
var rfcRoundKeys = []string{
	"8899aabbccddeeff0011223344556677",
	"fedcba98765432100123456789abcdef",
	"db31485315694343228d6aef8cc78c44",
	"3d4553d8e9cfec6815ebadc40a9ffd04",
	"57646468c44a5e28d3e59246f429f1ac",
	"bd079435165c6432b532e82834da581b",
	"51e640757e8745de705727265a0098b1",
	"5a7925017b9fdd3ed72a91a22286f984",
	"bb44e25378c73123a5f32f73cdb6e517",
	"72e9dd7416bcf45b755dbaa88e4a4043",
}

// rfcEncryptStates are the states after LSX[K_1] ... LSX[K_9] and after
// the final X[K_10] (the ciphertext), RFC 7801, section 5.5.
var rfcEncryptStates = []string{
	"e297b686e355b0a1cf4a2f9249140830",
	"285e497a0862d596b36f4258a1c69072",
	"0187a3a429b567841ad50d29207cc34e",
	"ec9bdba057d4f4d77c5d70619dcad206",
	"1357fd11de9257290c2a1473eb6bcde1",
	"28ae31e7d4c2354261027ef0b32897df",
	"07e223d56002c013d3f5e6f714b86d2d",
	"cd8ef6cd97e0e092a8e4cca61b38bf65",
	"0d8e40e4a800d06b2f1b37ea379ead8e",
	rfcCipher,
}

func blk(t *testing.T, s string) block {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != 16 {
		t.Fatalf("bad block %q", s)
	}
	return block(b)
}

func TestRFC7801Transformations(t *testing.T) {
	for _, tc := range []struct {
		name    string
		fn, inv func(block) block
		chain   []string // each is the transformation of the previous one
	}{
		{"S (5.1)", sTransform, sInv, []string{
			"ffeeddccbbaa99881122334455667700",
			"b66cd8887d38e8d77765aeea0c9a7efc",
			"559d8dd7bd06cbfe7e7b262523280d39",
			"0c3322fed531e4630d80ef5c5a81c50b",
			"23ae65633f842d29c5df529c13f5acda",
		}},
		{"R (5.2)", rTransform, rInv, []string{
			"00000000000000000000000000000100",
			"94000000000000000000000000000001",
			"a5940000000000000000000000000000",
			"64a59400000000000000000000000000",
			"0d64a594000000000000000000000000",
		}},
		{"L (5.3)", lTransform, lInv, []string{
			"64a59400000000000000000000000000",
			"d456584dd0e3e84cc3166e4b7fa2890d",
			"79d26221b87b584cd42fbc4ffea5de9a",
			"0e93691a0cfc60408b7b68f66b513c13",
			"e6a8094fee0aa204fd97bcb0b44b8580",
		}},
	} {
		for i := 1; i < len(tc.chain); i++ {
			in, want := blk(t, tc.chain[i-1]), blk(t, tc.chain[i])
			if got := tc.fn(in); got != want {
				t.Errorf("%s(%x) = %x, want %x", tc.name, in, got, want)
			}
			if got := tc.inv(want); got != in {
				t.Errorf("%s^-1(%x) = %x, want %x", tc.name, want, got, in)
			}
		}
	}
}

// TestRFC7801Constants checks C_1..C_8 (RFC 7801, section 5.4) and that the
// tables hold them.
func TestRFC7801Constants(t *testing.T) {
	tableOnce.Do(buildTables)
	for i, want := range []string{
		"6ea276726c487ab85d27bd10dd849401",
		"dc87ece4d890f4b3ba4eb92079cbeb02",
		"b2259a96b4d88e0be7690430a44f7f03",
		"7bcd1b0b73e32ba5b79cb140f2551504",
		"156f6d791fab511deabb0c502fd18105",
		"a74af7efab73df160dd208608b9efe06",
		"c9e8819dc73ba5ae50f5b570561a6a07",
		"f6593616e6055689adfba18027aa2a08",
	} {
		if got := fromWords(c[i]); got != blk(t, want) {
			t.Errorf("C_%d = %x, want %s", i+1, got, want)
		}
	}
}

// TestRFC7801KeySchedule checks the first Feistel round of the key
// schedule step by step, the pairs after each of the first eight rounds
// (RFC 7801, section 5.4), and all ten round keys.
func TestRFC7801KeySchedule(t *testing.T) {
	tableOnce.Do(buildTables)
	k1 := blk(t, rfcRoundKeys[0])
	k2 := blk(t, rfcRoundKeys[1])
	c1 := fromWords(c[0])

	x := xorBlock(c1, k1)
	if want := blk(t, "e63bdcc9a09594475d369f2399d1f276"); x != want {
		t.Errorf("X[C_1](K_1) = %x, want %x", x, want)
	}
	s := sTransform(x)
	if want := blk(t, "0998ca37a7947aabb78f4a5ae81b748a"); s != want {
		t.Errorf("SX[C_1](K_1) = %x, want %x", s, want)
	}
	l := lTransform(s)
	if want := blk(t, "3d0940999db75d6a9257071d5e6144a6"); l != want {
		t.Errorf("LSX[C_1](K_1) = %x, want %x", l, want)
	}

	// F[C_j] ... F[C_1](K_1, K_2), with the reference transformations.
	a1, a0 := k1, k2
	for j, want := range []string{
		"c3d5fa01ebe36f7a9374427ad7ca8949",
		"37777748e56453377d5e262d90903f87",
		"f9eae5f29b2815e31f11ac5d9c29fb01",
		"e980089683d00d4be37dd3434699b98f",
		"b7bd70acea4460714f4ebe13835cf004",
		"1a46ea1cf6ccd236467287df93fdf974",
		"3d4553d8e9cfec6815ebadc40a9ffd04",
		"db31485315694343228d6aef8cc78c44",
	} {
		a1, a0 = refF(fromWords(c[j]), a1, a0)
		if a1 != blk(t, want) {
			t.Errorf("after F[C_%d]: first half %x, want %s", j+1, a1, want)
		}
	}

	kc, err := NewCipher(blocktest.Unhex(t, rfcKey))
	if err != nil {
		t.Fatal(err)
	}
	k := kc.(*kuznyechikCipher)
	for i, want := range rfcRoundKeys {
		if got := fromWords(k.ek[i]); got != blk(t, want) {
			t.Errorf("K_%d = %x, want %s", i+1, got, want)
		}
	}
	// The decryption keys are L^-1 of the middle round keys.
	for i := 1; i <= 8; i++ {
		if got, want := fromWords(k.dk[i]), lInv(fromWords(k.ek[i])); got != want {
			t.Errorf("dk[%d] = %x, want L^-1(K_%d) = %x", i, got, i+1, want)
		}
	}
}

// TestRFC7801Encryption checks the first round's X, S and L steps and the
// state after every round (RFC 7801, section 5.5), with the reference
// transformations and with the tables.
func TestRFC7801Encryption(t *testing.T) {
	tableOnce.Do(buildTables)
	a := blk(t, rfcPlain)
	k1 := blk(t, rfcRoundKeys[0])
	x := xorBlock(a, k1)
	if want := blk(t, "99bb99ff99bb99ffffffffffffffffff"); x != want {
		t.Errorf("X[K_1](a) = %x, want %x", x, want)
	}
	if got, want := sTransform(x), blk(t, "e87de8b6e87de8b6b6b6b6b6b6b6b6b6"); got != want {
		t.Errorf("SX[K_1](a) = %x, want %x", got, want)
	}

	ref, tab := a, toWords(a)
	for r, want := range rfcEncryptStates {
		kr := blk(t, rfcRoundKeys[r])
		ref = xorBlock(ref, kr)
		kw := toWords(kr)
		tab[0] ^= kw[0]
		tab[1] ^= kw[1]
		step := "X[K_10]" // the last round is the key addition alone
		if r < 9 {
			ref = lTransform(sTransform(ref))
			tab[0], tab[1] = apply(&encT, tab[0], tab[1])
			step = "LSX[K_" + string(rune('1'+r)) + "]"
		}
		if ref != blk(t, want) {
			t.Errorf("reference: after %s: %x, want %s", step, ref, want)
		}
		if got := fromWords(tab); got != blk(t, want) {
			t.Errorf("tables: after %s: %x, want %s", step, got, want)
		}
	}
}

// TestRFC7801Decryption checks the first decryption steps of RFC 7801,
// section 5.6, and the state after each S^-1 L^-1 X round, which is the
// encryption's state before its round XOR the round key.
func TestRFC7801Decryption(t *testing.T) {
	b := blk(t, rfcCipher)
	k10 := blk(t, rfcRoundKeys[9])
	x := xorBlock(b, k10)
	if want := blk(t, "0d8e40e4a800d06b2f1b37ea379ead8e"); x != want {
		t.Errorf("X[K_10](b) = %x, want %x", x, want)
	}
	l := lInv(x)
	if want := blk(t, "8a6b930a52211b45c5baa43ff8b91319"); l != want {
		t.Errorf("L^-1 X[K_10](b) = %x, want %x", l, want)
	}
	s := sInv(l)
	if want := blk(t, "76ca149eef27d1b10d17e3d5d68e5a72"); s != want {
		t.Errorf("S^-1 L^-1 X[K_10](b) = %x, want %x", s, want)
	}
	// Go on to the plaintext with the reference transformations.
	state := x
	for r := 8; r >= 0; r-- {
		state = sInv(lInv(state))
		state = xorBlock(state, blk(t, rfcRoundKeys[r]))
		want := rfcPlain
		if r > 0 {
			want = rfcEncryptStates[r-1]
		}
		if state != blk(t, want) {
			t.Errorf("after X[K_%d]: %x, want %s", r+1, state, want)
		}
	}
}

func TestRFC7801Block(t *testing.T) {
	b, err := NewCipher(blocktest.Unhex(t, rfcKey))
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 16)
	b.Encrypt(got, blocktest.Unhex(t, rfcPlain))
	if hex.EncodeToString(got) != rfcCipher {
		t.Errorf("Encrypt = %x, want %s", got, rfcCipher)
	}
	b.Decrypt(got, blocktest.Unhex(t, rfcCipher))
	if hex.EncodeToString(got) != rfcPlain {
		t.Errorf("Decrypt = %x, want %s", got, rfcPlain)
	}
}
