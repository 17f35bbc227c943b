package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/fastxts/xts/luks"
)

const luksDumpUsage = `Usage: xts luks dump [--header HDR] IMAGE

Prints the LUKS header of IMAGE (or of the detached header HDR) as
cryptsetup luksDump does: version, UUID, label, data segments, keyslots
with their KDF and area, tokens and digests.
`

func runLUKSDump(e *env, args []string) error {
	fs := newFlagSet("luks dump", luksDumpUsage, e.stdout)
	var header string
	fs.StringVar(&header, "header", "", "detached header `FILE`")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("want IMAGE, got %d argument(s)", len(pos))
	}
	img, hdev, h, err := openHeader(pos[0], header, false)
	if err != nil {
		return err
	}
	defer closeBoth(img, hdev)
	name := pos[0]
	if header != "" {
		name = header
	}
	var b strings.Builder
	if h.Version == 1 {
		dumpLUKS1(&b, name, h)
	} else {
		dumpLUKS2(&b, h)
	}
	_, err = io.WriteString(e.stdout, b.String())
	return err
}

// hexLines writes b as hex bytes, 16 to a line, continuation lines
// indented by indent.
func hexLines(w io.Writer, b []byte, indent string) {
	for i := 0; i < len(b); i += 16 {
		if i > 0 {
			fmt.Fprint(w, indent)
		}
		for _, c := range b[i:min(i+16, len(b))] {
			fmt.Fprintf(w, "%02x ", c)
		}
		fmt.Fprintln(w)
	}
}

func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

func priorityName(p int) string {
	switch p {
	case luks.PriorityIgnore:
		return "ignored"
	case luks.PriorityPrefer:
		return "preferred"
	}
	return "normal"
}

func dumpLUKS2(w io.Writer, h *luks.Header) {
	fmt.Fprintf(w, "LUKS header information\n")
	fmt.Fprintf(w, "Version:       \t%d\n", h.Version)
	fmt.Fprintf(w, "Epoch:         \t%d\n", h.Seqid)
	fmt.Fprintf(w, "Metadata area: \t%d [bytes]\n", h.HeaderSize)
	fmt.Fprintf(w, "Keyslots area: \t%d [bytes]\n", h.Config.KeyslotsSize)
	fmt.Fprintf(w, "UUID:          \t%s\n", h.UUID)
	fmt.Fprintf(w, "Label:         \t%s\n", orNone(h.Label, "(no label)"))
	fmt.Fprintf(w, "Subsystem:     \t%s\n", orNone(h.Subsystem, "(no subsystem)"))
	fmt.Fprintf(w, "Flags:       \t%s\n", orNone(strings.Join(h.Config.Flags, " "), "(no flags)"))
	if len(h.Config.Requirements) > 0 {
		fmt.Fprintf(w, "Requirements:\t%s \n", strings.Join(h.Config.Requirements, " "))
	}
	fmt.Fprintf(w, "\nData segments:\n")
	for i, s := range h.Segments {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "  %d: %s\n", s.ID, s.Type)
		fmt.Fprintf(w, "\toffset: %d [bytes]\n", s.Offset)
		if s.Dynamic {
			fmt.Fprintf(w, "\tlength: (whole device)\n")
		} else {
			fmt.Fprintf(w, "\tlength: %d [bytes]\n", s.Size)
		}
		fmt.Fprintf(w, "\tcipher: %s\n", s.Encryption)
		fmt.Fprintf(w, "\tsector: %d [bytes]\n", s.SectorSize)
		if s.IVTweak != 0 {
			fmt.Fprintf(w, "\tIV tweak: %d\n", s.IVTweak)
		}
		if s.Integrity != "" {
			fmt.Fprintf(w, "\tintegrity: %s\n", s.Integrity)
		}
		if len(s.Flags) > 0 {
			fmt.Fprintf(w, "\tflags : %s\n", strings.Join(s.Flags, " "))
		}
	}
	fmt.Fprintf(w, "\nKeyslots:\n")
	for _, k := range h.Keyslots {
		unbound := ""
		if !h.Bound(k.ID) {
			unbound = " (unbound)"
		}
		fmt.Fprintf(w, "  %d: %s%s\n", k.ID, k.Type, unbound)
		if k.Type == "reencrypt" {
			dumpReencryptKeyslot(w, h, &k)
			continue
		}
		if k.Type != "luks2" {
			continue
		}
		fmt.Fprintf(w, "\tKey:        %d bits\n", 8*k.KeySize)
		fmt.Fprintf(w, "\tPriority:   %s\n", priorityName(k.Priority))
		fmt.Fprintf(w, "\tCipher:     %s\n", k.Area.Encryption)
		fmt.Fprintf(w, "\tCipher key: %d bits\n", 8*k.Area.KeySize)
		fmt.Fprintf(w, "\tPBKDF:      %s\n", k.KDF.Type)
		if k.KDF.Type == "pbkdf2" {
			fmt.Fprintf(w, "\tHash:       %s\n", k.KDF.Hash)
			fmt.Fprintf(w, "\tIterations: %d\n", k.KDF.Iterations)
		} else {
			fmt.Fprintf(w, "\tTime cost:  %d\n", k.KDF.Time)
			fmt.Fprintf(w, "\tMemory:     %d\n", k.KDF.Memory)
			fmt.Fprintf(w, "\tThreads:    %d\n", k.KDF.CPUs)
		}
		fmt.Fprintf(w, "\tSalt:       ")
		hexLines(w, k.KDF.Salt, "\t            ")
		fmt.Fprintf(w, "\tAF stripes: %d\n", k.AF.Stripes)
		fmt.Fprintf(w, "\tAF hash:    %s\n", k.AF.Hash)
		dumpArea(w, h, &k)
	}
	fmt.Fprintf(w, "Tokens:\n")
	for _, t := range h.Tokens {
		fmt.Fprintf(w, "  %d: %s\n", t.ID, t.Type)
		for _, k := range t.Keyslots {
			fmt.Fprintf(w, "\tKeyslot:    %d\n", k)
		}
	}
	fmt.Fprintf(w, "Digests:\n")
	for _, d := range h.Digests {
		fmt.Fprintf(w, "  %d: %s\n", d.ID, d.Type)
		fmt.Fprintf(w, "\tHash:       %s\n", d.Hash)
		fmt.Fprintf(w, "\tIterations: %d\n", d.Iterations)
		fmt.Fprintf(w, "\tSalt:       ")
		hexLines(w, d.Salt, "\t            ")
		fmt.Fprintf(w, "\tDigest:     ")
		hexLines(w, d.Value, "\t            ")
	}
}

