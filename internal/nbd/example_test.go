package nbd_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"path/filepath"

	"github.com/fastxts/xts/internal/nbd"
	"github.com/fastxts/xts/internal/sock"
)

// ExampleServer serves 1 MiB of memory on a Unix socket, greets one
// client and shuts down. A real caller serves a luks.Volume or an
// nbd.File and lets nbdcopy, qemu or nbdfuse connect.
func ExampleServer() {
	dir, err := os.MkdirTemp("", "nbd-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir) // the caller removes the socket
	l, err := sock.ListenUnix(filepath.Join(dir, "nbd.sock"))
	if err != nil {
		log.Fatal(err)
	}
	s := &nbd.Server{Backend: nbd.NewMem(make([]byte, 1<<20), 512, false)}
	served := make(chan error, 1)
	go func() { served <- s.Serve(l) }()

	// A client's first read: the server's greeting.
	c, err := net.Dial("unix", filepath.Join(dir, "nbd.sock"))
	if err != nil {
		log.Fatal(err)
	}
	var greeting [18]byte
	if _, err := io.ReadFull(c, greeting[:]); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s %s flags %#x\n", greeting[:8], greeting[8:16], binary.BigEndian.Uint16(greeting[16:]))
	c.Close()

	// On a signal: stop accepting, answer what is in flight, flush.
	if err := s.Shutdown(context.Background()); err != nil {
		log.Fatal(err)
	}
	fmt.Println(<-served)
	// Output:
	// NBDMAGIC IHAVEOPT flags 0x3
	// nbd: server closed
}
