package main

import (
	"fmt"
	"math/bits"

	"github.com/fastxts/xts/_asm/internal/gf2p8"
	"github.com/fastxts/xts/internal/cipherspec"
)

// This file derives, from SBOX1 of RFC 3713 alone, the GFNI affine maps
// that compute Camellia's four S-boxes:
//
//	s(x) = Q·inv(P·x ⊕ c) ⊕ d
//
// where inv is inversion in GF(2^8) modulo x^8+x^4+x^3+x+1 (the field of
// VGF2P8AFFINEINVQB), P and Q are 8×8 bit matrices and c, d bytes. SBOX1 is
// built from an inversion in another representation of GF(2^8) between
// two affine maps; every representation is isomorphic to GFNI's by a linear
// map, so such P, Q, c, d exist. The search below finds them without the
// designers' description of the field:
//
//  1. Guess the input x* that reaches inv(0) = 0 (c = P·x*, d = s1(x*)),
//     so that g(y) = s1(y ⊕ x*) ⊕ d = Q·inv(P·y) is linear-equivalent to
//     inversion.
//  2. w·z = 1 in the field (w = P·y, z = Q⁻¹·g(y), y ≠ 0) gives, for every
//     field element β, a bilinear equation y^T·C_β·g(y) = Tr(β) with
//     C_β = P^T·T_β·Q⁻¹: solving the linear system in C's 64 bits and the
//     constant finds exactly the 8-dimensional space of the C_β (a wrong
//     guess finds no such space).
//  3. K = (C_b·C_a⁻¹)^T = P⁻¹·M_{b/a}·P: the multiplication maps of the
//     field carried to bytes through P. The K whose minimal polynomial is
//     GFNI's x^8+x^4+x^3+x+1 is P⁻¹·M_α·P, α a root of it; P⁻¹(α^i) =
//     K^i·1 fixes P (up to the self-equivalences of inversion, which do not
//     matter), and Q follows from Q·e_i = g(P⁻¹·inv(e_i)).
//  4. Every S-box is checked on all 256 inputs (s2, s3, s4 rotate the
//     output or the input of s1, RFC 3713 section 2.4.4).

// sbox1 is SBOX1 of RFC 3713, section 2.4.4: the root module's table,
// which the portable package uses too.
var sbox1 = cipherspec.CamelliaSBOX1

func rotl8(x byte, n int) byte { return bits.RotateLeft8(x, n) }

// sbox returns SBOX1..SBOX4 (n = 1..4) of RFC 3713 at x.
func sbox(n int, x byte) byte {
	switch n {
	case 1:
		return sbox1[x]
	case 2:
		return rotl8(sbox1[x], 1)
	case 3:
		return rotl8(sbox1[x], -1)
	default:
		return sbox1[rotl8(x, 1)]
	}
}

// mat is an 8×8 matrix over GF(2): bit j of row i is entry (i, j), so
// (M·x)_i = parity(M[i] & x).
type mat [8]byte

func (m mat) apply(x byte) byte {
	var y byte
	for i := range 8 {
		y |= byte(bits.OnesCount8(m[i]&x)&1) << i
	}
	return y
}

// fromCols builds the matrix whose column j is c[j].
func fromCols(c [8]byte) mat {
	var m mat
	for j := range 8 {
		for i := range 8 {
			m[i] |= (c[j] >> i & 1) << j
		}
	}
	return m
}

func (m mat) cols() [8]byte {
	var c [8]byte
	for j := range 8 {
		c[j] = m.apply(1 << j)
	}
	return c
}

func (m mat) mul(n mat) mat {
	c := n.cols()
	for j := range 8 {
		c[j] = m.apply(c[j])
	}
	return fromCols(c)
}

func (m mat) add(n mat) mat {
	for i := range 8 {
		m[i] ^= n[i]
	}
	return m
}

func (m mat) transpose() mat { return fromCols(m) }

var identity = mat{1, 2, 4, 8, 16, 32, 64, 128}

// inverse returns m⁻¹ and whether m is invertible (Gauss-Jordan).
func (m mat) inverse() (mat, bool) {
	a, b := m, identity
	for col := range 8 {
		p := -1
		for r := col; r < 8; r++ {
			if a[r]>>col&1 != 0 {
				p = r
				break
			}
		}
		if p < 0 {
			return mat{}, false
		}
		a[col], a[p] = a[p], a[col]
		b[col], b[p] = b[p], b[col]
		for r := range 8 {
			if r != col && a[r]>>col&1 != 0 {
				a[r] ^= a[col]
				b[r] ^= b[col]
			}
		}
	}
	return b, true
}

// rotMat is the matrix of x ↦ x <<< n on bytes.
func rotMat(n int) mat {
	var c [8]byte
	for j := range 8 {
		c[j] = rotl8(1<<j, n)
	}
	return fromCols(c)
}

// gfniPoly is the modulus of VGF2P8AFFINEINVQB's field,
// x^8+x^4+x^3+x+1.
const gfniPoly = 0x11B

// gfInv is inversion in that field, 0 to 0 (as VGF2P8AFFINEINVQB).
func gfInv(a byte) byte {
	r := byte(1)
	for range 254 {
		r = gf2p8.Mul(r, a, gfniPoly)
	}
	return r
}

// affine is one GFNI affine step: x ↦ M·x ⊕ imm (inv first when inv).
type affine struct {
	m   mat
	imm byte
	inv bool
}

func (a affine) apply(x byte) byte {
	if a.inv {
		x = gfInv(x)
	}
	return a.m.apply(x) ^ a.imm
}

