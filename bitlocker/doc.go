// Package bitlocker opens BitLocker volumes (Windows 7 and later, and
// BitLocker To Go) in pure Go: it reads their metadata, unlocks them with a
// password, a recovery password, a startup key (.BEK) file, the clear key
// of a suspended volume or the volume key itself, and reads and writes the
// decrypted volume. No root, kernel module or FUSE is involved: a Volume is
// an io.ReaderAt and io.WriterAt over any io.ReaderAt.
//
// # Format
//
// Written from the public descriptions of the format (the libbde project's
// "BitLocker Drive Encryption (BDE) format" document, Niels Ferguson's
// "AES-CBC + Elephant diffuser" paper, NIST SP 800-38C for AES-CCM) and
// checked against cryptsetup's test images and tools:
//
//   - The volume header (sector 0) has the signature "-FVE-FS-", or
//     "MSWIN4.1" for To Go, and the offsets of three copies of the FVE
//     metadata. Its BitLocker identifier GUID tells a normal volume from an
//     encrypt-on-write one.
//   - Each metadata copy is a 64-byte block header, a 48-byte metadata
//     header (volume GUID, encryption method, creation time) and a list of
//     entries (size, type, value type, version, data), followed by a
//     validation structure: the CRC-32 of the block, and the block's
//     SHA-256 encrypted under the volume master key. ReadMetadata uses the
//     first copy whose CRC-32 matches; unlocking checks the SHA-256.
//   - Each protector is a volume master key (VMK) entry. Its key is
//     derived from the secret: for a password, SHA-256 of SHA-256 of the
//     UTF-16LE password; for a recovery password, SHA-256 of the 16-byte key
//     that its 8 groups of 6 digits (each a multiple of 11 below 720896)
//     give; each then stretched by 2^20 SHA-256 calls over (last hash,
//     initial hash, salt, counter). A startup key file holds the key
//     itself, and a clear-key protector stores it in the open. The VMK, and
//     with it the full volume encryption key (FVEK), are AES-CCM encrypted
//     (12-byte nonce, 16-byte tag).
//   - Sectors are encrypted with AES-XTS (the tweak is the sector number),
//     or AES-CBC whose IV is the sector's byte offset encrypted with the
//     FVEK (cryptsetup's "eboiv"), optionally with the Elephant diffuser: a
//     sector key from the tweak key XORed in, diffusers A and B, then CBC.
//   - The first sectors of the volume (8 KiB; more for To Go) are kept
//     encrypted elsewhere (the "volume header" the metadata points to); the
//     three metadata areas and that copy read as zeros, as Windows shows
//     them. A Volume reads and writes the first sectors there and refuses
//     writes to those areas with ErrProtectedArea.
//
// Open refuses, with ErrUnsupported and the reason, volumes it cannot read
// correctly: Windows Vista metadata, encrypt-on-write volumes (used space
// only encryption, and partially encrypted volumes: a conversion in
// progress), and volumes with only TPM or smart-card protectors.
// ReadMetadata and Dump still describe them.
//
// # Use
//
//	m, err := bitlocker.ReadMetadata(f)    // what `cryptsetup bitlkDump` shows: m.Dump(os.Stdout)
//	v, err := bitlocker.Open(f, bitlocker.Password("secret"), nil)
//	defer v.Close()
//	n, err := v.ReadAt(buf, off)           // and WriteAt, Flush; v.FVEK() for the volume key
package bitlocker
