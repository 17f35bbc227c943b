package nbd

// Wire constants of the NBD protocol (NetworkBlockDevice doc/proto.md).
// All integers on the wire are big-endian.
const (
	magicNBD      = 0x4e42444d41474943 // "NBDMAGIC"
	magicIHaveOpt = 0x49484156454f5054 // "IHAVEOPT"
	magicOptReply = 0x0003e889045565a9
	magicRequest  = 0x25609513
	magicReply    = 0x67446698 // simple reply
)

// Handshake flags (server) and client flags.
const (
	flagFixedNewstyle = 1 << 0
	flagNoZeroes      = 1 << 1

	clientFixedNewstyle = 1 << 0
	clientNoZeroes      = 1 << 1
	clientKnown         = clientFixedNewstyle | clientNoZeroes
)

// Options.
const (
	optExportName = 1
	optAbort      = 2
	optList       = 3
	optInfo       = 6
	optGo         = 7
)

// Option reply types.
const (
	repAck        = 1
	repServer     = 2
	repInfo       = 3
	repErr        = 1 << 31
	repErrUnsup   = repErr | 1
	repErrPolicy  = repErr | 2
	repErrInvalid = repErr | 3
	repErrUnknown = repErr | 6
)

// Information types of NBD_REP_INFO.
const (
	infoExport    = 0
	infoName      = 1
	infoBlockSize = 3
)

// Transmission flags.
const (
	tflagHasFlags     = 1 << 0
	tflagReadOnly     = 1 << 1
	tflagSendFlush    = 1 << 2
	tflagSendFUA      = 1 << 3
	tflagSendTrim     = 1 << 5
	tflagSendZeroes   = 1 << 6
	tflagCanMultiConn = 1 << 8
)

// Commands and command flags.
const (
	cmdRead        = 0
	cmdWrite       = 1
	cmdDisc        = 2
	cmdFlush       = 3
	cmdTrim        = 4
	cmdWriteZeroes = 6

	cmdFlagFUA    = 1 << 0
	cmdFlagNoHole = 1 << 1
)

// Error values of replies (errno numbers fixed by the protocol).
const (
	errPerm  = 1
	errIO    = 5
	errInval = 22
	errNoSpc = 28
)

// Sizes on the wire.
const (
	requestLen = 28 // magic, flags, type, handle, offset, length
	replyLen   = 16 // magic, error, handle
)

// Limits.
const (
	// maxOptionLen bounds the data of one option: the longest legal
	// option this server reads is NBD_OPT_GO with a 4096-byte name and
	// a few information requests.
	maxOptionLen = 16 << 10
	// maxNameLen is the protocol's limit on strings.
	maxNameLen = 4096
	// maxOptions bounds the options of one handshake.
	maxOptions = 1024
	// DefaultMaxRequest is the largest READ or WRITE length the server
	// accepts unless Server.MaxRequest says otherwise; it is advertised
	// as the maximum block size.
	DefaultMaxRequest = 32 << 20
)
