package nbd

import (
	"encoding/binary"
	"fmt"
)

// request is one transmission-phase request header.
type request struct {
	flags  uint16
	typ    uint16
	handle uint64
	off    uint64
	length uint32
}

// parseRequest decodes a request header; only a wrong magic is an error
// (the connection cannot be resynchronised after it).
func parseRequest(b *[requestLen]byte) (request, error) {
	if m := binary.BigEndian.Uint32(b[0:4]); m != magicRequest {
		return request{}, fmt.Errorf("nbd: request magic %#x, want %#x", m, uint32(magicRequest))
	}
	return request{
		flags:  binary.BigEndian.Uint16(b[4:6]),
		typ:    binary.BigEndian.Uint16(b[6:8]),
		handle: binary.BigEndian.Uint64(b[8:16]),
		off:    binary.BigEndian.Uint64(b[16:24]),
		length: binary.BigEndian.Uint32(b[24:28]),
	}, nil
}

// payload is the number of bytes that follow the header on the wire.
func (r request) payload() uint32 {
	if r.typ == cmdWrite {
		return r.length
	}
	return 0
}

// check validates r for ex. A non-nil error means the connection cannot
// go on (an oversized READ or WRITE); otherwise errno is the reply's
// error, 0 when the request may run.
func (r request) check(ex *export, trim bool) (errno uint32, err error) {
	if (r.typ == cmdRead || r.typ == cmdWrite) && r.length > ex.maxBlock {
		return 0, fmt.Errorf("nbd: request type %d of %d bytes (at most %d)", r.typ, r.length, ex.maxBlock)
	}
	allowed := uint16(cmdFlagFUA)
	switch r.typ {
	case cmdRead, cmdWrite, cmdFlush:
	case cmdTrim:
		if !trim {
			return errInval, nil
		}
	case cmdWriteZeroes:
		allowed |= cmdFlagNoHole
	default:
		return errInval, nil
	}
	if r.flags&^allowed != 0 {
		return errInval, nil
	}
	if r.typ == cmdFlush {
		return 0, nil
	}
	if r.off > ex.size || uint64(r.length) > ex.size-r.off {
		return errInval, nil
	}
	if r.typ != cmdRead && ex.flags&tflagReadOnly != 0 {
		return errPerm, nil
	}
	return 0, nil
}
