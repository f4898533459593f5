//go:build linux

package corpus

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// oomDirEnv makes the test binary the child of TestSyncOutOfMemory: the
// folder it indexes short of address space.
const oomDirEnv = "DEEPRESEARCH_CORPUS_OOM_DIR"

// TestSyncOutOfMemory reproduces indexing under `prlimit --as` (which
// failed the whole Sync with "out of memory (7)"), without prlimit: in a
// child process whose address space (RLIMIT_AS) leaves SQLite a few MiB,
// a 7 MB text of one line is skipped with "out of memory" as its reason,
// and the Markdown files around it are indexed: the Sync succeeds. (The
// child grows and frees its Go heap and starts its threads before it
// caps itself, so that what runs short is SQLite's memory, not Go's: Go
// keeps the address space and the threads it no longer uses.)
func TestSyncOutOfMemory(t *testing.T) {
	if dir := os.Getenv(oomDirEnv); dir != "" {
		syncShortOfMemory(t, dir)
		return
	}
	if raceEnabled {
		t.Skip("the race detector reserves address space by the terabyte")
	}
	dir := t.TempDir()
	writeDocs(t, dir, map[string]string{
		"a.md":        "# Depots\n\nThe quokkafish depot keeps spare cable.\n",
		"oneline.txt": strings.Repeat("x", 7_000_000),
		"z.md":        "# Repeaters\n\nThe zanzibarine repeaters are tested yearly.\n",
	})
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestSyncOutOfMemory$", "-test.count=1")
	cmd.Env = append(os.Environ(), oomDirEnv+"="+dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("indexing short of memory: %v\n%s\n%s", err, stdout.Bytes(), stderr.Bytes())
	}
	line, _, _ := bytes.Cut(stdout.Bytes(), []byte("\n"))
	var st SyncStats
	if err := json.Unmarshal(line, &st); err != nil {
		t.Fatalf("the child's stats %q: %v", stdout.Bytes(), err)
	}
	// SQLite's "out of memory (7)", or the driver's failure to copy the
	// text for SQLite: "out of memory (cannot allocate 7000001 bytes)".
	const reason = "writing it to the index failed: out of memory ("
	if st.Added != 2 || st.Skipped != 1 || st.Documents != 2 || len(st.Skips) != 1 ||
		st.Skips[0].Path != "oneline.txt" || !strings.HasPrefix(st.Skips[0].Reason, reason) {
		t.Errorf("Sync short of memory = %+v, want a.md and z.md added and oneline.txt skipped: %s…", st, reason)
	}
}

// oomHeadroom is the address space the child leaves itself past what it
// has once its Go heap has grown: room for SQLite's small allocations,
// not for a 7 MB string bound to a statement.
const oomHeadroom = 4 << 20

// spareThreads makes the Go runtime start n OS threads, which it keeps
// for later: a thread started once the address space is capped (the
// runtime starts one when a goroutine blocks in a system call) would
// need a stack and, in a cgo binary, a C heap arena, and the runtime
// aborts when it cannot have them.
func spareThreads(n int) {
	var started, done sync.WaitGroup
	release := make(chan struct{})
	for range n {
		started.Add(1)
		done.Go(func() {
			runtime.LockOSThread() // a thread of its own, until all have one
			started.Done()
			<-release
			runtime.UnlockOSThread() // the thread goes back to the runtime's idle ones
		})
	}
	started.Wait()
	close(release)
	done.Wait()
}

// syncShortOfMemory is the child of TestSyncOutOfMemory: it opens an
// index, grows and frees its Go heap, caps its address space and indexes
// dir, printing the stats.
func syncShortOfMemory(t *testing.T, dir string) {
	ix := openIndex(t)
	spareThreads(4*runtime.GOMAXPROCS(0) + 16)
	ballast := make([]byte, 512<<20)
	for i := 0; i < len(ballast); i += 4096 {
		ballast[i] = 1
	}
	runtime.KeepAlive(ballast)
	ballast = nil
	runtime.GC()
	size := procStatus(t, "VmSize")
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: size + oomHeadroom, Max: size + oomHeadroom}); err != nil {
		t.Fatal(err)
	}
	st, err := ix.Sync(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	json.NewEncoder(os.Stdout).Encode(st)
}
