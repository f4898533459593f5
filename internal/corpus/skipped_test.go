package corpus

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/hostile"
	"github.com/deepresearch/deepresearch/internal/testpdf"
)

// TestSyncSkipsEveryFile (issue 32): every file of the folder is counted,
// and each one not indexed is listed with its reason, files of formats
// the index does not read too (marked Unsupported); ODT, JSON (as text)
// and gzip-compressed documents are read — Debian's own gzipped PDF among
// them — and a gzip bomb is skipped at the 8 MiB bound.
func TestSyncSkipsEveryFile(t *testing.T) {
	dir := t.TempDir()
	odt, err := os.ReadFile(filepath.Join(formatsDir, "guide.odt"))
	if err != nil {
		t.Fatal(err)
	}
	pdfGz, err := os.ReadFile(testpdf.Fontconfig) // as Debian ships it
	if err != nil {
		t.Fatalf("%v: install the Debian package fontconfig (.ci/run does)", err)
	}
	files := map[string][]byte{
		"guide.odt":              odt,
		"guide-copy.odt.gz":      hostile.Gzip(odt),
		"fontconfig-user.pdf.gz": pdfGz,
		"notes.md.gz":            hostile.Gzip([]byte("# Splicing\n\nA splice of the quokkafish cable takes sixteen hours.\n")),
		"depots.json":            []byte(`{"depot": "Porthcurno", "ship": "Monarch", "note": "the zanzibarine spares"}` + "\n"),
		"readme.rst":             []byte("Repeaters\n=========\n\nRepeaters are inspected every eighteen months.\n"),
		"page.htm":               []byte("<html><head><title>Depot</title></head><body><p>The depot keeps the grapnels.</p></body></html>"),
		"bomb.txt.gz":            hostile.GzipBomb(64 << 20),
		"fake.md.gz":             []byte("# not gzip at all\n"),
		"photo.png":              {0x89, 'P', 'N', 'G'},
		"source.tar.gz":          hostile.Gzip([]byte("a tarball")),
		"Makefile":               []byte("all:\n"),
		"sub/tool.go":            []byte("package main\n"),
		".hidden/secret.md":      []byte("# hidden\n"),
	}
	docs := map[string]string{}
	for name, data := range files {
		docs[name] = string(data)
	}
	writeDocs(t, dir, docs)
	ix := openIndex(t)
	st, err := ix.Sync(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	wantSkips := []Skip{
		{Path: "Makefile", Reason: "not a format the index reads (no extension)", Unsupported: true},
		{Path: "bomb.txt.gz", Reason: "too large: unpacks to more than 8 MiB (a gzip bomb?)"},
		{Path: "fake.md.gz", Reason: "malformed: not gzip data: gzip: invalid header"},
		{Path: "photo.png", Reason: "not a format the index reads (.png)", Unsupported: true},
		{Path: "source.tar.gz", Reason: "not a format the index reads (.tar.gz)", Unsupported: true},
		{Path: "sub/tool.go", Reason: "not a format the index reads (.go)", Unsupported: true},
	}
	if len(st.Skips) != len(wantSkips) {
		t.Fatalf("skips %+v, want %+v", st.Skips, wantSkips)
	}
	for i, want := range wantSkips {
		if st.Skips[i] != want {
			t.Errorf("skip %d: %+v, want %+v", i, st.Skips[i], want)
		}
	}
	const read = 7 // the two ODTs, the PDF, the Markdown, the JSON, the rst, the HTML
	if st.Scanned != read+len(wantSkips) || st.Added != read || st.Skipped != len(wantSkips) || st.Documents != read {
		t.Errorf("Sync = %+v, want %d read and %d skipped", st, read, len(wantSkips))
	}
	for _, tt := range []struct{ query, doc string }{
		{"quokkafish splice", "notes.md.gz"},
		{"zanzibarine spares", "depots.json"},
		{"grapnels depot", "page.htm"},
		{"repeaters inspected eighteen months", "readme.rst"},
		{"grappled eight kilometres", "guide-copy.odt.gz"},
		{"fontconfig configuration file", "fontconfig-user.pdf.gz"},
	} {
		res, err := ix.Search(t.Context(), tt.query, 10)
		if err != nil {
			t.Fatal(err)
		}
		hit := false
		for _, r := range res {
			hit = hit || r.DocID == tt.doc
		}
		if !hit {
			t.Errorf("%q does not find %s: %+v", tt.query, tt.doc, res)
		}
	}
	doc, err := ix.Fetch(t.Context(), "notes.md.gz")
	if err != nil || doc.Title != "Splicing" {
		t.Errorf("Fetch of the gzipped Markdown: %+v, %v", doc, err)
	}
	doc, err = ix.Fetch(t.Context(), "fontconfig-user.pdf.gz")
	if err != nil || !strings.Contains(doc.Text, "--- page 2 ---") {
		t.Errorf("the gzipped PDF is not read by page: %v", err)
	}

	// Again: nothing read, the same skips.
	again, err := ix.Sync(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if again.Unchanged != read || again.Skipped != len(wantSkips) || again.Scanned != st.Scanned || len(again.Skips) != len(wantSkips) {
		t.Errorf("second Sync = %+v", again)
	}
}

// TestSyncGzipBombMemory: a folder holding a gzip bomb of 256 MiB is
// synced allocating far less than the bomb would unpack to.
func TestSyncGzipBombMemory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bomb.md.gz"), hostile.GzipBomb(256<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	st, err := ix.Sync(t.Context(), dir)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if st.Skipped != 1 || !strings.Contains(st.Skips[0].Reason, "unpacks to more than 8 MiB") {
		t.Errorf("Sync = %+v, want the bomb skipped", st)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("syncing a folder holding a 256 MiB gzip bomb allocated %.1f MiB", float64(alloc)/(1<<20))
	// The process's allocations (the race detector's and other tests' too):
	// far below the 256 MiB the bomb unpacks to is the point.
	if alloc > 96<<20 {
		t.Errorf("syncing a 256 MiB gzip bomb allocated %d MiB", alloc>>20)
	}
}

func TestCheckFolder(t *testing.T) {
	base := t.TempDir()
	mk := func(files ...string) string {
		dir, err := os.MkdirTemp(base, "c")
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			p := filepath.Join(dir, filepath.FromSlash(f))
			if strings.HasSuffix(f, "/") {
				if err := os.MkdirAll(p, 0o755); err != nil {
					t.Fatal(err)
				}
				continue
			}
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	file := filepath.Join(mk("a.md"), "a.md")
	tests := []struct {
		name string
		dir  string
		want error
		msg  string
	}{
		{"a document deep down", mk("x/y/z/notes.txt"), nil, ""},
		{"a gzipped PDF", mk("manual.pdf.gz"), nil, ""},
		{"an ODT", mk("a.png", "guide.odt"), nil, ""},
		{"missing", filepath.Join(base, "missing"), ErrNoFolder, "no such folder"},
		{"a file", file, ErrNoFolder, "no such folder: it is a file"},
		{"empty", mk(), ErrNoDocuments, "no document to index: the folder is empty"},
		{"empty folders only", mk("a/", "b/c/"), ErrNoDocuments, "the folder is empty"},
		{"hidden documents only", mk(".git/README.md", ".notes.md"), ErrNoDocuments, "the folder is empty"},
		{"other formats only", mk("a.png", "b/c.go", "d.tar.gz", "e.xyz"), ErrNoDocuments,
			"no document to index: 4 files, of formats the index does not read (a.png, b/c.go, d.tar.gz, …)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckFolder(tt.dir)
			if !errors.Is(err, tt.want) || (err == nil) != (tt.want == nil) {
				t.Fatalf("CheckFolder = %v, want %v", err, tt.want)
			}
			if err == nil {
				return
			}
			var ce *Error
			if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.dir) || !strings.HasSuffix(err.Error(), tt.msg) {
				t.Errorf("message %q: want a *corpus.Error naming %s and ending %q", err, tt.dir, tt.msg)
			}
		})
	}
	if err := CheckFolder(filepath.Join(base, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing folder: %v, want fs.ErrNotExist wrapped", err)
	}
}

// TestNoDocuments: a Sync that leaves the index without documents says
// why, and a folder with one says nothing.
func TestNoDocuments(t *testing.T) {
	dir := t.TempDir()
	ix := openIndex(t)
	st, err := ix.Sync(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := NoDocuments(st); !errors.Is(err, ErrNoDocuments) || err.Error() != "no document to index: the folder is empty" {
		t.Errorf("empty folder: %v", err)
	}
	writeDocs(t, dir, map[string]string{"a.txt": "bad\x00", "b.md": "also\x00bad", "c.png": "x"})
	if st, err = ix.Sync(t.Context(), dir); err != nil {
		t.Fatal(err)
	}
	want := "no document to index: 3 files, all skipped (a.txt: contains NUL bytes; b.md: contains NUL bytes; c.png: not a format the index reads (.png))"
	if err := NoDocuments(st); !errors.Is(err, ErrNoDocuments) || err.Error() != want {
		t.Errorf("all skipped: %v\nwant %s", err, want)
	}
	writeDocs(t, dir, map[string]string{"d.md": "# Fine\n"})
	if st, err = ix.Sync(t.Context(), dir); err != nil {
		t.Fatal(err)
	}
	if err := NoDocuments(st); err != nil || st.Documents != 1 {
		t.Errorf("one document: %v, %+v", err, st)
	}
}

// TestSyncProgress: WithProgress hears of every entry as the walk goes,
// with counts that only grow, the last of them the Sync's own.
func TestSyncProgress(t *testing.T) {
	dir := t.TempDir()
	writeDocs(t, dir, map[string]string{"a.md": "# A\n\nAlpha.\n", "b.txt": "Beta.\n", "c.png": "x", "d/e.md": "# E\n\nEcho.\n"})
	var seen []SyncStats
	ix, err := Open(t.Context(), filepath.Join(t.TempDir(), "index.db"), WithProgress(func(st SyncStats) { seen = append(seen, st) }))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	st, err := ix.Sync(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 4 {
		t.Fatalf("%d reports for 4 files: %+v", len(seen), seen)
	}
	for i, p := range seen {
		if p.Scanned != i+1 || p.Skips != nil || (i > 0 && (p.Added < seen[i-1].Added || p.Passages < seen[i-1].Passages)) {
			t.Errorf("report %d: %+v", i, p)
		}
	}
	last := seen[len(seen)-1]
	if last.Added != st.Added || last.Skipped != st.Skipped || last.Passages != st.Passages || last.Added != 3 || last.Skipped != 1 {
		t.Errorf("last report %+v, Sync %+v", last, st)
	}
}
