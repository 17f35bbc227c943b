package bitlocker

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"io"
)

// Dump writes the metadata as `cryptsetup bitlkDump` prints it, from its
// second line on ("Version:" ... the metadata segments). The creation time
// is printed in the local time zone, as cryptsetup does.
func (m *Metadata) Dump(w io.Writer) error {
	b := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(b, format, a...) }
	p("Version:      \t%d\n", m.Version)
	p("GUID:         \t%v\n", m.GUID)
	p("Sector size:  \t%d [bytes]\n", m.SectorSize)
	p("Volume size:  \t%d [bytes]\n", m.VolumeSize)
	p("Created:      \t%s\n", m.Created.Local().Format("Mon Jan _2 15:04:05 2006"))
	p("Description:  \t%s\n", m.Description)
	p("Cipher name:  \taes\n")
	p("Cipher mode:  \t%s\n", m.Method.CipherMode())
	p("Cipher key:   \t%d bits\n", 8*m.Method.KeySize())
	p("\nKeyslots:\n")
	i := 0
	for _, k := range m.Protectors {
		p(" %d: VMK\n", i)
		if k.Description != "" {
			p("\tName:       \t%s\n", k.Description)
		}
		p("\tGUID:       \t%v\n", k.GUID)
		p("\tProtection: \t%v\n", k.Type)
		salt := k.Salt
		if salt == nil {
			salt = make([]byte, 16)
		}
		p("\tSalt:       \t%s\n", hex.EncodeToString(salt))
		p("\tKey data size:\t%d [bytes]\n", k.KeyDataSize)
		i++
	}
	if m.fvek.Data != nil {
		p(" %d: FVEK\n", i)
		p("\tKey data size:\t%d [bytes]\n", m.FVEKSize)
	}
	p("\nMetadata segments:\n")
	for j, o := range m.MetadataOffsets {
		p(" %d: FVE metadata area\n", j)
		p("\tOffset: \t%d [bytes]\n", o)
		p("\tSize:   \t%d [bytes]\n", m.MetadataSize)
	}
	p(" 3: Volume header\n")
	p("\tOffset: \t%d [bytes]\n", m.HeaderOffset)
	p("\tSize:   \t%d [bytes]\n", m.HeaderSize)
	p("\tCipher: \taes-%s\n", m.Method.CipherMode())
	return b.Flush()
}
