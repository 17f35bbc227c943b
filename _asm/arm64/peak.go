package main

// peakLoop emits roundsARMv8 for internal/peak: n iterations of
// peakRounds AES rounds (AESE+AESMC, the fused pair the XTS routines use)
// on independent registers V0..V11 with one round key in V12, so that the
// AES units, not the latency of one round, set the pace. No frame, no
// memory.
func (f *file) peakLoop() {
	const peakRounds = 12 // internal/peak.RoundsPerIter
	f.text("roundsARMv8", "func roundsARMv8(n uint64)", 8)
	n := newGPR(0)
	key := vreg(peakRounds)
	for v := range vreg(peakRounds + 1) {
		f.vzero(v)
	}
	f.ldArg(n, "n", 0)
	loop, done := f.newLabel("loop"), f.newLabel("done")
	f.cbz(n, done)
	f.label(loop)
	for v := range vreg(peakRounds) {
		f.aesRound(key, v, false, false)
	}
	f.subsImm(n, 1)
	f.bne(loop)
	f.label(done)
	f.ret()
}
