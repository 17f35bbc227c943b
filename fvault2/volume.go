package fvault2

import (
	"crypto/subtle"
	"fmt"
	"io"
	"sync"

	"github.com/fastxts/xts/internal/volume"
)

// ErrClosed is returned by the I/O methods of a closed Volume.
var ErrClosed = volume.ErrClosed

// Options are Open's options; nil means the defaults.
type Options struct {
	// ReadOnly refuses WriteAt even when the device is writable.
	ReadOnly bool
}

// Volume is an opened FileVault 2 logical volume: its decrypted bytes,
// read and written at any offset and length through ReadAt and WriteAt
// (of the embedded volume.Volume: Size, SectorSize, ReadOnly, Flush).
// Writes go to the device when it is an io.WriterAt and the volume was
// not opened read-only; they touch only the logical volume's extent.
type Volume struct {
	*volume.Volume
	// Header is the volume's metadata, as ReadHeader returns it.
	Header *Header
	mu     sync.Mutex
	key    []byte
}

// Open reads dev's header and opens its logical volume with password. A
// password that opens none of the volume's passphrases is
// ErrWrongPassword.
func Open(dev io.ReaderAt, password []byte, o *Options) (*Volume, error) {
	h, err := ReadHeader(dev)
	if err != nil {
		return nil, err
	}
	if err := h.openable(); err != nil {
		return nil, err
	}
	key, err := h.unlock(password)
	if err != nil {
		return nil, err
	}
	return open(dev, h, key, o)
}

// OpenWithKey opens dev's logical volume with its volume key: the 32
// bytes that cryptsetup fvault2Dump --dump-volume-key prints (the 128-bit
// volume key, then the tweak key), or the 16-byte volume key alone, from
// which the tweak key is derived. There is nothing on the volume to check
// the volume key against; a 32-byte key whose tweak half does not follow
// from its first half and this volume's family UUID is refused.
func OpenWithKey(dev io.ReaderAt, volumeKey []byte, o *Options) (*Volume, error) {
	h, err := ReadHeader(dev)
	if err != nil {
		return nil, err
	}
	if err := h.openable(); err != nil {
		return nil, err
	}
	var key []byte
	switch len(volumeKey) {
	case volumeKeyBytes:
		key = h.xtsKey(volumeKey)
	case 2 * volumeKeyBytes:
		key = h.xtsKey(volumeKey[:volumeKeyBytes])
		if subtle.ConstantTimeCompare(key, volumeKey) != 1 {
			clear(key)
			return nil, fmt.Errorf("fvault2: the volume key's tweak half is not the one its first half and family UUID %s give: a key of another volume?", h.FamilyUUID)
		}
	default:
		return nil, fmt.Errorf("fvault2: volume key of %d bytes (want 16 or 32)", len(volumeKey))
	}
	return open(dev, h, key, o)
}

// openable refuses what Open cannot present as a plain encrypted volume.
func (h *Header) openable() error {
	if s := h.ConversionStatus; s != "" && s != "Complete" {
		return fmt.Errorf("%w: conversion status %q (only part of the volume is encrypted)", ErrUnsupported, s)
	}
	return nil
}

// open makes the Volume of h's logical volume under the XTS key key,
// which it owns from now on.
func open(dev io.ReaderAt, h *Header, key []byte, o *Options) (*Volume, error) {
	if o == nil {
		o = &Options{}
	}
	if n, err := volume.DeviceSize(dev); err == nil && (h.LVOffset > n || h.LVSize > n-h.LVOffset) {
		clear(key)
		return nil, fmt.Errorf("fvault2: logical volume [%d, +%d) ends past the %d-byte device", h.LVOffset, h.LVSize, n)
	}
	c, err := newSectors(key)
	if err != nil {
		clear(key)
		return nil, err
	}
	vv, err := volume.New(volume.Config{
		Data:       dev,
		Offset:     h.LVOffset,
		Size:       h.LVSize,
		SectorSize: sectorSize,
		Cipher:     c,
		ReadOnly:   o.ReadOnly,
		Name:       "fvault2",
	})
	if err != nil {
		c.Wipe()
		clear(key)
		return nil, err
	}
	return &Volume{Volume: vv, Header: h, key: key}, nil
}

// VolumeKey returns a copy of the 32-byte XTS key (the volume key, then
// the tweak key), as cryptsetup fvault2Dump --dump-volume-key prints it;
// nil once the Volume is closed.
func (v *Volume) VolumeKey() []byte {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.key == nil {
		return nil
	}
	return append([]byte(nil), v.key...)
}

// Close wipes the keys and makes further I/O fail with ErrClosed. It does
// not close the device. Close may be repeated.
func (v *Volume) Close() error {
	v.mu.Lock()
	clear(v.key)
	v.key = nil
	v.mu.Unlock()
	return v.Volume.Close()
}