// qword is the 64-bit matrix operand of VGF2P8AFFINEQB and
// VGF2P8AFFINEINVQB: bit i of a result byte is the parity of the source
// byte AND byte 7-i of the operand.
func (a affine) qword() uint64 {
	var q uint64
	for i := range 8 {
		q |= uint64(a.m[i]) << (8 * (7 - i))
	}
	return q
}

// gfni is the pair of GFNI steps of each S-box (index 1..4).
type gfni struct{ pre, post [5]affine }

// deriveGFNI finds P, Q, c, d for SBOX1 and from them the steps of all
// four S-boxes, checked on every input; it fails if the search does.
func deriveGFNI() (gfni, error) {
	for xs := range 256 {
		p, q, ok := solveFor(byte(xs))
		if !ok {
			continue
		}
		c, d := p.apply(byte(xs)), sbox1[xs]
		var g gfni
		for n := 1; n <= 4; n++ {
			g.pre[n] = affine{m: p, imm: c}
			g.post[n] = affine{m: q, imm: d, inv: true}
		}
		g.post[2] = affine{m: rotMat(1).mul(q), imm: rotl8(d, 1), inv: true}
		g.post[3] = affine{m: rotMat(-1).mul(q), imm: rotl8(d, -1), inv: true}
		g.pre[4] = affine{m: p.mul(rotMat(1)), imm: c}
		for n := 1; n <= 4; n++ {
			for x := range 256 {
				if got, want := g.post[n].apply(g.pre[n].apply(byte(x))), sbox(n, byte(x)); got != want {
					return gfni{}, fmt.Errorf("SBOX%d(%#02x): GFNI form gives %#02x, want %#02x", n, x, got, want)
				}
			}
		}
		return g, nil
	}
	return gfni{}, fmt.Errorf("no affine equivalence of SBOX1 to GF(2^8) inversion found")
}

// solveFor runs steps 2 and 3 for the guess x*, returning P and Q with
// s1(y ⊕ x*) ⊕ s1(x*) = Q·inv(P·y) for every y.
func solveFor(xs byte) (p, q mat, ok bool) {
	g := func(y byte) byte { return sbox1[y^xs] ^ sbox1[xs] }
	// Unknowns: C's 64 entries (bit 8i+j: entry (i, j)) and the constant
	// (bit 64). Equation for y: sum of y_i·z_j·C_ij + const = 0.
	var rows [][2]uint64
	for y := 1; y < 256; y++ {
		z := g(byte(y))
		var r [2]uint64
		for i := range 8 {
			if y>>i&1 != 0 {
				r[0] |= uint64(z) << (8 * i)
			}
		}
		r[1] = 1
		rows = append(rows, r)
	}
	sols := nullspace(rows)
	if len(sols) != 8 {
		return p, q, false
	}
	toMat := func(v [2]uint64) mat {
		var m mat
		for i := range 8 {
			m[i] = byte(v[0] >> (8 * i))
		}
		return m
	}
	var cs [8]mat
	for i, s := range sols {
		cs[i] = toMat(s)
	}
	var inva mat
	found := false
	for _, c := range cs {
		if inva, found = c.inverse(); found {
			break
		}
	}
	if !found {
		return p, q, false
	}
	var ks [8]mat
	for i, c := range cs {
		ks[i] = c.mul(inva).transpose()
	}
	// Find K with K^8 + K^4 + K^3 + K + 1 = 0 among the 256 combinations.
	for comb := 1; comb < 256; comb++ {
		var k mat
		for i := range 8 {
			if comb>>i&1 != 0 {
				k = k.add(ks[i])
			}
		}
		pow := [9]mat{identity}
		for i := 1; i <= 8; i++ {
			pow[i] = pow[i-1].mul(k)
		}
		if pow[8].add(pow[4]).add(pow[3]).add(pow[1]).add(identity) != (mat{}) {
			continue
		}
		// P⁻¹(α^i) = K^i·1.
		var c [8]byte
		for i := range 8 {
			c[i] = pow[i].apply(1)
		}
		pinv := fromCols(c)
		pm, ok := pinv.inverse()
		if !ok {
			continue
		}
		for i := range 8 {
			c[i] = g(pinv.apply(gfInv(1 << i)))
		}
		qm := fromCols(c)
		good := true
		for y := range 256 {
			if qm.apply(gfInv(pm.apply(byte(y)))) != g(byte(y)) {
				good = false
				break
			}
		}
		if good {
			return pm, qm, true
		}
	}
	return p, q, false
}

// nullspace returns a basis of the solutions x of r·x = 0 for every row r
// (65 unknowns: 64 in word 0, one in bit 0 of word 1).
func nullspace(rows [][2]uint64) [][2]uint64 {
	bit := func(v [2]uint64, k int) uint64 { return v[k/64] >> (k % 64) & 1 }
	const n = 65
	var pivots []int
	r := 0
	for col := 0; col < n && r < len(rows); col++ {
		p := -1
		for i := r; i < len(rows); i++ {
			if bit(rows[i], col) != 0 {
				p = i
				break
			}
		}
		if p < 0 {
			continue
		}
		rows[r], rows[p] = rows[p], rows[r]
		for i := range rows {
			if i != r && bit(rows[i], col) != 0 {
				rows[i][0] ^= rows[r][0]
				rows[i][1] ^= rows[r][1]
			}
		}
		pivots = append(pivots, col)
		r++
	}
	isPivot := make([]bool, n)
	for _, c := range pivots {
		isPivot[c] = true
	}
	var basis [][2]uint64
	for free := range n {
		if isPivot[free] {
			continue
		}
		var v [2]uint64
		v[free/64] |= 1 << (free % 64)
		for i, c := range pivots {
			if bit(rows[i], free) != 0 {
				v[c/64] |= 1 << (c % 64)
			}
		}
		basis = append(basis, v)
	}
	return basis
}
