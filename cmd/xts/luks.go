package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/fastxts/xts/luks"
)

const luksUsage = `Usage: xts luks COMMAND [flags] ARGS

LUKS1 and LUKS2 images, opened, read and made in user space (no root, no
device-mapper), with cryptsetup's flags:

  xts luks dump     [--header HDR] IMAGE                 what cryptsetup luksDump prints
  xts luks decrypt  [-d F] [-S N] [--header HDR] [--volume-key-file VK] IMAGE OUT
                                                         OUT gets the whole decrypted data segment
  xts luks encrypt  [-d F] [--type luks2|luks1] [-c CIPHER] [-s BITS] [PBKDF flags] RAW OUT
                                                         a new image whose data segment is RAW
  xts luks add-key  [-d F] [-S N] [PBKDF flags] IMAGE [NEW-KEY-FILE]
  xts luks serve    [-d F] [-S N] (--socket PATH | --listen HOST:PORT) [--readonly] [--run CMD] IMAGE
                                                         serves the decrypted data over NBD

The passphrase comes from --key-file (all of the file, as cryptsetup reads
it; - for standard input), or is asked for on the terminal (one line of
standard input when that is not a terminal). A wrong passphrase exits 2
with "No key available with this passphrase." and writes nothing.
Run 'xts luks COMMAND --help' for a command's flags.

` + exitHelp

// runLUKS runs one luks subcommand and returns its name for messages
// ("luks decrypt") and its error.
func runLUKS(e *env, args []string) (string, error) {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, luksUsage)
		return "luks", usagef("want a subcommand: dump, decrypt, encrypt or add-key")
	}
	sub, rest := args[0], args[1:]
	name := "luks " + sub
	switch sub {
	case "dump":
		return name, runLUKSDump(e, rest)
	case "decrypt":
		return name, runLUKSDecrypt(e, rest)
	case "encrypt":
		return name, runLUKSEncrypt(e, rest)
	case "add-key":
		return name, runLUKSAddKey(e, rest)
	case "serve":
		return name, runLUKSServe(e, rest)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(e.stdout, luksUsage)
		return "luks", errHelpShown
	}
	return "luks", usagef("unknown subcommand %q: want dump, decrypt, encrypt or add-key", sub)
}

// luksError gives errors of package luks cryptsetup's exit statuses and
// words.
func luksError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, luks.ErrNoKey):
		return exitErrorf(exitPermission, "No key available with this passphrase.")
	case errors.Is(err, luks.ErrWrongKey):
		return exitErrorf(exitPermission, "Volume key does not match the volume.")
	case errors.Is(err, luks.ErrNotLUKS), errors.Is(err, luks.ErrCorrupt):
		return exitErr(exitUsage, err)
	}
	return err
}

// openHeader opens IMAGE (for reading, or reading and writing) and the
// device that holds its header (--header, else IMAGE), and reads the
// header.
func openHeader(image, header string, write bool) (img, hdev *os.File, h *luks.Header, err error) {
	flag := os.O_RDONLY
	if write {
		flag = os.O_RDWR
	}
	img, err = os.OpenFile(image, flag, 0)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("image: %w", err)
	}
	hdev = img
	if header != "" {
		if hdev, err = os.OpenFile(header, flag, 0); err != nil {
			img.Close()
			return nil, nil, nil, fmt.Errorf("header: %w", err)
		}
	}
	name := image
	if header != "" {
		name = header
	}
	h, err = luks.ReadHeader(hdev)
	if err != nil {
		closeBoth(img, hdev)
		if errors.Is(err, luks.ErrNotLUKS) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, nil, nil, exitErrorf(exitUsage, "Device %s is not a valid LUKS device.", name)
		}
		return nil, nil, nil, luksError(fmt.Errorf("%s: %w", name, err))
	}
	return img, hdev, h, nil
}

func closeBoth(img, hdev *os.File) {
	if hdev != nil && hdev != img {
		hdev.Close()
	}
	if img != nil {
		img.Close()
	}
}

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

// interruptible runs f (a key derivation that cannot stop half-way) and
// returns its error, or, when a signal comes first, the interruption at
// once: nothing has been written yet, so there is nothing to undo, and
// the process exits with f still running.
func interruptible(g *signalGuard, f func() error) error {
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-g.ctx.Done():
		if s := g.signal(); s != 0 {
			return newInterrupted(s, nil)
		}
		return <-done
	}
}
