package runpack

import (
	"archive/tar"
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func sample() Pack {
	return Pack{
		Manifest: Manifest{Program: "deepresearch test", Run: json.RawMessage(`{"id":"9f86d081884c7d65","question":"How?","status":"finished"}`)},
		Journal: [][]byte{
			[]byte(`{"v":1,"kind":"header","time":"2026-11-03T10:00:00Z","header":{"program":"p"}}`),
			[]byte(`{"v":1,"kind":"search","key":"k","time":"2026-11-03T10:00:01Z","search":{"query":"q","limit":5,"results":[]}}`),
		},
		Events: [][]byte{
			[]byte(`{"run_id":"9f86d081884c7d65","seq":1,"time":"2026-11-03T10:00:00Z","type":"run.started","agent":-1,"section":"","data":{"question":"How?"}}`),
		},
		Report: json.RawMessage(`{"version":1,"question":"How?"}`),
	}
}

func TestRoundTrip(t *testing.T) {
	for _, p := range []Pack{sample(), {Manifest: Manifest{Run: json.RawMessage(`{}`)}}} {
		var a, b bytes.Buffer
		if err := Write(&a, p); err != nil {
			t.Fatal(err)
		}
		if err := Write(&b, p); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Error("the same run packs to different bytes")
		}
		got, err := Read(bytes.NewReader(a.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		p.Manifest.Format, p.Manifest.Version = Format, Version
		if !reflect.DeepEqual(got, p) {
			t.Errorf("read back\n%+v\nwant\n%+v", got, p)
		}
	}
}

// archive builds a tar.zst of the given members, as an attacker or
// another program might.
func archive(t *testing.T, members ...[2]string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, _ := zstd.NewWriter(&b)
	tw := tar.NewWriter(zw)
	for _, m := range members {
		tw.WriteHeader(&tar.Header{Name: m[0], Mode: 0o644, Size: int64(len(m[1])), Typeflag: tar.TypeReg})
		tw.Write([]byte(m[1]))
	}
	tw.Close()
	zw.Close()
	return b.Bytes()
}

func TestReadRefuses(t *testing.T) {
	man := [2]string{manifestName, `{"format":"deepresearch-run","version":1}`}
	j, e := [2]string{journalName, ""}, [2]string{eventsName, ""}
	tests := []struct {
		name    string
		data    []byte
		message string
	}{
		{"not zstd", []byte("PK\x03\x04 a zip file"), "not a deepresearch run pack"},
		{"not tar", func() []byte {
			var b bytes.Buffer
			zw, _ := zstd.NewWriter(&b)
			zw.Write([]byte(strings.Repeat("x", 1024)))
			zw.Close()
			return b.Bytes()
		}(), "not a deepresearch run pack"},
		{"another format", archive(t, [2]string{manifestName, `{"format":"other","version":1}`}, j, e), `names format "other"`},
		{"newer version", archive(t, [2]string{manifestName, `{"format":"deepresearch-run","version":2,"program":"deepresearch v9"}`}, j, e), `pack version 2 (written by "deepresearch v9"); this program reads version 1`},
		{"unknown member", archive(t, man, j, e, [2]string{"../../etc/passwd", "x"}), `unknown member "../../etc/passwd"`},
		{"twice", archive(t, man, j, j, e), "not a single regular file"},
		{"missing events", archive(t, man, j), "lacks"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.message) {
				t.Errorf("err = %v, want %q", err, tc.message)
			}
		})
	}
	if _, err := Read(bytes.NewReader(tests[0].data)); !errors.Is(err, ErrFormat) {
		t.Errorf("not ErrFormat: %v", err)
	}
}

func TestReadBounded(t *testing.T) {
	defer func(n int64) { maxBytes = n }(maxBytes)
	maxBytes = 4096
	big := archive(t, [2]string{manifestName, `{"format":"deepresearch-run","version":1}`}, [2]string{journalName, strings.Repeat("{}\n", 4096)}, [2]string{eventsName, ""})
	if _, err := Read(bytes.NewReader(big)); err == nil || !errors.Is(err, ErrFormat) {
		t.Errorf("a pack over the limit: %v", err)
	}
}

