package argon2

import (
	"encoding/binary"
	"sync"
)

// syncPoints is the number of slices a pass is cut into (RFC 9106 section
// 3.4: four); lanes synchronise at the end of each slice.
const syncPoints = 4

// blockWords is the size of a memory block in 64-bit words (1024 bytes).
const blockWords = 128

// block is one 1 KiB memory block, as little-endian 64-bit words.
type block [blockWords]uint64

// scratchBlocks is the number of work blocks each lane has besides its
// share of the memory: the compression function's temporary, and the
// address block, its input, the zero block and the temporary for computing
// it, of data-independent addressing.
const scratchBlocks = 5

// matrix is the Argon2 memory: lanes rows of laneLen blocks, lane l's
// blocks at mem[l*laneLen:(l+1)*laneLen], plus scratchBlocks per lane, all
// in one region from allocRegion.
type matrix struct {
	region  *region
	mem     []block
	scratch []block
	lanes   uint32
	laneLen uint32
	segLen  uint32
}

// newMatrix allocates the memory for blocks blocks (a multiple of
// syncPoints*lanes) in lanes lanes.
func newMatrix(blocks, lanes uint32) *matrix {
	r := allocRegion(int(blocks) + int(lanes)*scratchBlocks)
	all := r.blocks
	return &matrix{
		region:  r,
		mem:     all[:blocks],
		scratch: all[blocks:],
		lanes:   lanes,
		laneLen: blocks / lanes,
		segLen:  blocks / lanes / syncPoints,
	}
}

// release zeroes the whole region (it holds password-derived data) and
// gives it back.
func (m *matrix) release() {
	m.region.free()
	m.mem, m.scratch = nil, nil
}

// lane returns lane l's blocks.
func (m *matrix) lane(l uint32) []block {
	return m.mem[l*m.laneLen : (l+1)*m.laneLen]
}

// testSliceDone, when set (by tests only), is called by fill after each
// slice.
var testSliceDone func(m *matrix, pass, slice uint32)

// fill computes the first two blocks of every lane from h0 (RFC 9106
// section 3.2 steps 3 and 4) and then runs the passes, the lanes of each
// slice in parallel. A non-nil stop is called before each slice; fill
// returns false, the memory half filled, as soon as it reports true, and
// true when every pass is done.
func (m *matrix) fill(y uint32, h0 *[64]byte, time uint32, stop func() bool) bool {
	var buf [1024]byte
	var suffix [8]byte
	for l := uint32(0); l < m.lanes; l++ {
		for j := uint32(0); j < 2; j++ {
			binary.LittleEndian.PutUint32(suffix[0:], j)
			binary.LittleEndian.PutUint32(suffix[4:], l)
			variableHash(buf[:], h0[:], suffix[:])
			b := &m.lane(l)[j]
			for i := range b {
				b[i] = binary.LittleEndian.Uint64(buf[8*i:])
			}
		}
	}
	clear(buf[:])

	var wg sync.WaitGroup
	for pass := uint32(0); pass < time; pass++ {
		for slice := uint32(0); slice < syncPoints; slice++ {
			if stop != nil && stop() {
				return false
			}
			wg.Add(int(m.lanes))
			for l := uint32(0); l < m.lanes; l++ {
				go func() {
					defer wg.Done()
					m.fillSegment(y, time, pass, slice, l)
				}()
			}
			wg.Wait()
			if testSliceDone != nil {
				testSliceDone(m, pass, slice)
			}
		}
	}
	return true
}

