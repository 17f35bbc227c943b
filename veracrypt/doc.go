// Package veracrypt opens VeraCrypt and TrueCrypt volumes in pure Go,
// read-write and without root: file containers, partitions and
// system-encrypted drive images, their hidden volumes and backup headers.
// It also creates VeraCrypt volumes and changes their passwords.
//
// # Opening
//
// Open reads the 512-byte header (a 64-byte salt, then 448 bytes encrypted
// in XTS mode under a key derived from the password), and finds the key
// derivation and cipher chain by trial, as VeraCrypt and cryptsetup do:
// every PRF (PBKDF2 with SHA-512, SHA-256, BLAKE2s-256, Whirlpool,
// Streebog-512, RIPEMD-160, TrueCrypt's SHA-1, and VeraCrypt's Argon2id)
// times every cipher chain (AES, Serpent, Twofish, Camellia, Kuznyechik
// and their cascades) until the magic ("VERA" or "TRUE") and both CRC-32s
// check. The PRFs run in parallel on all cores, TrueCrypt's cheap ones
// and the likeliest (SHA-512) first, and the first match stops the rest
// (PBKDF2 within 1024 iterations, an Argon2id run under way within one of
// its slices, its memory released); Options.PRF and Options.Cipher narrow
// the trials. A wrong password
// returns ErrPassword after all trials (seconds, with every PRF); Open never
// writes. OpenContext stops the trials when its context is done.
//
//	f, _ := os.OpenFile("container.hc", os.O_RDWR, 0)
//	v, err := veracrypt.Open(f, []byte("password"), &veracrypt.Options{PRF: "sha512"})
//	...
//	defer v.Close()
//	v.ReadAt(buf, 0) // the decrypted filesystem
//
// Keyfiles (Options.Keyfiles, their contents) are mixed into the password
// through VeraCrypt's keyfile pool (CRC-32 of each keyfile's first MiB
// added into a 64-byte pool, 128 bytes for VeraCrypt passwords longer
// than 64 bytes). Options.PIM sets VeraCrypt's Personal Iterations
// Multiplier: PBKDF2 runs 15000+1000*PIM iterations (system encryption
// with SHA-256, BLAKE2s, Streebog or RIPEMD-160: 2048*PIM), Argon2id uses
// min(64+32*(PIM-1), 1024) MiB and 3+(PIM-1)/3 passes (13+PIM-31 above
// 31); without a PIM, PBKDF2 runs 500000 iterations (RIPEMD-160 655331;
// system encryption 200000 and 327661) and Argon2id uses PIM 12's costs
// (416 MiB, 6 passes). TrueCrypt's counts are 1000 and 2000.
//
// # Layout
//
// A volume's header is at 0 and its backup at size-128 KiB; a hidden
// volume's at 64 KiB and size-64 KiB (TrueCrypt before 6.0: size-1536),
// system encryption's in sector 62 of the drive. The decrypted header
// records where the data area is (EncryptedAreaStart, in bytes from the
// start of the host, or of the drive for system encryption) and its
// length. Each cipher of a chain runs XTS over 512-byte data units
// numbered from the start of the host, whatever the sector size; a chain
// named "a-b-c" encrypts with c first. The header's key area holds the
// chain's primary keys, then its secondary (tweak) keys, 32 bytes each,
// in the order the ciphers encrypt.
//
// # Writing
//
// The Volume writes through to the device when it is an io.WriterAt
// (whole sectors encrypted in parallel, partial sectors read, modified
// and written back). Options.Protect enables hidden volume protection on
// an outer volume: writes that would touch the hidden volume are
// refused.
//
// Create writes a new VeraCrypt volume (any chain, PRF, PIM and keyfiles,
// an optional hidden volume) with random salts, keys and header areas.
// ChangeKey re-encrypts a volume's two headers under a new password with
// new salts, the backup first, so that a power loss at any point leaves a
// volume that opens with the old or the new password (the backup header
// with Options.Backup or TryBackup).
//
// TrueCrypt's legacy modes open read-only: LRW (TrueCrypt 4.1 to 4.3a)
// and CBC (TrueCrypt 1.0 to 4.0: AES, Serpent, Twofish, Blowfish, CAST5,
// Triple DES and the cascades, in outer or inner CBC; see cbc.go for the
// IV and whitening scheme). Writes to them, and Create or ChangeKey on
// them, are refused.
//
// # Not supported
//
// Hidden operating systems.
package veracrypt
