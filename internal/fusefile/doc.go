// Package fusefile serves one file over FUSE: a directory, mounted at a
// path of the caller's choice, that holds a single regular file whose
// contents are a Backend. `xts luks mount` uses it to show the decrypted
// data segment of an image as DIR/volume, without root where fusermount3
// works.
//
// The file behaves like a block device that happens to be a file: its
// size is fixed (a truncate to another size is refused with EPERM, so open
// it without O_TRUNC: dd needs conv=notrunc), a write past the end fails
// with ENOSPC, and fsync(2) reaches the Backend's Sync. It is served with
// direct I/O: reads and writes reach the Backend as made (up to 1 MiB a
// request), uncached by the kernel, so mmap(2) of the file may be refused.
// Reads and writes may come from several kernel threads at once; the
// Backend must allow that (luks.Volume does). The directory holds that
// file and nothing else: creating, removing or renaming in it is refused
// (EPERM).
//
// On Linux the package speaks the kernel's FUSE protocol itself
// (mount_linux.go, serve_linux.go, proto_linux.go): mount(2) as root,
// fusermount3 otherwise. On macOS and FreeBSD it is built on the FUSE
// library github.com/hanwen/go-fuse/v2, whose package initialisers would
// otherwise run in every xts command on Linux too. This package is the
// tool's: library packages of the module do not import it.
package fusefile
