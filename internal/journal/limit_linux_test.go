//go:build linux

package journal_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"

	"github.com/deepresearch/deepresearch/internal/corpus"
	"github.com/deepresearch/deepresearch/internal/heappeak"
	"github.com/deepresearch/deepresearch/internal/journal"
)

// The environment of the child process of TestLongDocumentUnderLimit: the
// index to read, the document's ID and how much the data segment may grow.
const (
	limitIndexEnv = "DEEPRESEARCH_JOURNAL_LIMIT_INDEX"
	limitDocEnv   = "DEEPRESEARCH_JOURNAL_LIMIT_DOC"
	limitGrowEnv  = "DEEPRESEARCH_JOURNAL_LIMIT_GROW"
)

// limitReport is what the child prints.
type limitReport struct {
	Text, Journal int    // the document's bytes; the journal's
	GrewMiB       uint64 // VmData after less before
	PeakRSSMiB    uint64 // VmHWM
}

// TestLongDocumentUnderLimit journals a corpus document of nearly 8 MiB
// (the largest file the corpus indexes) read by four agents, then replays
// the four reads offline, in a child process whose data segment
// (RLIMIT_DATA: the Go heap) may grow by 112 MiB: the reads complete and
// the journal holds the text once (measured: the segment grows by 56 to
// 76 MiB). Kept inline, four copies of the text, each encoded through
// buffers several times its size, needed 132 to 164 MiB. An
// address-space limit, as prlimit --as sets, would measure the Go
// runtime's reservations — most of a process's 1.9 GB of address space —
// more than what the journal allocates.
func TestLongDocumentUnderLimit(t *testing.T) {
	if index := os.Getenv(limitIndexEnv); index != "" {
		journalUnderLimit(t, index, os.Getenv(limitDocEnv))
		return
	}
	if testing.Short() {
		t.Skip("indexes an 8 MiB document and starts a process")
	}
	ix, id, index := bigCorpus(t, 8<<20-4<<10)
	ix.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestLongDocumentUnderLimit$", "-test.count=1")
	cmd.Env = append(os.Environ(), limitIndexEnv+"="+index, limitDocEnv+"="+id, limitGrowEnv+"="+strconv.Itoa(112<<20))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the child failed: %v\n%s\n%.4000s", err, stdout.Bytes(), stderr.Bytes())
	}
	line, _, _ := bytes.Cut(stdout.Bytes(), []byte("\n"))
	var rep limitReport
	if err := json.Unmarshal(line, &rep); err != nil {
		t.Fatalf("the child's report %q: %v", stdout.Bytes(), err)
	}
	t.Logf("a %d-byte document read four times: journal %d bytes, data segment grew by %d MiB, peak RSS %d MiB", rep.Text, rep.Journal, rep.GrewMiB, rep.PeakRSSMiB)
	if rep.Text < 8<<20-8<<10 || rep.Journal > rep.Text*21/20+16<<10 {
		t.Errorf("a %d-byte document read four times left a %d-byte journal; want the text once", rep.Text, rep.Journal)
	}
}

// journalUnderLimit is the child of TestLongDocumentUnderLimit.
func journalUnderLimit(t *testing.T, index, id string) {
	ix, err := corpus.Open(t.Context(), index)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	grow, err := strconv.ParseUint(os.Getenv(limitGrowEnv), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	before := procStatus(t, "VmData")
	if err := syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: before + grow, Max: before + grow}); err != nil {
		t.Fatal(err)
	}
	b := journal.Backend{Backend: ix}
	log := &journal.MemLog{}
	j, _ := journal.New("r", nil, journal.Options{Log: log})
	scopes := []string{"researcher/t1", "researcher/t2", "researcher/t3", "researcher/t4"}
	size := 0
	for _, s := range scopes {
		doc, err := b.Fetch(journal.WithScope(journal.NewContext(context.Background(), j), s), id)
		if err != nil {
			t.Fatal(err)
		}
		size = len(doc.Text)
	}
	raw, _ := log.Entries(context.Background(), "r")
	total := 0
	for _, e := range raw {
		total += len(e)
	}
	off, err := journal.New("r", raw, journal.Options{Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	raw = nil
	for _, s := range scopes {
		doc, err := b.Fetch(journal.WithScope(journal.NewContext(context.Background(), off), s), id)
		if err != nil || len(doc.Text) != size {
			t.Fatalf("replayed %s: %d bytes, %v", s, len(doc.Text), err)
		}
	}
	json.NewEncoder(os.Stdout).Encode(limitReport{Text: size, Journal: total,
		GrewMiB: (procStatus(t, "VmData") - before) >> 20, PeakRSSMiB: procStatus(t, "VmHWM") >> 20})
}

// procStatus returns a size of /proc/self/status (VmData, VmHWM, VmSize), in
// bytes.
func procStatus(t *testing.T, field string) uint64 {
	n, err := heappeak.Status(field)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
