package luks

import (
	"errors"
	"fmt"
	"io"
	"sort"
)

// Limits on what a header may ask for; see the package documentation.
const (
	MaxKeySize      = 256     // bytes, for volume and keyslot keys
	MaxStripes      = 65536   // anti-forensic stripes of one keyslot
	MaxArgon2Memory = 4 << 20 // KiB (4 GiB)
	MaxArgon2Time   = 1 << 20
	MaxArgon2CPUs   = 16
	MaxIterations   = 1<<31 - 1 // pbkdf2 (the largest int on 32-bit platforms)
	maxObjects      = 32        // keyslots, segments, digests, tokens
	maxObjectID     = 1<<31 - 1
	maxHeaderSize   = 4 << 20 // LUKS2 binary header plus JSON area
)

// Errors callers may test for with errors.Is.
var (
	// ErrNotLUKS means the data starts with neither LUKS magic.
	ErrNotLUKS = errors.New("luks: not a LUKS header (no LUKS magic)")
	// ErrCorrupt means a header was found but no copy of it is valid.
	ErrCorrupt = errors.New("luks: header corrupt")
	// ErrUnsupported means the header uses a feature this package refuses;
	// the message names the feature.
	ErrUnsupported = errors.New("luks: unsupported")
	// ErrNoKey means no keyslot opens with the passphrase (cryptsetup's
	// "No key available with this passphrase.").
	ErrNoKey = errors.New("luks: no key available with this passphrase")
	// ErrWrongKey means a given volume key does not match the digest.
	ErrWrongKey = errors.New("luks: volume key does not match the header's digest")
	// ErrDataOverlapsHeader means a volume was to be opened for writing
	// on the device that holds its header, and its data segment starts
	// inside that header or its keyslots (as a detached header's data,
	// at offset 0, does): a write would destroy them. Open it read-only,
	// or give the header in Options.Header.
	ErrDataOverlapsHeader = errors.New("luks: the data segment overlaps the header and keyslots on the same device")
)

// Header is a parsed LUKS1 or LUKS2 header: everything luksDump shows.
// LUKS1 headers are described in the same terms as LUKS2 ones (one
// segment, one pbkdf2 digest, keyslots with a raw area), as luksDump does.
type Header struct {
	Version    int    // 1 or 2
	UUID       string // as stored, e.g. "6b3f...-..."
	Label      string // LUKS2 only
	Subsystem  string // LUKS2 only
	Seqid      uint64 // LUKS2: sequence id of the copy in use
	HeaderSize uint64 // LUKS2: binary header plus JSON area of one copy, in bytes (hdr_size)
	// Checksum is the LUKS2 checksum algorithm ("sha256").
	Checksum string
	// Copies reports, for LUKS2, which binary header copies were valid.
	PrimaryValid, SecondaryValid bool
	// Keyslots in ascending ID order; for LUKS1, the eight slots whether
	// enabled or not (Keyslot.Active).
	Keyslots []Keyslot
	Tokens   []Token
	Segments []Segment
	Digests  []Digest
	Config   Config
	// LUKS1 only: the payload offset in 512-byte sectors, the cipher name
	// and mode and hash as stored.
	PayloadOffset          uint64
	CipherName, CipherMode string
	HashSpec               string

	// JSON is the LUKS2 JSON metadata as read (up to its NUL), for callers
	// that want fields this type does not model.
	JSON []byte

	primaryOK bool   // LUKS2 header as read came from the primary copy
	onDisk    []byte // LUKS1: the phdr as read, for commit's check that it is unchanged
	// LUKS2, in a header commit returned: the primary and the secondary
	// copy it wrote, for the next commit's quick check (checkUnchanged).
	wrote [2][]byte
}

// Keyslot is one key slot: a KDF turns a passphrase into the key of its
// area, which holds the anti-forensically split volume key.
type Keyslot struct {
	ID       int
	Active   bool   // LUKS1: enabled; LUKS2: always true (present)
	Type     string // "luks2" (LUKS2), "luks1" (LUKS1)
	KeySize  int    // bytes of the volume key it holds
	Priority int    // PriorityIgnore, PriorityNormal, PriorityPrefer
	// Mode and Direction of a "reencrypt" keyslot (the record of a
	// reencryption in progress): "reencrypt", "encrypt" or "decrypt";
	// "forward" or "backward".
	Mode, Direction string
	AF              AF
	Area            Area
	KDF             KDF
}

// Keyslot priorities, as LUKS2 stores them.
const (
	PriorityIgnore = 0
	PriorityNormal = 1
	PriorityPrefer = 2
)

// AF is the anti-forensic splitter of a keyslot.
type AF struct {
	Type    string // "luks1"
	Stripes int
	Hash    string
}

