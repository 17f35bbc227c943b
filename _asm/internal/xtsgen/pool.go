package xtsgen

import (
	"fmt"

	"github.com/mmcloughlin/avo/reg"
)

// Pool hands out free vector registers. The generators allocate physical
// registers by hand (avo's allocator does not see that a routine clears
// every register it used, and a register plan is part of the design), so
// a temporary comes from a Pool and goes back to it when it dies.
//
// Which register comes out next decides the instructions emitted: the
// order is part of each generator's output and is kept as it was.
type Pool struct {
	// Free holds the registers at hand. Get takes the last one (the
	// register put back most recently), or the first one when FIFO is
	// set; Put appends.
	Free []reg.VecPhysical
	// FIFO makes Get take the register that has been free the longest.
	FIFO bool
	// Owner names the generator in the panics ("serpent generator").
	Owner string
}

// Get takes a free register; it panics when none is left.
func (p *Pool) Get() reg.VecPhysical {
	if len(p.Free) == 0 {
		panic(p.Owner + ": out of vector registers")
	}
	if p.FIFO {
		r := p.Free[0]
		p.Free = p.Free[1:]
		return r
	}
	r := p.Free[len(p.Free)-1]
	p.Free = p.Free[:len(p.Free)-1]
	return r
}

// Put frees r; it panics when r is free already (a register that two
// values would share).
func (p *Pool) Put(r reg.VecPhysical) {
	for _, f := range p.Free {
		if f == r {
			panic(fmt.Sprintf("%s: %s freed twice", p.Owner, r.Asm()))
		}
	}
	p.Free = append(p.Free, r)
}
