package nbd

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"log"
	"sync"
	"testing"
)

// fuzzExport is the export the fuzz targets negotiate and serve: 64 KiB
// in memory, 512-byte sectors, requests up to 16 KiB.
func fuzzServer() (*Server, *export) {
	s := &Server{
		Backend:     NewMem(make([]byte, 64<<10), 512, false),
		Name:        "fuzz",
		MaxRequest:  16 << 10,
		MaxInFlight: 12 << 10, // 4 KiB chunks: longer requests go in several
		MaxMemory:   64 << 10,
		ErrorLog:    log.New(io.Discard, "", 0),
	}
	ex, err := s.export()
	if err != nil {
		panic(err)
	}
	return s, ex
}

// FuzzHandshake feeds the client's side of a handshake (client flags,
// then options) to the server and checks that what it answers is a
// greeting followed by well-formed option replies, and the export's
// details at the end when the client chose the export.
func FuzzHandshake(f *testing.F) {
	flags := binary.BigEndian.AppendUint32(nil, clientFixedNewstyle|clientNoZeroes)
	seq := func(opts ...[]byte) []byte { return bytes.Join(append([][]byte{flags}, opts...), nil) }
	f.Add(seq(optBytes(optGo, infoData("fuzz", infoBlockSize))))
	f.Add(seq(optBytes(optList, nil), optBytes(optInfo, infoData("fuzz", infoName)), optBytes(optExportName, []byte("fuzz"))))
	f.Add(seq(optBytes(optInfo, infoData("x")), optBytes(8, nil), optBytes(optAbort, nil)))
	f.Add(seq(optBytes(optGo, []byte{0, 0, 0, 4, 'f'})))
	f.Add(binary.BigEndian.AppendUint32(nil, 0))
	f.Fuzz(func(t *testing.T, in []byte) {
		_, ex := fuzzServer()
		checkRefusal(t, in)
		var out bytes.Buffer
		err := handshake(bytes.NewReader(in), bufio.NewWriter(&out), ex)
		o := out.Bytes()
		if len(o) < 18 || binary.BigEndian.Uint64(o) != magicNBD {
			t.Fatalf("no greeting: %x", o)
		}
		o = o[18:]
		for len(o) > 0 {
			if len(o) >= 20 && binary.BigEndian.Uint64(o) == magicOptReply {
				n := binary.BigEndian.Uint32(o[16:])
				if uint64(n) > uint64(len(o)-20) || n > maxNameLen+64 {
					t.Fatalf("option reply of %d bytes with %d left", n, len(o)-20)
				}
				o = o[20+n:]
				continue
			}
			// Only NBD_OPT_EXPORT_NAME's answer may end the handshake.
			if err != nil || (len(o) != 10 && len(o) != 134) || binary.BigEndian.Uint64(o) != ex.size {
				t.Fatalf("trailing %d bytes %x (handshake error %v)", len(o), o, err)
			}
			return
		}
	})
}

// checkRefusal runs the refusal of a client over the connection limit
// on in and checks that it answers a greeting and then only well-formed
// NBD_REP_ERR_POLICY replies (NBD_REP_ACK to NBD_OPT_ABORT), at most
// maxRefusedOptions of them.
func checkRefusal(t *testing.T, in []byte) {
	var out bytes.Buffer
	refuseHandshake(bytes.NewReader(in), bufio.NewWriter(&out), "busy")
	o := out.Bytes()
	if len(o) < 18 || binary.BigEndian.Uint64(o) != magicNBD {
		t.Fatalf("refusal: no greeting: %x", o)
	}
	o = o[18:]
	for n := 0; len(o) > 0; n++ {
		if n == maxRefusedOptions || len(o) < 20 || binary.BigEndian.Uint64(o) != magicOptReply {
			t.Fatalf("refusal: reply %d malformed: %x", n, o)
		}
		typ, l := binary.BigEndian.Uint32(o[12:]), binary.BigEndian.Uint32(o[16:])
		if !(typ == repErrPolicy && l == 4 && string(o[20:min(len(o), 24)]) == "busy") && !(typ == repAck && l == 0 && binary.BigEndian.Uint32(o[8:]) == optAbort) {
			t.Fatalf("refusal: reply %d of type %#x with %d bytes", n, typ, l)
		}
		o = o[20+l:]
	}
}

