//go:build !race

package veracrypt

// raceEnabled: the race detector makes the pure-Go hashes' PBKDF2 slow.
const raceEnabled = false
