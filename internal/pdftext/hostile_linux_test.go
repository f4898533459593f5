package pdftext

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

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
func dataSize(t *testing.T) uint64 {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for line := range bytes.Lines(status) {
		if rest, ok := bytes.CutPrefix(line, []byte("VmData:")); ok {
			kb, err := strconv.ParseUint(string(bytes.TrimSuffix(bytes.TrimSpace(rest), []byte(" kB"))), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatal("no VmData in /proc/self/status")
	return 0
}
