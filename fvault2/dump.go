package fvault2

import (
	"bufio"
	"fmt"
	"io"
)

// Dump writes h as `cryptsetup fvault2Dump` prints it, device being the
// name it gives in the first line; with a volume key (Volume.VolumeKey)
// it adds the "Volume key:" line of --dump-volume-key. When the context
// has several passphrases, the first one's salt and iterations are
// shown, as cryptsetup shows.
func (h *Header) Dump(w io.Writer, device string, volumeKey []byte) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "Header information for FVAULT2 device %s.\n", device)
	fmt.Fprintf(b, "Physical volume UUID: \t%s\n", h.PVUUID)
	fmt.Fprintf(b, "Family UUID:          \t%s\n", h.FamilyUUID)
	fmt.Fprintf(b, "Logical volume offset:\t%d [bytes]\n", h.LVOffset)
	fmt.Fprintf(b, "Logical volume size:  \t%d [bytes]\n", h.LVSize)
	fmt.Fprintf(b, "Cipher:               \t%s\n", h.Cipher)
	fmt.Fprintf(b, "Cipher mode:          \t%s\n", h.CipherMode)
	if len(h.Passphrases) > 0 {
		p := h.Passphrases[0]
		fmt.Fprintf(b, "PBKDF2 iterations:    \t%d\n", p.Iterations)
		fmt.Fprintf(b, "PBKDF2 salt:          \t%s\n", hexBytes(p.Salt))
	}
	if volumeKey != nil {
		fmt.Fprintf(b, "Volume key:       \t%s\n", hexBytes(volumeKey))
	}
	return b.Flush()
}

// hexBytes formats p as cryptsetup does: "%02x " for each byte.
func hexBytes(p []byte) string {
	const digits = "0123456789abcdef"
	s := make([]byte, 0, 3*len(p))
	for _, c := range p {
		s = append(s, digits[c>>4], digits[c&15], ' ')
	}
	return string(s)
}