// Area is where a keyslot's split key is stored and how it is encrypted.
type Area struct {
	Type       string // "raw"; for reencrypt keyslots the resilience: "checksum", "journal", "datashift", "none"
	Offset     uint64 // bytes from the start of the header device
	Size       uint64 // bytes
	Encryption string // e.g. "aes-xts-plain64"
	KeySize    int    // bytes
	// Checksum resilience: the hash and the bytes each checksum covers;
	// datashift resilience: the shift in bytes.
	Hash       string
	SectorSize int
	ShiftSize  uint64
}

// KDF is a keyslot's key derivation function and its parameters.
type KDF struct {
	Type       string // "pbkdf2", "argon2i", "argon2id"
	Hash       string // pbkdf2 only
	Iterations int    // pbkdf2 only
	Time       int    // argon2: iterations
	Memory     int    // argon2: KiB
	CPUs       int    // argon2: parallel lanes
	Salt       []byte
}

// Segment is a data segment: where the encrypted data lies and how.
type Segment struct {
	ID         int
	Type       string // "crypt"
	Offset     uint64 // bytes from the start of the data device
	Size       uint64 // bytes; 0 with Dynamic
	Dynamic    bool   // size "dynamic": to the end of the device
	IVTweak    uint64 // IV of the segment's first sector, in 512-byte units
	Encryption string // e.g. "aes-xts-plain64"
	SectorSize int
	Integrity  string // integrity type when set (refused)
	Flags      []string
}

// Digest checks a volume key: PBKDF2 of the key with Salt and
// Iterations gives Value.
type Digest struct {
	ID         int
	Type       string // "pbkdf2"
	Keyslots   []int
	Segments   []int
	Hash       string
	Iterations int
	Salt       []byte
	Value      []byte
}

// Token is a LUKS2 token; tokens are listed but never used.
type Token struct {
	ID       int
	Type     string
	Keyslots []int
}

// Config is the LUKS2 config object.
type Config struct {
	JSONSize     uint64
	KeyslotsSize uint64
	Flags        []string
	Requirements []string // mandatory requirement flags
}

// ReadHeader reads and checks the LUKS header at the start of r: LUKS1,
// or LUKS2 from the valid binary copy with the highest sequence id (the
// secondary copy when the primary is damaged or wiped, as cryptsetup does).
func ReadHeader(r io.ReaderAt) (*Header, error) {
	var magic [8]byte
	if _, err := r.ReadAt(magic[:], 0); err != nil {
		return nil, fmt.Errorf("luks: reading header: %w", err)
	}
	if string(magic[:6]) == magic1 && magic[6] == 0 && magic[7] == 1 {
		return readLUKS1(r)
	}
	h, err := readLUKS2(r)
	if err == nil {
		return h, nil
	}
	if string(magic[:6]) == magic1 && !(magic[6] == 0 && magic[7] == 2) {
		return nil, fmt.Errorf("%w: LUKS version %d", ErrUnsupported, int(magic[6])<<8|int(magic[7]))
	}
	if errors.Is(err, errNoCopy) && string(magic[:6]) != magic1 {
		return nil, ErrNotLUKS
	}
	return nil, err
}

const (
	magic1 = "LUKS\xba\xbe"
	magic2 = "SKUL\xba\xbe"
)

// Keyslot returns the keyslot with the given id.
func (h *Header) Keyslot(id int) (*Keyslot, bool) {
	for i := range h.Keyslots {
		if h.Keyslots[i].ID == id {
			return &h.Keyslots[i], true
		}
	}
	return nil, false
}

// DataSegment returns the segment that holds the data (segment 0 for
// LUKS1; for LUKS2 the crypt segment with the lowest id).
func (h *Header) DataSegment() (*Segment, error) {
	if len(h.Segments) == 0 {
		return nil, fmt.Errorf("%w: header has no data segment", ErrCorrupt)
	}
	if len(h.Segments) > 1 {
		return nil, fmt.Errorf("%w: %d data segments (a reencryption in progress)", ErrUnsupported, len(h.Segments))
	}
	return &h.Segments[0], nil
}

// Bound reports whether keyslot id holds the key of a segment in use: its
// digest covers a segment that is not a reencryption backup
// (luksDump marks the others "unbound").
func (h *Header) Bound(id int) bool {
	d, ok := h.digestFor(id)
	if !ok {
		return false
	}
	for _, sid := range d.Segments {
		for _, s := range h.Segments {
			if s.ID != sid {
				continue
			}
			backup := false
			for _, f := range s.Flags {
				if len(f) >= 7 && f[:7] == "backup-" {
					backup = true
				}
			}
			if !backup {
				return true
			}
		}
	}
	return false
}

// digestFor returns the digest that covers keyslot id.
func (h *Header) digestFor(id int) (*Digest, bool) {
	for i := range h.Digests {
		for _, k := range h.Digests[i].Keyslots {
			if k == id {
				return &h.Digests[i], true
			}
		}
	}
	return nil, false
}

func sortByID[T any](s []T, id func(*T) int) {
	sort.Slice(s, func(i, j int) bool { return id(&s[i]) < id(&s[j]) })
}
