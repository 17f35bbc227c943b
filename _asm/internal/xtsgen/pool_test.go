package xtsgen

import (
	"strings"
	"testing"

	"github.com/mmcloughlin/avo/reg"
)

// TestPoolOrder: the order Get hands registers out in is part of every
// generator's output, LIFO by default and FIFO on request.
func TestPoolOrder(t *testing.T) {
	tests := []struct {
		fifo bool
		want []reg.VecPhysical
	}{
		{false, []reg.VecPhysical{reg.Z3, reg.Z2, reg.Z1}},
		{true, []reg.VecPhysical{reg.Z1, reg.Z2, reg.Z3}},
	}
	for _, tt := range tests {
		p := &Pool{Free: []reg.VecPhysical{reg.Z1, reg.Z2, reg.Z3}, FIFO: tt.fifo, Owner: "test"}
		for i, w := range tt.want {
			if got := p.Get(); got != w {
				t.Errorf("FIFO=%v: Get #%d = %v, want %v", tt.fifo, i, got, w)
			}
		}
		p.Put(reg.Z7)
		p.Put(reg.Z8)
		want := reg.Z8
		if tt.fifo {
			want = reg.Z7
		}
		if got := p.Get(); got != want {
			t.Errorf("FIFO=%v: Get after Put(Z7), Put(Z8) = %v, want %v", tt.fifo, got, want)
		}
	}
}

// TestPoolPanics: an empty pool and a register freed twice are the
// generator's bugs, reported with its name.
func TestPoolPanics(t *testing.T) {
	tests := []struct {
		name string
		f    func(p *Pool)
		msg  string
	}{
		{"empty", func(p *Pool) { p.Get() }, "gen: out of vector registers"},
		{"twice", func(p *Pool) { p.Put(reg.Z5); p.Put(reg.Z5) }, "gen: Z5 freed twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				r := recover()
				s, _ := r.(string)
				if !strings.Contains(s, tt.msg) {
					t.Errorf("panic %v, want %q", r, tt.msg)
				}
			}()
			tt.f(&Pool{Owner: "gen"})
		})
	}
}