// dumpArea prints a keyslot's area and its digest.
func dumpArea(w io.Writer, h *luks.Header, k *luks.Keyslot) {
	fmt.Fprintf(w, "\tArea offset:%d [bytes]\n", k.Area.Offset)
	fmt.Fprintf(w, "\tArea length:%d [bytes]\n", k.Area.Size)
	for _, d := range h.Digests {
		for _, id := range d.Keyslots {
			if id == k.ID {
				fmt.Fprintf(w, "\tDigest ID:  %d\n", d.ID)
			}
		}
	}
}

// dumpReencryptKeyslot prints the record of a reencryption in progress.
func dumpReencryptKeyslot(w io.Writer, h *luks.Header, k *luks.Keyslot) {
	fmt.Fprintf(w, "\tKey:        %d bits\n", 8*k.KeySize)
	fmt.Fprintf(w, "\tPriority:   %s\n", priorityName(k.Priority))
	fmt.Fprintf(w, "\tMode:       %s\n", k.Mode)
	fmt.Fprintf(w, "\tDirection:  %s\n", k.Direction)
	fmt.Fprintf(w, "\tResilience: %s\n", k.Area.Type)
	switch k.Area.Type {
	case "checksum":
		fmt.Fprintf(w, "\tHash:       %s\n", k.Area.Hash)
		fmt.Fprintf(w, "\tHash data:  %d [bytes]\n", k.Area.SectorSize)
	case "datashift":
		fmt.Fprintf(w, "\tShift size: %d [bytes]\n", k.Area.ShiftSize)
	}
	dumpArea(w, h, k)
}

func dumpLUKS1(w io.Writer, name string, h *luks.Header) {
	d := h.Digests[0]
	fmt.Fprintf(w, "LUKS header information for %s\n\n", name)
	fmt.Fprintf(w, "Version:       \t%d\n", h.Version)
	fmt.Fprintf(w, "Cipher name:   \t%s\n", h.CipherName)
	fmt.Fprintf(w, "Cipher mode:   \t%s\n", h.CipherMode)
	fmt.Fprintf(w, "Hash spec:     \t%s\n", h.HashSpec)
	fmt.Fprintf(w, "Payload offset:\t%d\n", h.PayloadOffset)
	fmt.Fprintf(w, "MK bits:       \t%d\n", 8*h.Keyslots[0].KeySize)
	fmt.Fprintf(w, "MK digest:     \t")
	for _, c := range d.Value {
		fmt.Fprintf(w, "%02x ", c)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "MK salt:       \t")
	hexLines(w, d.Salt, "               \t")
	fmt.Fprintf(w, "MK iterations: \t%d\n", d.Iterations)
	fmt.Fprintf(w, "UUID:          \t%s\n\n", h.UUID)
	for _, k := range h.Keyslots {
		if !k.Active {
			fmt.Fprintf(w, "Key Slot %d: DISABLED\n", k.ID)
			continue
		}
		fmt.Fprintf(w, "Key Slot %d: ENABLED\n", k.ID)
		fmt.Fprintf(w, "\tIterations:         \t%d\n", k.KDF.Iterations)
		fmt.Fprintf(w, "\tSalt:               \t")
		hexLines(w, k.KDF.Salt, "\t                      \t")
		fmt.Fprintf(w, "\tKey material offset:\t%d\n", k.Area.Offset/512)
		fmt.Fprintf(w, "\tAF stripes:            \t%d\n", k.AF.Stripes)
	}
}
