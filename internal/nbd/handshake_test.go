package nbd

import (
	"bytes"
	"encoding/binary"
	"io"
	"testing"
)

func TestGreeting(t *testing.T) {
	ts := startServer(t, NewMem(make([]byte, 4096), 512, false))
	cl := dialRaw(t, ts.sock, clientFixedNewstyle)
	if want := uint16(flagFixedNewstyle | flagNoZeroes); cl.handshakeFlags != want {
		t.Errorf("handshake flags %#x, want %#x", cl.handshakeFlags, want)
	}
}

// TestOptions checks the reply to each option in the option haggling.
func TestOptions(t *testing.T) {
	const name = "disk"
	tests := []struct {
		name     string
		code     uint32
		data     []byte
		want     []uint32 // reply types in order
		wantData string   // expected in the first reply's data, if set
	}{
		{"list", optList, nil, []uint32{repServer, repAck}, "\x00\x00\x00\x04disk"},
		{"list with data", optList, []byte{1}, []uint32{repErrInvalid}, "no data"},
		{"info", optInfo, infoData(name), []uint32{repInfo, repInfo, repAck}, ""},
		{"info asking the name", optInfo, infoData(name, infoName, infoBlockSize), []uint32{repInfo, repInfo, repInfo, repAck}, ""},
		{"info unknown export", optInfo, infoData("other"), []uint32{repErrUnknown}, "no such export"},
		{"info truncated", optInfo, infoData(name)[:5], []uint32{repErrInvalid}, "malformed"},
		{"info name too long", optInfo, binary.BigEndian.AppendUint32(nil, 1000), []uint32{repErrInvalid}, "malformed"},
		{"info trailing bytes", optInfo, append(infoData(name), 0), []uint32{repErrInvalid}, "malformed"},
		{"go unknown export", optGo, infoData(""), []uint32{repErrUnknown}, ""},
		{"starttls", 5, nil, []uint32{repErrUnsup}, "not supported"},
		{"structured replies", 8, nil, []uint32{repErrUnsup}, ""},
		{"extended headers", 11, nil, []uint32{repErrUnsup}, ""},
		{"unknown", 0x7fff, []byte("xyz"), []uint32{repErrUnsup}, ""},
	}
	ts := startServer(t, NewMem(make([]byte, 1<<20), 4096, false), func(s *Server) { s.Name = name })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl := dialRaw(t, ts.sock, clientFixedNewstyle|clientNoZeroes)
			cl.option(tt.code, tt.data)
			for i, want := range tt.want {
				typ, data := cl.optReply(tt.code)
				if typ != want {
					t.Fatalf("reply %d: type %#x, want %#x (data %q)", i, typ, want, data)
				}
				if i == 0 && !bytes.Contains(data, []byte(tt.wantData)) {
					t.Errorf("reply data %q does not contain %q", data, tt.wantData)
				}
				if typ == repInfo {
					checkInfo(t, data, name)
				}
			}
			// The haggling goes on after each of these options.
			cl.option(optList, nil)
			if typ, _ := cl.optReply(optList); typ != repServer {
				t.Errorf("NBD_OPT_LIST afterwards: reply %#x", typ)
			}
		})
	}
}

// checkInfo checks one NBD_REP_INFO against a 1 MiB, 4096-byte-sector,
// writable memory export.
func checkInfo(t *testing.T, data []byte, name string) {
	t.Helper()
	switch binary.BigEndian.Uint16(data) {
	case infoExport:
		if len(data) != 12 || binary.BigEndian.Uint64(data[2:]) != 1<<20 {
			t.Errorf("NBD_INFO_EXPORT %x", data)
		}
		want := uint16(tflagHasFlags | tflagCanMultiConn | tflagSendFlush | tflagSendFUA | tflagSendZeroes)
		if f := binary.BigEndian.Uint16(data[10:]); f != want {
			t.Errorf("transmission flags %#x, want %#x", f, want)
		}
	case infoBlockSize:
		if len(data) != 14 {
			t.Fatalf("NBD_INFO_BLOCK_SIZE %x", data)
		}
		minB, pref, maxB := binary.BigEndian.Uint32(data[2:]), binary.BigEndian.Uint32(data[6:]), binary.BigEndian.Uint32(data[10:])
		if minB != 4096 || pref != 4096 || maxB != DefaultMaxRequest {
			t.Errorf("block sizes %d/%d/%d, want 4096/4096/%d", minB, pref, maxB, DefaultMaxRequest)
		}
	case infoName:
		if string(data[2:]) != name {
			t.Errorf("NBD_INFO_NAME %q, want %q", data[2:], name)
		}
	default:
		t.Errorf("unexpected information %x", data)
	}
}