// hostile packs a manifest, an empty events.jsonl and a journal.jsonl of
// n bytes, each from fill (called with the byte's index), streamed into
// the archive so that the test holds only the compressed pack.
func hostile(t *testing.T, n int64, fill byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw, err := zstd.NewWriter(&b)
	if err != nil {
		t.Fatal(err)
	}
	tw := tar.NewWriter(zw)
	man := `{"format":"deepresearch-run","version":1}`
	tw.WriteHeader(&tar.Header{Name: manifestName, Mode: 0o644, Size: int64(len(man)), Typeflag: tar.TypeReg})
	tw.Write([]byte(man))
	tw.WriteHeader(&tar.Header{Name: eventsName, Mode: 0o644, Typeflag: tar.TypeReg})
	tw.WriteHeader(&tar.Header{Name: journalName, Mode: 0o644, Size: n, Typeflag: tar.TypeReg})
	chunk := bytes.Repeat([]byte{fill}, 1<<20)
	for left := n; left > 0; left -= int64(len(chunk)) {
		if _, err := tw.Write(chunk[:min(left, int64(len(chunk)))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// allocated returns the bytes f allocates on the heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A pack whose journal is all newlines (the was 1,000 MiB of
// them, in a 40 KB file) reads as an empty journal in memory that does
// not grow with the newlines: before, 32 MiB of them cost 900 MB.
func TestReadNewlines(t *testing.T) {
	pack := hostile(t, 32<<20, '\n')
	var p Pack
	var err error
	n := allocated(func() { p, err = Read(bytes.NewReader(pack)) })
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Journal) != 0 {
		t.Errorf("%d journal entries from newlines", len(p.Journal))
	}
	if n > 16<<20 {
		t.Errorf("reading a %d-byte pack of 32 MiB of newlines allocated %d MiB", len(pack), n>>20)
	}
}

// A line longer than MaxLine is refused, naming the member and the line,
// before it is held whole.
func TestReadLongLine(t *testing.T) {
	defer func(n int64) { maxLine = n }(maxLine)
	maxLine = 1 << 20
	pack := hostile(t, 64<<20, 'x')
	var err error
	n := allocated(func() { _, err = Read(bytes.NewReader(pack)) })
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "journal.jsonl, line 1: longer than 1048576 bytes") {
		t.Errorf("err = %v", err)
	}
	if n > 24<<20 {
		t.Errorf("refusing a 64 MiB line allocated %d MiB", n>>20)
	}
}

// Many short lines are charged what holding them costs, not only their
// bytes: a pack of one-byte lines cannot cost 12 times its size.
func TestReadShortLinesCharged(t *testing.T) {
	defer func(n int64) { maxBytes = n }(maxBytes)
	maxBytes = 1 << 20
	var j strings.Builder
	for range 1 << 17 { // 256 KiB of "x\n", 128Ki lines: 3 MiB held
		j.WriteString("x\n")
	}
	pack := archive(t, [2]string{manifestName, `{"format":"deepresearch-run","version":1}`}, [2]string{journalName, j.String()}, [2]string{eventsName, ""})
	_, err := Read(bytes.NewReader(pack))
	if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), "journal.jsonl, line ") || !strings.Contains(err.Error(), "more than 1048576 bytes") {
		t.Errorf("err = %v", err)
	}
}

// Lines split across the reader's buffer, and blank lines, read back as
// written, whatever their length.
func TestReadLines(t *testing.T) {
	long := strings.Repeat("y", 200<<10)
	in := "\n\n{\"a\":1}\r\n" + long + "\n   \n" + long + "z"
	got, err := readLines(strings.NewReader(in), journalName, new(int64(1<<30)))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`{"a":1}`, long, long + "z"}
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d", len(got), len(want))
	}
	for i := range want {
		if string(got[i]) != want[i] {
			t.Errorf("line %d: %d bytes, want %d", i, len(got[i]), len(want[i]))
		}
	}
}
