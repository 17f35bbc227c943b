//go:build !linux

package nbd

// childEnv names the variable that makes the test binary a server (on
// Linux only).
const childEnv = "NBD_TEST_CHILD_SERVER"

func runChild(string) int { return 2 }
