package nbd

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// export is what the handshake tells a client about the one export.
type export struct {
	name      string
	size      uint64
	flags     uint16 // transmission flags
	minBlock  uint32
	prefBlock uint32
	maxBlock  uint32
}

// errAbort ends a handshake the client aborted (NBD_OPT_ABORT, or a
// close while haggling): not a fault worth logging.
var errAbort = errors.New("nbd: client aborted the handshake")

// optHeader is the fixed part of a client option.
type optHeader struct {
	code   uint32
	length uint32
}

// parseOptHeader decodes the 16 bytes that start an option.
func parseOptHeader(b *[16]byte) (optHeader, error) {
	if m := binary.BigEndian.Uint64(b[0:8]); m != magicIHaveOpt {
		return optHeader{}, fmt.Errorf("nbd: option magic %#x, want %#x", m, uint64(magicIHaveOpt))
	}
	h := optHeader{code: binary.BigEndian.Uint32(b[8:12]), length: binary.BigEndian.Uint32(b[12:16])}
	if h.length > maxOptionLen {
		return optHeader{}, fmt.Errorf("nbd: option %d carries %d bytes (at most %d)", h.code, h.length, maxOptionLen)
	}
	return h, nil
}

// infoRequest is the data of NBD_OPT_INFO and NBD_OPT_GO.
type infoRequest struct {
	name  string
	infos []uint16
}

// parseInfoRequest decodes the data of NBD_OPT_INFO and NBD_OPT_GO: a
// 32-bit name length, the name, a 16-bit count and that many 16-bit
// information types, and nothing after them.
func parseInfoRequest(data []byte) (infoRequest, error) {
	if len(data) < 6 {
		return infoRequest{}, fmt.Errorf("%d bytes, at least 6 needed", len(data))
	}
	nl := binary.BigEndian.Uint32(data)
	if nl > maxNameLen || uint64(nl) > uint64(len(data)-6) {
		return infoRequest{}, fmt.Errorf("export name of %d bytes in %d bytes of data", nl, len(data))
	}
	name := string(data[4 : 4+nl])
	rest := data[4+nl:]
	n := int(binary.BigEndian.Uint16(rest))
	rest = rest[2:]
	if len(rest) != 2*n {
		return infoRequest{}, fmt.Errorf("%d information requests in %d bytes", n, len(rest))
	}
	infos := make([]uint16, n)
	for i := range infos {
		infos[i] = binary.BigEndian.Uint16(rest[2*i:])
	}
	return infoRequest{name: name, infos: infos}, nil
}

// handshake runs the fixed newstyle negotiation on r and w until the
// client picks the export (true) or the handshake ends (an error;
// errAbort when the client gave up cleanly).
func handshake(r io.Reader, w *bufio.Writer, ex *export) error {
	var b [18]byte
	binary.BigEndian.PutUint64(b[0:], magicNBD)
	binary.BigEndian.PutUint64(b[8:], magicIHaveOpt)
	binary.BigEndian.PutUint16(b[16:], flagFixedNewstyle|flagNoZeroes)
	w.Write(b[:18])
	if err := w.Flush(); err != nil {
		return err
	}
	if _, err := io.ReadFull(r, b[:4]); err != nil {
		if errors.Is(err, io.EOF) {
			return errAbort // a client that only looked at the greeting
		}
		return fmt.Errorf("nbd: reading client flags: %w", err)
	}
	cflags := binary.BigEndian.Uint32(b[:4])
	if cflags&^clientKnown != 0 {
		return fmt.Errorf("nbd: unknown client flags %#x", cflags)
	}
	noZeroes := cflags&clientNoZeroes != 0
	data := make([]byte, 0, 256)
	for range maxOptions {
		var hb [16]byte
		if _, err := io.ReadFull(r, hb[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return errAbort
			}
			return fmt.Errorf("nbd: reading an option: %w", err)
		}
		h, err := parseOptHeader(&hb)
		if err != nil {
			return err
		}
		if cap(data) < int(h.length) {
			data = make([]byte, h.length)
		}
		data = data[:h.length]
		if _, err := io.ReadFull(r, data); err != nil {
			return fmt.Errorf("nbd: reading option %d: %w", h.code, err)
		}
		done, err := option(w, ex, h.code, data, noZeroes)
		if err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
		if done {
			return nil
		}
	}
	return fmt.Errorf("nbd: more than %d options", maxOptions)
}

