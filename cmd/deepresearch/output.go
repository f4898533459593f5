package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// output is a file a command writes: -o's report, --events' log. It is
// resolved and checked before any research starts, so that a bad path
// fails at once instead of after the work.
//
// A regular file (or a new one) is written atomically: through a
// temporary file in the same folder, renamed over the target, so a reader
// never sees half a report and a failed run never leaves one. The target's
// mode is kept; a new file gets 0666 less the umask, as os.Create gives.
// A symlink is followed and its target written, the link left in place.
// Anything else — a device such as /dev/null or /dev/stdout, a FIFO — is
// written directly: renaming over it would replace the device with a file.
type output struct {
	path    string // as the user named it
	target  string // after following symlinks
	regular bool   // write atomically
	mode    fs.FileMode
	exists  bool
}

// checkOutput resolves path and checks that it can be written.
func checkOutput(path string) (*output, error) {
	o := &output{path: path}
	target, err := resolveLinks(path)
	if err != nil {
		return nil, err
	}
	o.target = target
	fi, err := os.Stat(target)
	switch {
	case err == nil && fi.IsDir():
		return nil, fmt.Errorf("%s is a folder", path)
	case err == nil && fi.Mode().IsRegular():
		o.regular, o.exists, o.mode = true, true, fi.Mode().Perm()
	case err == nil:
		o.exists = true // a device, FIFO or socket: written in place
		return o, nil
	case errors.Is(err, fs.ErrNotExist):
		o.regular = true
	default:
		return nil, err
	}
	// The folder must exist and take a new file: try one.
	f, tmp, err := createTemp(filepath.Dir(target), filepath.Base(target), 0o600)
	if err != nil {
		return nil, err
	}
	f.Close()
	os.Remove(tmp)
	return o, nil
}

// resolveLinks follows path's symlinks (those of its folders too) to the
// file they name, which need not exist yet.
func resolveLinks(path string) (string, error) {
	for range 40 {
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			dir, err := filepath.EvalSymlinks(filepath.Dir(path))
			if err != nil {
				return "", fmt.Errorf("no folder %s: %w", filepath.Dir(path), fs.ErrNotExist)
			}
			return filepath.Join(dir, filepath.Base(path)), nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return filepath.EvalSymlinks(path)
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}

// sameFile reports whether two checked outputs name the same file.
func (o *output) sameFile(p *output) bool {
	if o.target == p.target {
		return true
	}
	a, errA := os.Stat(o.target)
	b, errB := os.Stat(p.target)
	return errA == nil && errB == nil && os.SameFile(a, b)
}

// write puts data in the output, atomically for a regular file.
func (o *output) write(data []byte) error {
	if !o.regular {
		f, err := os.OpenFile(o.target, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
	f, tmp, err := createTemp(filepath.Dir(o.target), filepath.Base(o.target), 0o666)
	if err != nil {
		return err
	}
	if o.exists {
		err = f.Chmod(o.mode) // the umask applied at creation must not change it
	}
	if err == nil {
		_, err = f.Write(data)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, o.target)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// createTemp creates a new file beside name in dir with perm (less the
// umask), unlike os.CreateTemp, which always makes it 0600.
func createTemp(dir, name string, perm fs.FileMode) (*os.File, string, error) {
	for {
		var b [6]byte
		_, _ = rand.Read(b[:])
		tmp := filepath.Join(dir, "."+name+"."+hex.EncodeToString(b[:])+".tmp")
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, tmp, err
	}
}
