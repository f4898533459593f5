package pdftext

import (
	"errors"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/deepresearch/deepresearch/internal/heappeak"
	"github.com/deepresearch/deepresearch/internal/hostile"
)

const childBomb = "PDFTEXT_BOMB_CHILD"

// TestBombUnderMemoryLimit reads the decompression bomb in a child
// process (this test binary again) with MaxMemory at 128 MiB and the data
// segment (RLIMIT_DATA) allowed to grow by 256 MiB once the module is
// compiled: the instance's memory grows in place and is refused at the
// cap, so the read fails with ErrTooLarge. A memory that grew by copying
// inside the Go heap, as before, needed about three times the cap.
func TestBombUnderMemoryLimit(t *testing.T) {
	if os.Getenv(childBomb) != "" {
		r := New(Config{MaxMemory: 128 << 20, Instances: 1})
		defer r.Close()
		if _, err := r.Read(t.Context(), hostile.PDFText("Compile first.")); err != nil {
			t.Fatal(err)
		}
		bomb := hostile.PDFBomb(1 << 30)
		grow := uint64(256 << 20)
		if raceEnabled {
			grow *= 4
		}
		lim := dataSize(t) + grow
		if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: lim, Max: lim}); err != nil {
			t.Fatal(err)
		}
		_, err := r.Read(t.Context(), bomb)
		if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "needs more than the 128 MiB") {
			t.Fatalf("error %v, want ErrTooLarge", err)
		}
		return
	}
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestBombUnderMemoryLimit$", "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), childBomb+"=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("reading the bomb under a memory limit: %v\n%s", err, out)
	}
}

// dataSize returns the size of this process's data segment (VmData).
func dataSize(t *testing.T) uint64 { return statusSize(t, "VmData") }

// statusSize returns a size of /proc/self/status (VmData, VmHWM, VmSize), in
// bytes.
func statusSize(t *testing.T, field string) uint64 {
	n, err := heappeak.Status(field)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

const childShort = "PDFTEXT_SHORT_CHILD"

// TestReadShortOfAddressSpace reads a PDF in a child process whose address
// space (RLIMIT_AS, as ulimit -v and prlimit --as set it) is capped once
// the module is compiled: with 128 MiB left, the instance gets a memory
// smaller than the 512 MiB cap, halved until it fits, and the PDF is
// read; with 16 MiB left, the read fails with ErrUnavailable, saying why,
// where wazero panicked on a memory it could not map.
func TestReadShortOfAddressSpace(t *testing.T) {
	if os.Getenv(childShort) == "" {
		if raceEnabled {
			t.Skip("the race detector reserves address space by the terabyte")
		}
		cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestReadShortOfAddressSpace$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), childShort+"=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("reading short of address space: %v\n%s", err, out)
		}
		return
	}
	r := New(Config{Instances: 1})
	defer r.Close()
	pdf := hostile.PDFText("Valentia Island station opened in 1866.")
	if _, err := r.Read(t.Context(), pdf); err != nil {
		t.Fatal(err)
	}
	// Threads started now are kept: one started under the cap would
	// need a stack the cap may not leave.
	var started, done sync.WaitGroup
	release := make(chan struct{})
	for range 4*runtime.GOMAXPROCS(0) + 16 {
		started.Add(1)
		done.Go(func() {
			runtime.LockOSThread()
			started.Done()
			<-release
			runtime.UnlockOSThread()
		})
	}
	started.Wait()
	close(release)
	done.Wait()
	limit := func(left uint64) {
		lim := statusSize(t, "VmSize") + left
		if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: lim, Max: lim}); err != nil {
			t.Fatal(err)
		}
	}
	limit(128 << 20)
	doc, err := r.Read(t.Context(), pdf)
	if err != nil || len(doc.Pages) != 1 || !strings.Contains(doc.Pages[0], "Valentia") {
		t.Fatalf("Read with 128 MiB of address space left = %+v, %v; want the page", doc, err)
	}
	limit(16 << 20)
	_, err = r.Read(t.Context(), pdf)
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "no address space for its memory") {
		t.Fatalf("Read with 16 MiB of address space left: %v, want ErrUnavailable", err)
	}
}
