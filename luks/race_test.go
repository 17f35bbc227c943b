//go:build race

package luks

// raceEnabled: this test binary is built with -race.
const raceEnabled = true