func TestExportName(t *testing.T) {
	tests := []struct {
		name        string
		clientFlags uint32
		export      string
		wantLen     int // bytes of the reply; 0: the server closes
	}{
		{"no zeroes", clientFixedNewstyle | clientNoZeroes, "", 10},
		{"with zeroes", clientFixedNewstyle, "", 134},
		{"unknown export", clientFixedNewstyle, "nope", 0},
	}
	ts := startServer(t, NewMem(make([]byte, 8192), 512, true))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl := dialRaw(t, ts.sock, tt.clientFlags)
			cl.option(optExportName, []byte(tt.export))
			if tt.wantLen == 0 {
				if !cl.closed() {
					t.Fatal("the server did not close the connection")
				}
				return
			}
			b := make([]byte, tt.wantLen)
			if _, err := io.ReadFull(cl.r, b); err != nil {
				t.Fatal(err)
			}
			if binary.BigEndian.Uint64(b) != 8192 {
				t.Errorf("size %d", binary.BigEndian.Uint64(b))
			}
			if f := binary.BigEndian.Uint16(b[8:]); f != tflagHasFlags|tflagReadOnly|tflagCanMultiConn {
				t.Errorf("flags %#x", f)
			}
			if !bytes.Equal(b[10:], make([]byte, tt.wantLen-10)) {
				t.Error("padding is not zeros")
			}
			// Transmission works.
			if errno, data := cl.do(cmdRead, 0, 512, 16, nil); errno != 0 || len(data) != 16 {
				t.Errorf("read: errno %d, %d bytes", errno, len(data))
			}
		})
	}
}

func TestAbort(t *testing.T) {
	ts := startServer(t, NewMem(make([]byte, 4096), 512, false))
	cl := dialRaw(t, ts.sock, clientFixedNewstyle)
	cl.option(optAbort, nil)
	if typ, _ := cl.optReply(optAbort); typ != repAck {
		t.Errorf("NBD_OPT_ABORT: reply %#x, want NBD_REP_ACK", typ)
	}
	if !cl.closed() {
		t.Error("the server did not close the connection")
	}
}

// TestHandshakeRefused checks inputs that end the handshake: the server
// closes that connection, logs why, and serves the next client.
func TestHandshakeRefused(t *testing.T) {
	tests := []struct {
		name        string
		clientFlags uint32
		send        []byte
		wantLog     string
	}{
		{"unknown client flags", 1 << 7, nil, "unknown client flags"},
		{"bad option magic", clientFixedNewstyle, append([]byte("IHAVEOPX"), make([]byte, 8)...), "option magic"},
		{"truncated option", clientFixedNewstyle, optBytes(optList, nil)[:12], "unexpected EOF"},
		{"huge option", clientFixedNewstyle, append(optBytes(optInfo, nil)[:12], 0x10, 0, 0, 0), "carries 268435456 bytes"},
	}
	ts := startServer(t, NewMem(make([]byte, 4096), 512, false))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cl := dialRaw(t, ts.sock, tt.clientFlags)
			if len(tt.send) > 0 {
				cl.write(tt.send)
			}
			cl.c.(interface{ CloseWrite() error }).CloseWrite()
			if !cl.closed() {
				t.Fatal("the server did not close the connection")
			}
			if !bytes.Contains([]byte(ts.log.String()), []byte(tt.wantLog)) {
				t.Errorf("log %q does not say %q", ts.log.String(), tt.wantLog)
			}
			if c := dial(t, ts.sock, ""); c.size != 4096 {
				t.Errorf("next client: size %d", c.size)
			}
		})
	}
}
