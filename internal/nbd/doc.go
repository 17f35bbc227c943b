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
// Clients may pipeline: each connection runs up to 64 requests at once,
// bounded by Server.MaxInFlight bytes, and answers each as it finishes,
// so replies may come out of order (matched by handle). A WRITE is
// answered once Backend.WriteAt returned; FLUSH, and FUA after a write,
// call Backend.Flush. A zero-length request succeeds without a backend
// call. Structured replies are not offered: nbdcopy, qemu and nbdinfo
// fall back to simple replies, and with no holes to report (the backends
// have no block status) they would carry the same data.
//
// NBD_FLAG_CAN_MULTI_CONN is advertised: several connections may share
// the export and a FLUSH on any of them covers the writes acknowledged on
// all, because every write goes to the one Backend and Flush makes all of
// them durable (the File backend writes to one shared *os.File and fsyncs
// it; a luks.Volume writes to the one device its caller fsyncs).
//
// Errors: a request out of the export's range gets NBD_EINVAL, a write on
// a read-only export NBD_EPERM, an unknown command or flag NBD_EINVAL, a
// backend failure NBD_EIO (NBD_ENOSPC for a full disk) and a line in
// Server.ErrorLog. A malformed request (wrong magic) or a READ or WRITE
// longer than the maximum block size closes that connection, with the
// reason logged; the others go on. No input makes the server allocate
// more than MaxInFlight bytes per connection or panic.
//
// Server.Serve takes any net.Listener: a Unix socket (the caller creates
// it 0600) or TCP. Server.Shutdown stops accepting, finishes the requests
// in flight, flushes the backend and returns; the caller then wipes keys
// and removes the socket.
package nbd