// fillSegment computes lane's blocks of one slice of one pass (RFC 9106
// section 3.4). Each block's reference block is found while the block
// before it is being compressed, between the two parts of G, and
// prefetched.
func (m *matrix) fillSegment(y, time, pass, slice, lane uint32) {
	scratch := m.scratch[lane*scratchBlocks : (lane+1)*scratchBlocks]
	tmp, addresses, input, zero, addrTmp := &scratch[0], &scratch[1], &scratch[2], &scratch[3], &scratch[4]
	g := active

	dataIndependent := y == typeArgon2i || (y == typeArgon2id && pass == 0 && slice < syncPoints/2)
	if dataIndependent {
		// Z of section 3.4.1.1; word 6 counts the address blocks.
		clear(input[:])
		clear(zero[:])
		input[0] = uint64(pass)
		input[1] = uint64(lane)
		input[2] = uint64(slice)
		input[3] = uint64(len(m.mem))
		input[4] = uint64(time)
		input[5] = uint64(y)
	}
	nextAddresses := func() {
		input[6]++
		g.run(addresses, zero, input, addrTmp, false)
		g.run(addresses, zero, addresses, addrTmp, false)
	}
	// pseudoRandom is J1 || J2 for block i of the segment, out being
	// block i-1 (section 3.4.1).
	pseudoRandom := func(i uint32, prev *block) uint64 {
		if !dataIndependent {
			return prev[0]
		}
		if i%blockWords == 0 {
			nextAddresses()
		}
		return addresses[i%blockWords]
	}

	first := uint32(0)
	if pass == 0 && slice == 0 {
		// Blocks 0 and 1 come from H0; the address block still counts
		// them.
		first = 2
		if dataIndependent {
			nextAddresses()
		}
	}
	cur := m.lane(lane)
	laneLen, segLen := m.laneLen, m.segLen
	prevOf := func(i uint32) *block {
		if offset := slice*segLen + i; offset > 0 {
			return &cur[offset-1]
		}
		return &cur[laneLen-1]
	}
	ref := m.reference(pseudoRandom(first, prevOf(first)), pass, slice, lane, first)
	for i := first; i < segLen; i++ {
		out, prev := &cur[slice*segLen+i], prevOf(i)
		g.head(out, prev, ref, tmp, pass > 0)
		var next *block
		if i+1 < segLen {
			next = m.reference(pseudoRandom(i+1, out), pass, slice, lane, i+1)
			prefetch(next)
		}
		g.tail(out, prev, ref, tmp, pass > 0)
		ref = next
	}
}

// reference returns the reference block of block i of lane's segment in
// slice of pass, from its pseudo-random value J1 || J2 (RFC 9106 section
// 3.4.2): in another lane unless this is the first slice of the first pass,
// and, within that lane, one of the blocks computed so far (this lane's bar
// the previous one; another lane's in finished segments only, bar its last
// block when this is the first block of the segment), nearer ones more
// likely; from the second pass on, the window is the last three slices'
// worth before this one.
func (m *matrix) reference(pseudo uint64, pass, slice, lane, i uint32) *block {
	laneLen, segLen := m.laneLen, m.segLen
	j1, j2 := uint32(pseudo), uint32(pseudo>>32)
	refLane := j2 % m.lanes
	if pass == 0 && slice == 0 {
		refLane = lane
	}
	var area, start uint32
	if pass == 0 {
		if refLane == lane {
			area = slice*segLen + i - 1
		} else {
			area = slice * segLen
		}
	} else {
		if refLane == lane {
			area = laneLen - segLen + i - 1
		} else {
			area = laneLen - segLen
		}
		start = (slice + 1) % syncPoints * segLen
	}
	if refLane != lane && i == 0 {
		area--
	}
	x := uint64(j1) * uint64(j1) >> 32
	rel := area - 1 - uint32(uint64(area)*x>>32)
	// start and rel are both below laneLen: one subtraction is the
	// modulo (in 64 bits: a lane may be nearly 2^32 blocks).
	pos := uint64(start) + uint64(rel)
	if pos >= uint64(laneLen) {
		pos -= uint64(laneLen)
	}
	return &m.lane(refLane)[pos]
}

// finalize XORs the last block of every lane and hashes it with H' into
// keyLen bytes (RFC 9106 section 3.2 steps 7 and 8).
func (m *matrix) finalize(keyLen uint32) []byte {
	c := &m.scratch[0]
	*c = m.lane(0)[m.laneLen-1]
	for l := uint32(1); l < m.lanes; l++ {
		last := &m.lane(l)[m.laneLen-1]
		for i := range c {
			c[i] ^= last[i]
		}
	}
	var buf [1024]byte
	for i, w := range c {
		binary.LittleEndian.PutUint64(buf[8*i:], w)
	}
	out := make([]byte, keyLen)
	variableHash(out, buf[:])
	clear(buf[:])
	return out
}
