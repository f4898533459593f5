package extract

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
)

// childCase names the hostile case a child process of
// TestHostileUnderMemoryLimit reads, and childFile the file that holds it.
const (
	childCase = "EXTRACT_HOSTILE_CASE"
	childFile = "EXTRACT_HOSTILE_FILE"
)

// hostileDataLimit is how much the data segment (RLIMIT_DATA: the heap
// and every private writable mapping) of the child reading one hostile
// file may grow while it reads. The readers without bounds needed 1.3 to
// 5.5 GB for these files. Under the race detector, whose shadow memory
// counts too, it is four times as large.
func hostileDataLimit() uint64 {
	if raceEnabled {
		return 1 << 30
	}
	return 256 << 20
}

// TestHostileUnderMemoryLimit reads each hostile file in a child process
// (this test binary again) whose data segment is capped by RLIMIT_DATA:
// a reader that builds gigabytes dies there with "out of memory" instead
// of taking the test, or the machine, down.
func TestHostileUnderMemoryLimit(t *testing.T) {
	if name := os.Getenv(childCase); name != "" {
		readUnderLimit(t, name, os.Getenv(childFile))
		return
	}
	if testing.Short() {
		t.Skip("starts a process per case")
	}
	for _, tt := range hostileCases() {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "hostile")
			if err := os.WriteFile(file, tt.data(), 0o600); err != nil {
				t.Fatal(err)
			}
			cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestHostileUnderMemoryLimit$", "-test.count=1", "-test.v")
			cmd.Env = append(os.Environ(), childCase+"="+tt.name, childFile+"="+file)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("reading it under a %d MiB data limit: %v\n%s", hostileDataLimit()>>20, err, out)
			}
			if _, grew, ok := bytes.Cut(out, []byte("the data segment grew by ")); ok {
				line, _, _ := bytes.Cut(grew, []byte("\n"))
				t.Logf("the data segment grew by %s", line)
			}
		})
	}
}

// readUnderLimit caps this process's data segment and reads the case's
// file.
func readUnderLimit(t *testing.T, name, file string) {
	for _, tt := range hostileCases() {
		if tt.name != name {
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		// The limit counts from what the process holds now, having made
		// the file.
		lim := dataSize(t) + hostileDataLimit()
		if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: lim, Max: lim}); err != nil {
			t.Fatal(err)
		}
		_, err = ExtractBytes(t.Context(), "hostile", data, tt.format, Limits{})
		if tt.want != nil && !errors.Is(err, tt.want) || tt.want == nil && err != nil {
			t.Fatalf("error %v, want %v", err, tt.want)
		}
		t.Logf("the data segment grew by %d MiB", (dataSize(t)-(lim-hostileDataLimit()))>>20)
		return
	}
	t.Fatalf("no case %q", name)
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
