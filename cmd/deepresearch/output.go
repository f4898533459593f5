package main

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
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
// Anything else — a device such as /dev/null, a FIFO — is written
// directly: renaming over it would replace the device with a file. A name
// of one of this process's descriptors (/dev/stdout, /dev/stderr,
// /dev/fd/N, /proc/self/fd/N) is written through that descriptor, whatever
// it is open on (a pipe, a socket, a terminal, a file the shell opened),
// and "-" names the command's stdout.
type output struct {
	path    string // as the user named it
	target  string // after following symlinks
	regular bool   // write atomically
	mode    fs.FileMode
	exists  bool
	stdout  bool // "-": the command's stdout
	fd      int  // >= 0: this process's descriptor the path names
}

// checkOutput resolves path and checks that it can be written.
func checkOutput(path string) (*output, error) {
	o := &output{path: path, fd: -1}
	if path == "-" {
		o.stdout = true
		return o, nil
	}
	target, fd, err := resolveLinks(path)
	if err != nil {
		return nil, err
	}
	o.target, o.fd = target, fd
	if fd >= 0 {
		if _, err := os.Stat(fdPath(fd)); err != nil {
			return nil, fmt.Errorf("%s: descriptor %d is not open: %w", path, fd, err)
		}
		return o, nil
	}
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
// file they name, which need not exist yet; or, when they lead to a name
// of one of this process's descriptors, returns that descriptor (else
// -1): its link in /proc names no file when it is open on a pipe.
func resolveLinks(path string) (string, int, error) {
	for range 40 {
		if fd, ok := ownFD(path); ok {
			return path, fd, nil
		}
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			dir, err := filepath.EvalSymlinks(filepath.Dir(path))
			if err != nil {
				return "", -1, fmt.Errorf("no folder %s: %w", filepath.Dir(path), fs.ErrNotExist)
			}
			return filepath.Join(dir, filepath.Base(path)), -1, nil
		}
		if err != nil {
			return "", -1, err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			p, err := filepath.EvalSymlinks(path)
			return p, -1, err
		}
		link, err := os.Readlink(path)
		if err != nil {
			return "", -1, err
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	return "", -1, fmt.Errorf("%s: too many levels of symbolic links", path)
}

// ownFD returns the descriptor of this process that path names:
// /dev/stdin, /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N and
// /proc/PID/fd/N with this process's PID.
func ownFD(path string) (int, bool) {
	path = filepath.Clean(path)
	for name, fd := range map[string]int{"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2} {
		if path == name {
			return fd, true
		}
	}
	for _, dir := range []string{"/dev/fd/", "/proc/self/fd/", "/proc/" + strconv.Itoa(os.Getpid()) + "/fd/"} {
		if n, ok := strings.CutPrefix(path, dir); ok {
			if fd, err := strconv.Atoi(n); err == nil && fd >= 0 {
				return fd, true
			}
		}
	}
	return 0, false
}

func fdPath(fd int) string { return "/dev/fd/" + strconv.Itoa(fd) }

// isStdout reports whether o is the command's stdout, by "-" or by the
// name of descriptor 1.
func (o *output) isStdout() bool { return o.stdout || o.fd == 1 }

// open opens o for writing: a new descriptor on what o's descriptor is
// open on, or the file (created and truncated when it is regular).
func (o *output) open() (*os.File, error) {
	if o.fd >= 0 {
		nfd, err := syscall.Dup(o.fd)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.path, err)
		}
		syscall.CloseOnExec(nfd)
		return os.NewFile(uintptr(nfd), o.path), nil
	}
	flags := os.O_WRONLY
	if o.regular {
		flags |= os.O_CREATE | os.O_TRUNC
	}
	return os.OpenFile(o.target, flags, 0o666)
}

// sameFile reports whether two checked outputs name the same file.
func (o *output) sameFile(p *output) bool {
	if o.isStdout() && p.isStdout() || !o.stdout && !p.stdout && o.target == p.target {
		return true
	}
	a, errA := o.stat()
	b, errB := p.stat()
	return errA == nil && errB == nil && os.SameFile(a, b)
}

func (o *output) stat() (fs.FileInfo, error) {
	switch {
	case o.stdout:
		return os.Stdout.Stat()
	case o.fd >= 0:
		return os.Stat(fdPath(o.fd))
	}
	return os.Stat(o.target)
}

// write puts data in the output, atomically for a regular file. "-" is
// the caller's to write (it has the command's stdout).
func (o *output) write(data []byte) error {
	if o.stdout {
		return errors.New(`output "-" is the command's stdout: the caller writes it`)
	}
	if !o.regular {
		f, err := o.open()
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
