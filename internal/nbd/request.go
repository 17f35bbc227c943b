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

// maxSkip is the longest payload of a refused write that is read and
// dropped so that the connection can go on; a longer one closes it. The
// protocol asks servers to take any length below 2^25 bytes without
// seeing an attack in it.
const maxSkip = 1 << 25

// check validates r for ex (trim: the export takes NBD_CMD_TRIM). A
// non-nil error means the connection cannot go on (a write longer than
// the maximum block size whose payload is too long to skip); otherwise
// errno is the reply's error, 0 when the request may run. The errors are
// the protocol's: EINVAL for an unknown or unadvertised command, a flag
// not documented for the command, a READ or WRITE over the maximum block
// size, and a read or trim past the end; EPERM for a write, trim or
// write-zeroes on a read-only export; ENOSPC for a write or write-zeroes
// past the end.
func (r request) check(ex *export, trim bool) (errno uint32, err error) {
	readOnly := ex.flags&tflagReadOnly != 0
	if r.typ == cmdWrite && r.length > ex.maxBlock && r.length > maxSkip {
		return 0, fmt.Errorf("nbd: write of %d bytes (at most %d)", r.length, ex.maxBlock)
	}
	allowed := uint16(cmdFlagFUA)
	switch r.typ {
	case cmdRead, cmdWrite, cmdFlush:
	case cmdTrim:
		// Not advertised on a read-only export either, where the
		// protocol's answer is EPERM (below).
		if !trim && !readOnly {
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
	if (r.typ == cmdRead || r.typ == cmdWrite) && r.length > ex.maxBlock {
		return errInval, nil
	}
	if r.typ == cmdFlush {
		return 0, nil
	}
	if r.typ != cmdRead && readOnly {
		return errPerm, nil
	}
	if r.off > ex.size || uint64(r.length) > ex.size-r.off {
		if r.typ == cmdWrite || r.typ == cmdWriteZeroes {
			return errNoSpc, nil
		}
		return errInval, nil
	}
	return 0, nil
}
