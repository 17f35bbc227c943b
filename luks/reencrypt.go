package luks

import (
	"context"
	"errors"
	"fmt"
)

// ReencryptOptions says what InitReencrypt records; ResumeReencrypt reads
// everything it needs from the header and uses only Progress and
// HotzoneSize.
type ReencryptOptions struct {
	Mode       string // "reencrypt" (default: a new volume key), "encrypt", "decrypt"
	Resilience string // "checksum" (default), "journal", "none"; "datashift" for in-place encrypt
	Hash       string // checksum resilience hash; default "sha256"
	// HotzoneSize is the bytes of one hotzone; 0: the package default
	// (DefaultHotzoneSize).
	HotzoneSize uint64
	// The new data segment (reencrypt, encrypt); zero values: as the old
	// segment (reencrypt) or cryptsetup's LUKS2 defaults (encrypt:
	// aes-xts-plain64, 512-bit key, 4096-byte sectors when the data size
	// allows, else 512).
	Cipher     string
	KeySize    int // bytes
	SectorSize int
	VolumeKey  []byte     // the new volume key; nil: random
	KDF        KDFOptions // for the new keyslot(s)
	// Keyslot selects the keyslot whose passphrase is given; AnyKeyslot:
	// the one the passphrase opens, and (as cryptsetup with a key file)
	// refused unless exactly one keyslot is active.
	Keyslot int
	// ReduceDeviceSize: encrypt in place, the LUKS2 header in the first
	// ReduceDeviceSize bytes and the data shifted (cryptsetup
	// --reduce-device-size); 0 with a detached header.
	ReduceDeviceSize uint64
	// Create: for Mode "encrypt", the LUKS2 header parameters (UUID,
	// label, metadata and keyslots size) as CreateOptions has them.
	Create *CreateOptions
	// Progress is called after every hotzone; may be nil.
	Progress func(done, total uint64)
}

// DefaultHotzoneSize is the hotzone ResumeReencrypt uses when
// ReencryptOptions.HotzoneSize is 0 (for checksum and none resilience;
// journal resilience is bounded by its area).
const DefaultHotzoneSize = 32 << 20

// ErrReencryptMetadata (errors.Is) means the reencryption metadata is
// garbage, truncated, or fails its verification digest; nothing was
// written.
var ErrReencryptMetadata = errors.New("luks: reencryption metadata invalid")

// Reencryption describes a reencryption recorded in a header.
type Reencryption struct {
	Mode       string // "reencrypt", "encrypt", "decrypt"
	Direction  string // "forward", "backward"
	Resilience string // "checksum", "journal", "none", "datashift"
	Hash       string // checksum resilience
	Keyslot    int    // the reencrypt keyslot's id
	// Done and Total are the bytes of the data already processed and
	// to process in all.
	Done, Total uint64
}

// Reencryption reports whether a reencryption is in progress in h (the
// online-reencrypt requirement and a reencrypt keyslot) and what it is.
func (h *Header) Reencryption() (Reencryption, bool) {
	return h.reencryption()
}

// InitReencrypt records a reencryption in the header (cryptsetup
// reencrypt --init-only): data is the device with the data, hdr the
// device with the header (the same device unless the header is
// detached; for Mode "encrypt" with a detached header, hdr is where the
// new header is created). Returns the header as written.
func InitReencrypt(data, hdr ReadWriterAt, passphrase []byte, o ReencryptOptions) (*Header, error) {
	return initReencrypt(data, hdr, passphrase, o)
}

// ResumeReencrypt continues the reencryption recorded in hdr's header
// (made by this package or by cryptsetup, interrupted or not),
// recovering the interrupted hotzone first as the resilience mode says,
// and runs it to the end unless ctx is cancelled: then it stops after
// the hotzone in flight, with the progress recorded, and returns an
// error wrapping ctx.Err().
func ResumeReencrypt(ctx context.Context, data, hdr ReadWriterAt, passphrase []byte, o ReencryptOptions) error {
	return resumeReencrypt(ctx, data, hdr, passphrase, o)
}

// Reencrypt is InitReencrypt then ResumeReencrypt.
func Reencrypt(ctx context.Context, data, hdr ReadWriterAt, passphrase []byte, o ReencryptOptions) error {
	if _, err := InitReencrypt(data, hdr, passphrase, o); err != nil {
		return err
	}
	return ResumeReencrypt(ctx, data, hdr, passphrase, o)
}

var errReencryptTODO = fmt.Errorf("%w: reencryption not implemented yet", ErrUnsupported)
