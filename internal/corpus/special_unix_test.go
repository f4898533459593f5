//go:build unix

package corpus

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// mkfifo makes a named pipe at path, or skips the test.
func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skip("no named pipes:", err)
	}
}

// guardPipe watches the named pipe at path until done is closed. When a
// reader has it open (or waits in open), it opens it for writing and
// closes it again, so that a reader stuck on it gets end-of-file and the
// test ends instead of hanging; and, if opened is true, fails the test.
// It polls; it waits for no timeout.
func guardPipe(t *testing.T, path string, done <-chan struct{}, opened bool) (stop func()) {
	t.Helper()
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			// Opening a pipe for writing without waiting succeeds only
			// when a reader has it open (or waits in open).
			if fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				if opened {
					t.Errorf("%s was opened for reading", filepath.Base(path))
				}
				syscall.Close(fd)
				return
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() { <-finished }
}

// TestSyncSpecialFiles checks that a named pipe in the corpus, and a link
// to one, are skipped with a reason and never opened: Sync finishes.
func TestSyncSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ok.md"), []byte("# OK\n\nfine text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pipe := filepath.Join(dir, "pipe.md")
	mkfifo(t, pipe)
	if err := os.Symlink("pipe.md", filepath.Join(dir, "pipe-link.txt")); err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t)
	for range 2 {
		done := make(chan struct{})
		wait := guardPipe(t, pipe, done, true)
		st, err := ix.Sync(t.Context(), dir)
		close(done)
		wait()
		if err != nil {
			t.Fatal(err)
		}
		want := []Skip{
			{Path: "pipe-link.txt", Reason: "symbolic link to a special file: named pipe"},
			{Path: "pipe.md", Reason: "not a regular file: named pipe"},
		}
		if st.Scanned != 3 || st.Added+st.Unchanged != 1 || st.Skipped != 2 || len(st.Skips) != 2 ||
			st.Skips[0] != want[0] || st.Skips[1] != want[1] {
			t.Errorf("Sync = %+v, want ok.md indexed and skips %+v", st, want)
		}
	}
}

// TestSyncCancelledWithPipe cancels a Sync of a corpus holding named pipes
// while it runs: it returns the cause, and never waits on a pipe.
func TestSyncCancelledWithPipe(t *testing.T) {
	dir := copyCorpus(t)
	pipe := filepath.Join(dir, "history", "a-pipe.md")
	mkfifo(t, pipe)
	if err := os.Symlink(pipe, filepath.Join(dir, "b-link.md")); err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t)
	ctx, cancel := context.WithCancelCause(t.Context())
	cause := errors.New("operator pressed Ctrl-C")
	done := make(chan struct{})
	wait := guardPipe(t, pipe, done, true)
	errc := make(chan error, 1)
	go func() {
		_, err := ix.Sync(ctx, dir)
		errc <- err
	}()
	cancel(cause)
	err := <-errc
	close(done)
	wait()
	if err != nil && !errors.Is(err, cause) {
		t.Errorf("cancelled Sync: err = %v, want nil (finished first) or the cause", err)
	}
	// Cancelled before it starts: the cause, whatever the folder holds.
	if _, err := ix.Sync(ctx, dir); !errors.Is(err, cause) {
		t.Errorf("Sync with a cancelled context: err = %v, want the cause", err)
	}
}

// TestReadRegular checks that readRegular refuses a pipe without waiting
// for a writer, reads no more than the size the file reports, and reads a
// file of /proc (size 0, content made on read) as empty rather than
// waiting on it.
func TestReadRegular(t *testing.T) {
	dir := t.TempDir()
	pipe := filepath.Join(dir, "pipe")
	mkfifo(t, pipe)
	done := make(chan struct{})
	wait := guardPipe(t, pipe, done, false)
	_, _, err := readRegular(pipe)
	close(done)
	wait()
	if !errors.Is(err, errNotRegular) {
		t.Errorf("readRegular(pipe): err = %v, want errNotRegular", err)
	}

	file := filepath.Join(dir, "file.txt")
	if err := os.WriteFile(file, []byte("some text"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, info, err := readRegular(file); err != nil || string(data) != "some text" || info.Size() != 9 {
		t.Errorf("readRegular(file) = %q, %v", data, err)
	}
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(file, link); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readRegular(link); err == nil {
		t.Error("readRegular(link): no error, want the link refused")
	}
	big := filepath.Join(dir, "big.txt")
	if err := os.WriteFile(big, []byte(strings.Repeat("x", maxFileSize+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := readRegular(big); !errors.Is(err, errTooLarge) {
		t.Errorf("readRegular(big): err = %v, want errTooLarge", err)
	}
	// /proc/self/stat reports size 0 and is made as it is read; /proc/kmsg
	// is the same and blocks: both read as empty.
	for _, p := range []string{"/proc/self/stat", "/proc/kmsg"} {
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Size() != 0 {
			continue
		}
		data, _, err := readRegular(p)
		if err == nil && len(data) != 0 {
			t.Errorf("readRegular(%s) read %d bytes of a file of size 0", p, len(data))
		}
	}
}
