// Command nbdfile serves a plain file with package nbd, for benchmarks
// against nbdkit's file plugin (scripts/nbd-bench.sh):
//
//	nbdfile [-readonly] [-block-size N] FILE 'SHELL COMMAND'
//	nbdfile [-readonly] [-block-size N] -socket PATH FILE
//
// The first form runs the command with $uri set to the export's URI (a
// socket in a private directory), then stops the server and exits with
// the command's status, as nbdkit --run does. The second serves on a new
// socket at PATH until SIGTERM or SIGINT.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/fastxts/xts/internal/nbd"
	"github.com/fastxts/xts/internal/sock"
)

func main() {
	readOnly := flag.Bool("readonly", false, "refuse writes")
	blockSize := flag.Int("block-size", 512, "the minimum block size to advertise")
	socket := flag.String("socket", "", "serve on a new Unix socket at `PATH` until SIGTERM")
	flag.Parse()
	if (*socket == "" && flag.NArg() != 2) || (*socket != "" && flag.NArg() != 1) {
		fmt.Fprintln(os.Stderr, "usage: nbdfile [-readonly] [-block-size N] FILE 'SHELL COMMAND'\n       nbdfile [-readonly] [-block-size N] -socket PATH FILE")
		os.Exit(1)
	}
	code, err := serve(flag.Arg(0), flag.Arg(1), *socket, *readOnly, *blockSize)
	if err != nil {
		fmt.Fprintln(os.Stderr, "nbdfile:", err)
		os.Exit(1)
	}
	os.Exit(code)
}

func serve(path, command, socket string, readOnly bool, blockSize int) (int, error) {
	mode := os.O_RDWR
	if readOnly {
		mode = os.O_RDONLY
	}
	f, err := os.OpenFile(path, mode, 0)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	sockPath := socket
	if sockPath == "" {
		dir, err := os.MkdirTemp("", "nbdfile-")
		if err != nil {
			return 0, err
		}
		defer os.RemoveAll(dir)
		sockPath = filepath.Join(dir, "nbd.sock")
	}
	l, err := sock.ListenUnix(sockPath)
	if err != nil {
		return 0, err
	}
	defer os.Remove(sockPath)
	s := &nbd.Server{Backend: nbd.NewFile(f, fi.Size(), blockSize, readOnly)}
	go s.Serve(l)
	if socket != "" {
		sigs := make(chan os.Signal, 1)
		signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
		<-sigs
		return 0, s.Shutdown(context.Background())
	}
	cmd := exec.Command("/bin/sh", "-c", command)
	cmd.Env = append(os.Environ(), "uri=nbd+unix:///?socket="+sockPath)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	runErr := cmd.Run()
	if err := s.Shutdown(context.Background()); err != nil {
		return 0, err
	}
	var ee *exec.ExitError
	if errors.As(runErr, &ee) {
		return ee.ExitCode(), nil
	}
	return 0, runErr
}
