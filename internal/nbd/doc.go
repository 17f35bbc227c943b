// Package nbd is a Network Block Device server (the protocol of the
// NetworkBlockDevice project's doc/proto.md) for one export: the
// decrypted data of an image, served without root to nbdcopy, qemu,
// nbdfuse, the kernel's nbd client and the like.
//
// The server speaks the fixed newstyle handshake (NBD_FLAG_NO_ZEROES
// honoured) with NBD_OPT_GO, NBD_OPT_INFO, NBD_OPT_EXPORT_NAME,
// NBD_OPT_LIST and NBD_OPT_ABORT; any other option is answered
// NBD_REP_ERR_UNSUP. NBD_OPT_GO and NBD_OPT_INFO report the size, the
// transmission flags and the block sizes: minimum the backend's sector
// size, preferred at least 4096, maximum Server.MaxRequest.
//
// Transmission uses simple replies: NBD_CMD_READ, WRITE (with FUA),
// FLUSH, WRITE_ZEROES (the backend's Zeroer when it has one, otherwise
// zeros written through Backend.WriteAt, so an encrypted image gets
// encrypted zeros), TRIM (only for a backend that is a Trimmer) and DISC.
// Clients may pipeline: each connection runs up to 64 requests at once
// and answers each as it finishes, so replies may come out of order
// (matched by handle). A WRITE is answered once Backend.WriteAt returned;
// FLUSH, and FUA after a write, call Backend.Flush. A zero-length request
// succeeds without a backend call (the protocol leaves it unspecified but
// for not disconnecting). Structured replies are not offered: nbdcopy,
// qemu and nbdinfo fall back to simple replies, and with no holes to
// report (the backends have no block status) they would carry the same
// data.
//
// Memory: one budget, Server.MaxMemory, bounds the payloads all
// connections hold at once (requests read but not answered, replies not
// yet taken by their clients), and each connection may hold at most its
// share of it (MaxMemory/MaxConnections). A connection at its share stops
// reading its socket until replies go out; so a client that stops
// sending a write's payload or stops reading its replies pins its share
// and no more, and the others carry on with theirs. READs and WRITEs
// longer than half a share move in chunks: a long write's chunks go to
// the backend as they arrive (chunk boundaries at multiples of the chunk
// size, so no sector is split between two backend writes; a write cut
// short may be partly applied, as on a disk that loses power, and is
// never answered), a long read's chunks are read one after the other
// behind one reply header. The connections, those in the handshake
// included, are at most Server.MaxConnections: a client over the limit
// gets NBD_REP_ERR_POLICY for its options and is closed, counted in
// Server.ErrorLog. A handshake must end within Server.HandshakeTimeout.
// Accept errors that are about resources (EMFILE, ENFILE, ENOBUFS,
// ENOMEM) pause accepting, 5 ms doubling to 1 s, logged once until an
// accept works again; Serve does not return for them.
//
// NBD_FLAG_CAN_MULTI_CONN is advertised: several connections may share
// the export and a FLUSH on any of them covers the writes acknowledged on
// all, because every write goes to the one Backend and Flush makes all of
// them durable (the File backend writes to one shared *os.File and fsyncs
// it; a luks.Volume writes to the one device its caller fsyncs).
//
// Errors are the protocol's: EINVAL for an unknown or unadvertised
// command, a flag not documented for its command, a READ or WRITE over
// the maximum block size (a WRITE's payload, up to 32 MiB, is read
// and dropped; a longer one closes the connection) and a READ or TRIM
// past the end; EPERM for a WRITE, WRITE_ZEROES or TRIM on a read-only
// export; ENOSPC for a WRITE or WRITE_ZEROES past the end; a backend
// failure EIO (ENOSPC for a full disk, EPERM for a read-only one) and a
// line in Server.ErrorLog. A READ that fails after its first chunk went
// out can only be told by closing the connection. A malformed request
// (wrong magic) closes that connection, with the reason logged; the
// others go on. No input makes the server allocate more than its budget
// or panic.
//
// Server.Serve takes a sock.Listener: a Unix socket (the caller creates
// it 0600) or TCP. Server.Shutdown stops accepting, finishes the requests
// in flight, flushes the backend and returns; the caller then wipes keys
// and removes the socket.
package nbd
