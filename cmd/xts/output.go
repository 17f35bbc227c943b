package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// atomicOutput is an output file that appears only when complete: the data
// goes to a temporary file in the same directory (so the final rename
// cannot cross file systems), which is flushed to disk and renamed over
// the output only after every byte has been written. Until commit, the
// output path is untouched; abort removes the temporary file.
type atomicOutput struct {
	*os.File
	path  string // the output as given, symlinks resolved
	force bool
}

// checkOutput decides whether path may be written: not the input (in may
// be nil when the input is not a file), not an existing file unless force,
// and never anything but a regular file. It returns the path to write,
// with symbolic links resolved so that --force replaces the file the link
// names rather than the link.
func checkOutput(path string, force bool, in os.FileInfo) (string, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		if _, lerr := os.Lstat(path); lerr == nil {
			return "", fmt.Errorf("output %s is a dangling symbolic link", path)
		}
		return path, nil
	}
	if err != nil {
		return "", fmt.Errorf("output: %w", err)
	}
	if in != nil && os.SameFile(fi, in) {
		return "", fmt.Errorf("input and output are the same file (%s)", path)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("output %s exists and is not a regular file (write to - and redirect to write a device)", path)
	}
	if !force {
		return "", fmt.Errorf("output %s already exists (use --force to replace it)", path)
	}
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", fmt.Errorf("output: %w", err)
	}
	return resolved, nil
}

// createOutput opens the temporary file for path (checked by checkOutput).
// It is created with mode 0600: a decrypted image is as secret as the key.
// When force replaces an existing file, the new one keeps the old mode.
func createOutput(path string, force bool) (*atomicOutput, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".xts-*.tmp")
	if err != nil {
		return nil, fmt.Errorf("creating the output beside %s: %w", path, err)
	}
	if fi, err := os.Stat(path); err == nil && force {
		if err := f.Chmod(fi.Mode().Perm()); err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, fmt.Errorf("output: %w", err)
		}
	}
	return &atomicOutput{File: f, path: path, force: force}, nil
}

// commit flushes the temporary file to disk and renames it to the output.
// On failure the temporary file is removed and the output left as it was.
func (o *atomicOutput) commit() error {
	tmp := o.Name()
	err := o.Sync()
	if cerr := o.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("writing %s: %w", o.path, err)
	}
	// Someone may have created the output while we worked: without --force
	// it must survive.
	if !o.force {
		if _, err := os.Lstat(o.path); err == nil {
			os.Remove(tmp)
			return fmt.Errorf("output %s appeared while writing (use --force to replace it)", o.path)
		}
	}
	if err := os.Rename(tmp, o.path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("renaming the output into place: %w", err)
	}
	// Make the rename itself durable. Some file systems cannot sync a
	// directory; the data is already on disk, so that is not an error.
	if d, err := os.Open(filepath.Dir(o.path)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// abort discards the temporary file.
func (o *atomicOutput) abort() {
	o.Close()
	os.Remove(o.Name())
}
