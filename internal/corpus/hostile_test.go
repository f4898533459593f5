//go:build linux

package corpus

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/deepresearch/deepresearch/internal/extract"
	"github.com/deepresearch/deepresearch/internal/heappeak"
	"github.com/deepresearch/deepresearch/internal/hostile"
)

// hostileFolder writes the hostile documents of issue 29 into a new
// folder, with a Markdown file and a CSV file that must be indexed beside
// them, and returns the folder and the skip reason each hostile file must
// get (its beginning).
func hostileFolder(t testing.TB) (string, map[string]string) {
	dir := t.TempDir()
	files := map[string][]byte{
		"shared.xlsx":   hostile.XLSXSharedString(),
		"styles.xlsx":   hostile.XLSXManyElements("styles", 2<<20),
		"repeated.ods":  hostile.ODSRepeated(),
		"title.epub":    hostile.EPUBTitle(400_000),
		"slides.pptx":   hostile.PPTXRepeatedSlide(1_000_000),
		"rows.csv":      hostile.CSVShortRows(8<<20 - 64),
		"bomb.pdf":      hostile.PDFBomb(3 << 30),
		"pages.pdf":     hostile.PDFPageCount(1_000_000_000),
		"cyclic.pdf":    hostile.PDFCyclicPages(),
		"good.md":       []byte("# Cable depots\n\nThe Porthcurno depot kept spare cable for the eastern routes.\n"),
		"good.csv":      []byte("depot,phone\nPorthcurno,01736 810966\n"),
		"good-text.pdf": hostile.PDFText("Valentia Island station opened in 1866."),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir, map[string]string{
		"shared.xlsx":  "too large: xl/worksheets/sheet1.xml, row 2: the cells display more than 16777216 bytes",
		"styles.xlsx":  "too large: xl/styles.xml: 2097156 XML tags, too many",
		"repeated.ods": "too large: content.xml, sheet S, row 2: more than 16777216 bytes",
		"slides.pptx":  "malformed: ppt/presentation.xml lists more slides than the file's 3 members",
		"rows.csv":     "too large: row ",
		"bomb.pdf":     "too large for the PDF reader: page 1 needs more than the 512 MiB",
		"pages.pdf":    "malformed or truncated PDF: no page could be found",
		"cyclic.pdf":   "malformed or truncated PDF: none of its 2 pages could be loaded",
	}
}

// The environment of the child process of TestSyncHostile: the folder to
// index and how much its data segment may grow.
const (
	hostileDirEnv   = "DEEPRESEARCH_CORPUS_HOSTILE_DIR"
	hostileLimitEnv = "DEEPRESEARCH_CORPUS_HOSTILE_LIMIT"
)

// hostileReport is what the child prints.
type hostileReport struct {
	Stats      SyncStats
	HeapMiB    float64 // the Go heap's peak, sampled
	PeakRSSMiB uint64  // VmHWM
	GrewMiB    uint64  // VmData after the Sync less before it
}

// TestSyncHostile indexes a folder of the hostile documents of issue 29
// (each a few KB to 8 MiB, each of which took gigabytes or minutes) in a
// child process whose data segment (RLIMIT_DATA: the Go heap and the PDF
// reader's memory) may grow by 512 MiB + 256 MiB at most: every hostile
// file is skipped with its own reason and the rest is indexed.
func TestSyncHostile(t *testing.T) {
	if dir := os.Getenv(hostileDirEnv); dir != "" {
		syncHostile(t, dir)
		return
	}
	if testing.Short() {
		t.Skip("writes 11 MB of hostile documents and starts a process")
	}
	dir, want := hostileFolder(t)
	grow := uint64(256 << 20)
	if raceEnabled {
		grow *= 4 // the race detector's shadow of the Go heap
	}
	grow += 512 << 20 // the PDF reader's memory, outside the Go heap
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestSyncHostile$", "-test.count=1")
	cmd.Env = append(os.Environ(), hostileDirEnv+"="+dir, hostileLimitEnv+"="+strconv.FormatUint(grow, 10))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("indexing the hostile folder with %d MiB to grow: %v\n%s\n%s", grow>>20, err, stdout.Bytes(), stderr.Bytes())
	}
	line, _, _ := bytes.Cut(stdout.Bytes(), []byte("\n"))
	var rep hostileReport
	if err := json.Unmarshal(line, &rep); err != nil {
		t.Fatalf("the child's report %q: %v", stdout.Bytes(), err)
	}
	t.Logf("peak RSS %d MiB, data segment grew by %d MiB, Go heap peak %.0f MiB", rep.PeakRSSMiB, rep.GrewMiB, rep.HeapMiB)
	skips := map[string]string{}
	for _, s := range rep.Stats.Skips {
		skips[s.Path] = s.Reason
	}
	for path, reason := range want {
		if !strings.HasPrefix(skips[path], reason) {
			t.Errorf("%s: skip reason %q, want %q…", path, skips[path], reason)
		}
	}
	if st := rep.Stats; st.Added != 4 || st.Skipped != len(want) {
		t.Errorf("Sync = %+v; want the three good files and the EPUB added, %d skipped", st, len(want))
	}
}

// syncHostile is the child of TestSyncHostile: it caps its data segment,
// indexes dir and prints a hostileReport.
func syncHostile(t *testing.T, dir string) {
	// Compile the PDF reader first: it is not what is measured.
	if _, _, err := extractDocument(t.Context(), "warm.pdf", hostile.PDFText("warm"), extract.FormatPDF); err != nil {
		t.Fatal(err)
	}
	grow, err := strconv.ParseUint(os.Getenv(hostileLimitEnv), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	before := procStatus(t, "VmData")
	if err := setDataLimit(before + grow); err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t)
	stop := heappeak.Start()
	st, err := ix.Sync(t.Context(), dir)
	heap := stop()
	if err != nil {
		t.Fatal(err)
	}
	json.NewEncoder(os.Stdout).Encode(hostileReport{
		Stats: st, HeapMiB: heap, PeakRSSMiB: procStatus(t, "VmHWM") >> 20, GrewMiB: (procStatus(t, "VmData") - before) >> 20,
	})
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

// setDataLimit caps the data segment of this process (RLIMIT_DATA).
func setDataLimit(n uint64) error {
	return syscall.Setrlimit(syscall.RLIMIT_DATA, &syscall.Rlimit{Cur: n, Max: n})
}

// BenchmarkSyncHostile indexes the folder of hostile documents into a new
// index each time: the time, and the Go heap's peak (sampled every
// millisecond; the PDF reader's memory, up to 512 MiB for the bomb, is
// outside the Go heap).
func BenchmarkSyncHostile(b *testing.B) {
	dir, _ := hostileFolder(b)
	if _, _, err := extractDocument(b.Context(), "warm.pdf", hostile.PDFText("warm"), extract.FormatPDF); err != nil {
		b.Fatal(err)
	}
	var peak float64
	for b.Loop() {
		b.StopTimer()
		ix, err := Open(b.Context(), filepath.Join(b.TempDir(), "index.db"))
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		stop := heappeak.Start()
		_, err = ix.Sync(b.Context(), dir)
		peak = max(peak, stop())
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		ix.Close()
		b.StartTimer()
	}
	b.ReportMetric(peak, "peak-heap-MiB")
}