// FuzzRequests feeds a stream of transmission-phase requests to the
// server and checks that its output is a sequence of simple replies, each
// to a request that was sent, with data exactly after successful reads.
func FuzzRequests(f *testing.F) {
	req := func(typ, flags uint16, h, off uint64, n uint32, payload ...byte) []byte {
		return append(reqBytes(typ, flags, h, off, n), payload...)
	}
	f.Add(bytes.Join([][]byte{
		req(cmdWrite, cmdFlagFUA, 1, 3, 4, 1, 2, 3, 4),
		req(cmdRead, 0, 2, 0, 100),
		req(cmdWriteZeroes, cmdFlagNoHole, 3, 5, 1000),
		req(cmdFlush, 0, 4, 0, 0),
		req(cmdTrim, 0, 5, 0, 512),
		req(cmdDisc, 0, 6, 0, 0),
	}, nil))
	f.Add(req(cmdRead, 0, 1, 64<<10-1, 2))
	f.Add(req(cmdRead, 0, 1, 0, 16<<10+1))
	f.Add(req(cmdWrite, 0, 1, 0, 10, 1, 2))
	f.Add(append(req(99, 1<<15, 1, 0, 0), 0x25, 0x60))
	// Longer than a chunk (4 KiB): moved in pieces.
	f.Add(bytes.Join([][]byte{
		req(cmdWrite, cmdFlagFUA, 1, 8<<10-3, 12<<10, make([]byte, 12<<10)...),
		req(cmdRead, 0, 2, 1, 16<<10),
	}, nil))
	// Over the maximum block size: refused, the payload skipped.
	f.Add(bytes.Join([][]byte{
		req(cmdWrite, 0, 1, 0, 16<<10+1, make([]byte, 16<<10+1)...),
		req(cmdRead, 0, 2, 0, 16<<10+1),
		req(cmdWrite, 0, 3, 64<<10, 1, 9),
	}, nil))
	f.Fuzz(func(t *testing.T, in []byte) {
		s, ex := fuzzServer()
		var (
			mu  sync.Mutex
			out bytes.Buffer
		)
		tr := s.newTransmission(ex, bufio.NewReader(bytes.NewReader(in)), lockedWriter{&mu, &out})
		tr.run()
		if got := s.Backend.Size(); got != 64<<10 {
			t.Fatalf("backend size %d", got)
		}
		// The handles sent, and the read length of those only used by reads.
		reads := map[uint64]uint32{}
		other := map[uint64]bool{}
		for p := in; len(p) >= requestLen; {
			r, err := parseRequest((*[requestLen]byte)(p))
			if err != nil || r.typ == cmdDisc {
				break
			}
			if l, seen := reads[r.handle]; r.typ == cmdRead && (!seen || l == r.length) {
				reads[r.handle] = r.length
			} else {
				other[r.handle] = true
			}
			p = p[requestLen:]
			if r.typ == cmdWrite {
				if uint64(r.length) > uint64(len(p)) {
					break
				}
				p = p[r.length:]
			}
		}
		o := out.Bytes()
		for len(o) > 0 {
			if len(o) < replyLen || binary.BigEndian.Uint32(o) != magicReply {
				t.Fatalf("malformed reply %x", o)
			}
			h, errno := binary.BigEndian.Uint64(o[8:]), binary.BigEndian.Uint32(o[4:])
			o = o[replyLen:]
			n, isRead := reads[h]
			if !isRead && !other[h] {
				t.Fatalf("reply to handle %d, never sent", h)
			}
			if isRead && other[h] {
				return // the handle is ambiguous: stop checking
			}
			if isRead && errno == 0 {
				if uint64(n) > uint64(len(o)) {
					t.Fatalf("read reply with %d of %d bytes", len(o), n)
				}
				o = o[n:]
			}
		}
	})
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