// option answers one option; done reports that transmission starts.
func option(w *bufio.Writer, ex *export, code uint32, data []byte, noZeroes bool) (done bool, err error) {
	switch code {
	case optExportName:
		if string(data) != ex.name {
			return false, fmt.Errorf("nbd: NBD_OPT_EXPORT_NAME asks for unknown export %q", data)
		}
		var b [10 + 124]byte
		binary.BigEndian.PutUint64(b[0:], ex.size)
		binary.BigEndian.PutUint16(b[8:], ex.flags)
		if noZeroes {
			w.Write(b[:10])
		} else {
			w.Write(b[:])
		}
		return true, nil
	case optAbort:
		optReply(w, code, repAck, nil)
		w.Flush()
		return false, errAbort
	case optList:
		if len(data) != 0 {
			optError(w, code, repErrInvalid, "NBD_OPT_LIST takes no data")
			return false, nil
		}
		d := make([]byte, 4+len(ex.name))
		binary.BigEndian.PutUint32(d, uint32(len(ex.name)))
		copy(d[4:], ex.name)
		optReply(w, code, repServer, d)
		optReply(w, code, repAck, nil)
		return false, nil
	case optInfo, optGo:
		req, err := parseInfoRequest(data)
		if err != nil {
			optError(w, code, repErrInvalid, "malformed request: "+err.Error())
			return false, nil
		}
		if req.name != ex.name {
			optError(w, code, repErrUnknown, "no such export")
			return false, nil
		}
		var d [18]byte
		binary.BigEndian.PutUint16(d[0:], infoExport)
		binary.BigEndian.PutUint64(d[2:], ex.size)
		binary.BigEndian.PutUint16(d[10:], ex.flags)
		optReply(w, code, repInfo, d[:12])
		// Block sizes go to every client: the protocol lets a server
		// send them unasked, and this one accepts unaligned requests
		// anyway.
		binary.BigEndian.PutUint16(d[0:], infoBlockSize)
		binary.BigEndian.PutUint32(d[2:], ex.minBlock)
		binary.BigEndian.PutUint32(d[6:], ex.prefBlock)
		binary.BigEndian.PutUint32(d[10:], ex.maxBlock)
		optReply(w, code, repInfo, d[:14])
		for _, t := range req.infos {
			if t == infoName {
				nd := make([]byte, 2+len(ex.name))
				binary.BigEndian.PutUint16(nd, infoName)
				copy(nd[2:], ex.name)
				optReply(w, code, repInfo, nd)
				break
			}
		}
		optReply(w, code, repAck, nil)
		return code == optGo, nil
	default:
		optError(w, code, repErrUnsup, fmt.Sprintf("option %d is not supported", code))
		return false, nil
	}
}

// optReply writes one option reply; errors surface at the next Flush.
func optReply(w *bufio.Writer, code, typ uint32, data []byte) {
	var b [20]byte
	binary.BigEndian.PutUint64(b[0:], magicOptReply)
	binary.BigEndian.PutUint32(b[8:], code)
	binary.BigEndian.PutUint32(b[12:], typ)
	binary.BigEndian.PutUint32(b[16:], uint32(len(data)))
	w.Write(b[:])
	w.Write(data)
}

// optError writes an error reply with a message for people.
func optError(w *bufio.Writer, code, typ uint32, msg string) {
	optReply(w, code, typ, []byte(msg))
}

// maxRefusedOptions bounds the options answered to a refused client.
const maxRefusedOptions = 8

// refuseHandshake turns a client away politely: the greeting, then
// NBD_REP_ERR_POLICY with msg for each of its options (NBD_REP_ACK for
// NBD_OPT_ABORT), as the protocol asks of a server that will not serve
// a client. It returns when the client aborts, goes away, asks for
// NBD_OPT_EXPORT_NAME (which cannot be refused but by closing), sends
// something malformed or has had maxRefusedOptions answers; the caller
// then closes the connection.
func refuseHandshake(r io.Reader, w *bufio.Writer, msg string) {
	var b [18]byte
	binary.BigEndian.PutUint64(b[0:], magicNBD)
	binary.BigEndian.PutUint64(b[8:], magicIHaveOpt)
	binary.BigEndian.PutUint16(b[16:], flagFixedNewstyle|flagNoZeroes)
	w.Write(b[:18])
	if w.Flush() != nil {
		return
	}
	if _, err := io.ReadFull(r, b[:4]); err != nil || binary.BigEndian.Uint32(b[:4])&^clientKnown != 0 {
		return
	}
	for range maxRefusedOptions {
		var hb [16]byte
		if _, err := io.ReadFull(r, hb[:]); err != nil {
			return
		}
		h, err := parseOptHeader(&hb)
		if err != nil || h.code == optExportName {
			return
		}
		if _, err := io.CopyN(io.Discard, r, int64(h.length)); err != nil {
			return
		}
		if h.code == optAbort {
			optReply(w, h.code, repAck, nil)
			w.Flush()
			return
		}
		optError(w, h.code, repErrPolicy, msg)
		if w.Flush() != nil {
			return
		}
	}
}
