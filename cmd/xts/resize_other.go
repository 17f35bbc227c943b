//go:build !unix

package main

import "os"

// notifyResize: no SIGWINCH here; the width read at the start stays.
func notifyResize(chan<- os.Signal) {}
