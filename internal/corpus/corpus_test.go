package corpus

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"go.uber.org/goleak"

	"github.com/deepresearch/deepresearch/search"
)

func TestMain(m *testing.M) {
	if db := os.Getenv(helperEnv); db != "" {
		syncProcess(db, os.Getenv(helperDirEnv))
		return
	}
	goleak.VerifyTestMain(m)
}

// The environment that makes the test binary a child process of
// TestConcurrentProcesses: open the index named by helperEnv, sync the
// folder named by helperDirEnv, print the stats as JSON and exit.
const (
	helperEnv    = "DEEPRESEARCH_CORPUS_TEST_INDEX"
	helperDirEnv = "DEEPRESEARCH_CORPUS_TEST_DIR"
)

func syncProcess(db, dir string) {
	ctx := context.Background()
	ix, err := Open(ctx, db)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	st, err := ix.Sync(ctx, dir)
	if err == nil {
		err = ix.Close()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	json.NewEncoder(os.Stdout).Encode(st)
	os.Exit(0)
}

// openIndex opens an index in a fresh temporary folder, closed at the end
// of the test.
func openIndex(t testing.TB) *Index {
	t.Helper()
	ix, err := Open(t.Context(), filepath.Join(t.TempDir(), "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := ix.Close(); err != nil {
			t.Error(err)
		}
	})
	return ix
}

// syncedCorpus returns an index of the test corpus.
func syncedCorpus(t testing.TB) *Index {
	t.Helper()
	ix := openIndex(t)
	if _, err := ix.Sync(t.Context(), corpusDir); err != nil {
		t.Fatal(err)
	}
	return ix
}

// copyCorpus copies the test corpus, hidden files included, into a
// temporary folder the test may change.
func copyCorpus(t testing.TB) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(corpusDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(corpusDir, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// counts is what a SyncStats counts, without the list of skips.
func counts(s SyncStats) [7]int {
	return [7]int{s.Scanned, s.Added, s.Updated, s.Removed, s.Unchanged, s.Skipped, s.Passages}
}

// corpusDir is the test corpus shared with end-to-end tests.
const corpusDir = "../../testdata/corpus"

// The test corpus has 10 documents, one file that must be skipped
// (notes/damaged-log.txt has NUL bytes), one file with another extension
// (raw/soundings.bin) and two hidden ones.
const corpusDocs = 10

func TestSyncSearchFetch(t *testing.T) {
	ctx := t.Context()
	ix := openIndex(t)
	st, err := ix.Sync(ctx, corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	want := SyncStats{Scanned: corpusDocs + 2, Added: corpusDocs, Skipped: 2, Passages: st.Passages}
	if counts(st) != counts(want) || st.Passages < 3*corpusDocs {
		t.Fatalf("first Sync = %+v, want %+v with at least %d passages", st, want, 3*corpusDocs)
	}

	res, err := ix.Search(ctx, "Great Eastern landed the cable at Heart's Content", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) == 0 {
		t.Fatal("no results")
	}
	top := res[0]
	root, _ := filepath.Abs(corpusDir)
	root, _ = filepath.EvalSymlinks(root)
	wantURL := (&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(root, "history", "great-eastern.md"))}).String()
	if top.DocID != "history/great-eastern.md" ||
		top.Title != "The Great Eastern and the Cables of 1865 and 1866" ||
		top.Location != "Success in 1866" ||
		top.URL != wantURL ||
		!strings.Contains(top.Snippet, "Heart's Content, Newfoundland, on 27 July 1866") ||
		top.Score <= 0 {
		t.Errorf("top result = %+v\nwant history/great-eastern.md, its title, location \"Success in 1866\", URL %s, the passage", top, wantURL)
	}
	for i := 1; i < len(res); i++ {
		if res[i].Score > res[i-1].Score {
			t.Errorf("result %d scores %g, above result %d (%g)", i, res[i].Score, i-1, res[i-1].Score)
		}
	}

	doc, err := ix.Fetch(ctx, top.DocID)
	if err != nil {
		t.Fatal(err)
	}
	if doc.DocID != top.DocID || doc.Title != top.Title || doc.URL != top.URL ||
		!strings.Contains(doc.Text, "The lost cable of 1865") || !strings.Contains(doc.Text, "Heart's Content") {
		t.Errorf("Fetch(%q) = %+v", top.DocID, doc)
	}
	// The file's modification time, as the index saw it, dates the
	// result and the document.
	fi, err := os.Stat(filepath.Join(corpusDir, "history", "great-eastern.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := fi.ModTime().UTC().Truncate(time.Second).Format(time.RFC3339); top.Modified != want || doc.Modified != want || top.Published != "" {
		t.Errorf("modified: result %q, document %q; want the file's %q (and no publication date, %q)", top.Modified, doc.Modified, want, top.Published)
	}

	html, err := ix.Fetch(ctx, "./operations//landing-stations.html")
	if err != nil {
		t.Fatal(err)
	}
	if html.Title != "Cable Landing Stations" || !strings.Contains(html.Text, "## Porthcurno") {
		t.Errorf("landing-stations.html: title %q, text:\n%s", html.Title, html.Text)
	}
	for _, furniture := range []string{"beaconSecret", "Navigation menu", "dynamic content", "font-family", "Written for the deepresearch"} {
		if strings.Contains(html.Text, furniture) {
			t.Errorf("landing-stations.html text has page furniture %q", furniture)
		}
	}
}

// TestSearchExcludes checks that hidden files, skipped files and page
// furniture are not searchable.
func TestSearchExcludes(t *testing.T) {
	ix := syncedCorpus(t)
	for _, q := range []string{"xylophonic", "zebra quartz beaconSecret", "trackerConfig", "dynamic content that must not be indexed", "grapnel run 3 export"} {
		res, err := ix.Search(t.Context(), q, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if strings.HasPrefix(r.DocID, ".") || strings.Contains(r.DocID, "/.") || r.DocID == "notes/damaged-log.txt" ||
				strings.Contains(r.Snippet, "xylophonic") || strings.Contains(r.Snippet, "beaconSecret") {
				t.Errorf("Search(%q) returned %s %q", q, r.DocID, r.Snippet)
			}
		}
	}
	if _, err := ix.Fetch(t.Context(), "notes/damaged-log.txt"); !errors.Is(err, search.ErrNotFound) {
		t.Errorf("Fetch of a skipped file: err = %v, want ErrNotFound", err)
	}
}

func TestSearchRanking(t *testing.T) {
	ix := syncedCorpus(t)
	tests := []struct {
		query   string
		wantDoc string
		wantLoc string // "" to not check
	}{
		{"TAT-8 fibre", "history/tat-8.txt", ""},
		{"first transatlantic fibre-optic cable", "history/tat-8.txt", ""},
		{"Valentia Trinity Bay Agamemnon Niagara 1858", "history/atlantic-telegraph-1858.md", ""},
		{"mirror galvanometer", "history/atlantic-telegraph-1858.md", "Messages across the ocean"},
		{"Grand Banks 1929 cable breaks Heezen Ewing", "operations/cable-faults.md", "What breaks cables › Earthquakes and submarine landslides"},
		{"turbidity current", "glossary.org", "Terms of the trade › ROV"},
		{"Porthcurno", "operations/landing-stations.html", "Porthcurno"},
		{"MAREA capacity Virginia Beach Bilbao", "capacity/capacity-growth.html", "Examples of recent systems"},
		{"how much slack does a cable ship pay out?", "engineering/route-survey-and-laying.adoc", "Laying › Slack"},
		{"law of squares retardation", "engineering/repeaters.md", ""},
		{"garden hose diameter deep ocean cable", "engineering/cable-construction.rst", "Fibre-optic cables › Sizes and armour classes"},
		{"what is a bight", "glossary.org", ""},
	}
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			res, err := ix.Search(t.Context(), tt.query, 5)
			if err != nil {
				t.Fatal(err)
			}
			if len(res) == 0 {
				t.Fatal("no results")
			}
			if res[0].DocID != tt.wantDoc || tt.wantLoc != "" && res[0].Location != tt.wantLoc {
				var got []string
				for _, r := range res {
					got = append(got, fmt.Sprintf("%.2f %s (%s)", r.Score, r.DocID, r.Location))
				}
				t.Errorf("top result %s (%s), want %s (%s); all:\n%s", res[0].DocID, res[0].Location, tt.wantDoc, tt.wantLoc, strings.Join(got, "\n"))
			}
		})
	}
}

func TestSearchDiversityAndLimit(t *testing.T) {
	ix := syncedCorpus(t)
	res, err := ix.Search(t.Context(), "cable", 100)
	if err != nil {
		t.Fatal(err)
	}
	perDoc := map[string]int{}
	for _, r := range res {
		if perDoc[r.DocID]++; perDoc[r.DocID] > 1 {
			t.Errorf("more than one result from %s", r.DocID)
		}
		if len(r.Snippet) > maxSnippetLen {
			t.Errorf("snippet of %d bytes from %s", len(r.Snippet), r.DocID)
		}
	}
	if len(perDoc) != corpusDocs {
		t.Errorf("\"cable\" found %d documents, want all %d", len(perDoc), corpusDocs)
	}
	for _, limit := range []int{-1, 0, 1, 3} {
		res, err := ix.Search(t.Context(), "cable", limit)
		if err != nil || len(res) != max(limit, 0) {
			t.Errorf("Search(limit %d) = %d results, %v", limit, len(res), err)
		}
	}
}

// TestSearchHostileQueries checks that no free text a model might write is
// an error; text without words finds nothing.
func TestSearchHostileQueries(t *testing.T) {
	ix := syncedCorpus(t)
	tests := []struct {
		query string
		some  bool // expect results
	}{
		{`"unbalanced cable`, true},
		{`cable AND`, true},
		{`AND OR NOT`, true}, // "not" is no stop word
		{`OR`, false},
		{`NEAR(cable ship, 2)`, true},
		{`-armour +repeater`, true},
		{`title:cable`, true},
		{`heading: "Porthcurno"`, true},
		{`TAT-8's capacity?`, true},
		{`gutta*percha^2 {x} [y] (z) ~w`, true},
		{`🐟 shark 🦈 bites`, true},
		{`🐟🦈`, false},
		{``, false},
		{`   `, false},
		{`"" '' `, false},
		{`the of and`, false},
		{`col:"x" OR "y"`, false},
		{"emoji\u200dzero\u00a0width", false},
		{strings.Repeat("cable ", 500), true},
		{string([]byte{0xff, 0xfe, 'c', 'a', 'b', 'l', 'e'}), true},
	}
	for _, tt := range tests {
		res, err := ix.Search(t.Context(), tt.query, 5)
		if err != nil {
			t.Errorf("Search(%q): %v", tt.query, err)
			continue
		}
		if (len(res) > 0) != tt.some {
			t.Errorf("Search(%q) = %d results, want some: %v", tt.query, len(res), tt.some)
		}
	}
}

func TestFetchNotFound(t *testing.T) {
	ix := syncedCorpus(t)
	for _, id := range []string{"", "nope.md", "history", "../corpus/glossary.org", "notes/damaged-log.txt", ".hidden-note.md"} {
		if _, err := ix.Fetch(t.Context(), id); !errors.Is(err, search.ErrNotFound) {
			t.Errorf("Fetch(%q): err = %v, want search.ErrNotFound", id, err)
		}
	}
}

func TestIncrementalSync(t *testing.T) {
	ctx := t.Context()
	dir := copyCorpus(t)
	ix := openIndex(t)
	step := func(name string, want SyncStats) {
		t.Helper()
		got, err := ix.Sync(ctx, dir)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want.Passages < 0 { // any positive number
			if got.Passages <= 0 {
				t.Errorf("%s: wrote no passages", name)
			}
			want.Passages = got.Passages
		}
		if counts(got) != counts(want) {
			t.Errorf("%s: Sync = %+v, want %+v", name, got, want)
		}
	}
	found := func(query, doc string) bool {
		t.Helper()
		res, err := ix.Search(ctx, query, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.DocID == doc {
				return true
			}
		}
		return false
	}
	later := time.Now().Add(time.Hour)
	path := func(id string) string { return filepath.Join(dir, filepath.FromSlash(id)) }

	step("first", SyncStats{Scanned: 12, Added: 10, Skipped: 2, Passages: -1})
	step("again", SyncStats{Scanned: 12, Unchanged: 10, Skipped: 2})

	// Touched, same content: read and hashed, not re-indexed.
	if err := os.Chtimes(path("glossary.org"), later, later); err != nil {
		t.Fatal(err)
	}
	step("touched", SyncStats{Scanned: 12, Unchanged: 10, Skipped: 2})
	step("after touch", SyncStats{Scanned: 12, Unchanged: 10, Skipped: 2})

	// Modified.
	f, err := os.OpenFile(path("glossary.org"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintln(f, "** Quokkafish\nAn invented word, added by a test.")
	f.Close()
	step("modified", SyncStats{Scanned: 12, Updated: 1, Unchanged: 9, Skipped: 2, Passages: -1})
	if !found("quokkafish", "glossary.org") {
		t.Error("the modified document's new text is not found")
	}

	// Removed.
	if err := os.Remove(path("history/tat-8.txt")); err != nil {
		t.Fatal(err)
	}
	step("removed", SyncStats{Scanned: 11, Removed: 1, Unchanged: 9, Skipped: 2})
	if _, err := ix.Fetch(ctx, "history/tat-8.txt"); !errors.Is(err, search.ErrNotFound) {
		t.Errorf("Fetch of a removed document: %v", err)
	}
	if found("TAT-8 Tuckerton Widemouth", "history/tat-8.txt") {
		t.Error("a removed document is still found")
	}

	// Added, in a new folder, with an upper-case extension.
	if err := os.MkdirAll(path("new"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path("new/cs-alert.MD"), []byte("# CS Alert\n\nThe cable ship Alert mapped the zanzibarine trench.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	step("added", SyncStats{Scanned: 12, Added: 1, Unchanged: 9, Skipped: 2, Passages: 1})
	if !found("zanzibarine", "new/cs-alert.MD") {
		t.Error("the added document is not found")
	}

	// A skipped file repaired, an indexed file broken.
	if err := os.WriteFile(path("notes/damaged-log.txt"), []byte("Cable ship log, repaired.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path("glossary.org"), []byte("binary\x00now"), 0o644); err != nil {
		t.Fatal(err)
	}
	step("swapped", SyncStats{Scanned: 12, Added: 1, Unchanged: 9, Skipped: 2, Passages: 1})
	if _, err := ix.Fetch(ctx, "glossary.org"); !errors.Is(err, search.ErrNotFound) {
		t.Errorf("Fetch of a document that became binary: %v", err)
	}
	if _, err := ix.Fetch(ctx, "notes/damaged-log.txt"); err != nil {
		t.Errorf("Fetch of a repaired document: %v", err)
	}

	// Hidden files never count; a file of another format is counted
	// and skipped, unread.
	if err := os.WriteFile(path(".drafts/more.md"), []byte("# More\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path("raw/notes.pages"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	step("ignored", SyncStats{Scanned: 13, Unchanged: 10, Skipped: 3})
}

func TestSyncLargeAndInvalidFiles(t *testing.T) {
	dir := t.TempDir()
	files := map[string][]byte{
		"ok.md":      []byte("# OK\n\nfine text\n"),
		"big.txt":    []byte(strings.Repeat("word ", maxFileSize/5+1)),
		"latin1.txt": {'c', 'a', 'f', 0xe9, '\n'},
		"nul.html":   []byte("<p>a\x00b</p>"),
		"empty.md":   nil,
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ix := openIndex(t)
	for range 2 {
		st, err := ix.Sync(t.Context(), dir)
		if err != nil {
			t.Fatal(err)
		}
		if st.Scanned != 5 || st.Skipped != 3 || st.Added+st.Unchanged != 2 {
			t.Errorf("Sync = %+v, want 5 scanned, 3 skipped, 2 indexed", st)
		}
	}
	if d, err := ix.Fetch(t.Context(), "empty.md"); err != nil || d.Title != "empty" || d.Text != "" {
		t.Errorf("Fetch(empty.md) = %+v, %v", d, err)
	}
}

// TestSyncSymlinks checks that links are followed only to regular files
// inside the corpus folder, and that every other link is skipped, counted
// and listed with its reason.
func TestSyncSymlinks(t *testing.T) {
	base := t.TempDir()
	real := filepath.Join(base, "real")
	outside := filepath.Join(base, "outside")
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, filepath.Join(real, name)); err != nil {
			t.Skip("no symlinks:", err)
		}
	}
	write(filepath.Join(real, "doc.md"), "# Inside\n\nthe real document, quokkafish\n")
	write(filepath.Join(real, "sub", "deep.md"), "# Deep\n\nanother real document\n")
	write(filepath.Join(outside, "secret.md"), "# Secret\n\nhunter2 must not be indexed\n")
	write(filepath.Join(outside, "dir", "x.md"), "# Linked folder\n\nmust not be indexed\n")
	link("doc.md", "relative.md")                              // inside: followed
	link(filepath.Join(real, "sub", "deep.md"), "absolute.md") // inside: followed
	link("relative.md", "chain.md")                            // link to a link inside: followed
	link(filepath.Join(outside, "secret.md"), "escape.md")     // outside
	link("../outside/secret.md", "dotdot.md")                  // outside, relatively
	link(filepath.Join(real, "escape.md"), "chain-out.md")     // inside, then outside
	link(filepath.Join(outside, "dir"), "folder")              // a folder: not walked
	link(filepath.Join(real, "sub"), "folder.md")              // a folder with a document's name
	link(filepath.Join(outside, "missing.md"), "broken.md")    // broken
	link("loop.md", "loop.md")                                 // a loop
	if _, err := os.Stat("/etc/passwd"); err == nil {
		link("/etc/passwd", "passwd.md")
	}
	// The corpus folder is reached through a link of its own: its links
	// are judged against the folder it resolves to.
	root := filepath.Join(base, "corpus-link")
	if err := os.Symlink(real, root); err != nil {
		t.Fatal(err)
	}

	ix := openIndex(t)
	for _, pass := range []string{"first", "second"} {
		st, err := ix.Sync(t.Context(), root)
		if err != nil {
			t.Fatal(err)
		}
		skips := map[string]string{}
		for _, sk := range st.Skips {
			skips[sk.Path] = sk.Reason
		}
		wantSkips := map[string]string{
			"escape.md":    "outside the corpus folder",
			"dotdot.md":    "outside the corpus folder",
			"chain-out.md": "outside the corpus folder",
			"folder.md":    "symbolic link to a folder",
			"folder":       "symbolic link to a folder",
			"broken.md":    "broken symbolic link",
			"loop.md":      "symbolic link",
		}
		if _, err := os.Lstat(filepath.Join(real, "passwd.md")); err == nil {
			wantSkips["passwd.md"] = "symbolic link to /etc/passwd, outside the corpus folder"
		}
		for path, want := range wantSkips {
			if !strings.Contains(skips[path], want) {
				t.Errorf("%s: skip %s: reason %q, want one with %q", pass, path, skips[path], want)
			}
		}
		indexed := 5 // doc.md, sub/deep.md, relative.md, absolute.md, chain.md
		if st.Skipped != len(wantSkips) || len(st.Skips) != len(wantSkips) || st.Added+st.Unchanged != indexed ||
			st.Scanned != indexed+len(wantSkips) {
			t.Errorf("%s: Sync = %+v, want %d indexed and %d skipped", pass, st, indexed, len(wantSkips))
		}
	}
	for _, q := range []string{"hunter2", "secret", "root", "linked folder"} {
		res, err := ix.Search(t.Context(), q, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			t.Errorf("Search(%q) found %s: %q", q, r.DocID, r.Snippet)
		}
	}
	if d, err := ix.Fetch(t.Context(), "chain.md"); err != nil || d.Title != "Inside" {
		t.Errorf("Fetch(chain.md) = %+v, %v", d, err)
	}
}

func TestSyncOtherFolder(t *testing.T) {
	ix := syncedCorpus(t)
	_, err := ix.Sync(t.Context(), t.TempDir())
	if !errors.Is(err, ErrOtherCorpus) {
		t.Fatalf("Sync of another folder: err = %v, want ErrOtherCorpus", err)
	}
	// The same folder by another spelling is the same corpus.
	if _, err := ix.Sync(t.Context(), corpusDir+"/./history/.."); err != nil {
		t.Errorf("Sync of the same folder: %v", err)
	}
	if _, err := ix.Sync(t.Context(), filepath.Join(corpusDir, "glossary.org")); err == nil {
		t.Error("Sync of a file: no error")
	}
}

func TestSyncCancelled(t *testing.T) {
	ix := openIndex(t)
	ctx, cancel := context.WithCancelCause(t.Context())
	cause := errors.New("operator pressed stop")
	cancel(cause)
	if _, err := ix.Sync(ctx, corpusDir); !errors.Is(err, cause) {
		t.Errorf("Sync with a cancelled context: err = %v, want the cause", err)
	}
}

func TestReopen(t *testing.T) {
	ctx := t.Context()
	db := filepath.Join(t.TempDir(), "nested", "folder", "index.db")
	ix, err := Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Sync(ctx, corpusDir); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix, err = Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	res, err := ix.Search(ctx, "Porthcurno", 1)
	if err != nil || len(res) != 1 || !strings.HasPrefix(res[0].URL, "file:///") {
		t.Fatalf("Search after reopening = %+v, %v", res, err)
	}
	st, err := ix.Sync(ctx, corpusDir)
	if err != nil || st.Unchanged != corpusDocs {
		t.Errorf("Sync after reopening = %+v, %v", st, err)
	}
}

func TestOpenRefuses(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	setup := func(name string, stmts ...string) string {
		path := filepath.Join(dir, name)
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for _, s := range stmts {
			if _, err := db.Exec(s); err != nil {
				t.Fatal(err)
			}
		}
		return path
	}
	newer := setup("newer.db", `CREATE TABLE x(y)`, `PRAGMA user_version = 99`)
	foreign := setup("foreign.db", `CREATE TABLE x(y)`)
	for _, path := range []string{newer, foreign} {
		ix, err := Open(ctx, path)
		if !errors.Is(err, ErrSchema) {
			t.Errorf("Open(%s): err = %v, want ErrSchema", filepath.Base(path), err)
		}
		if err == nil {
			ix.Close()
		}
		// The refused file is left as it was: not switched to WAL.
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		var mode string
		if err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "delete" {
			t.Errorf("%s after Open: journal_mode %q, %v; want delete", filepath.Base(path), mode, err)
		}
		db.Close()
	}
}

// TestDropAll checks that the schema of a populated index can be dropped,
// as Open does for an older schema version.
func TestDropAll(t *testing.T) {
	ctx := t.Context()
	ix := syncedCorpus(t)
	tx, err := ix.db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if err := dropAll(ctx, tx); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'`).Scan(&n); err != nil || n != 0 {
		t.Errorf("after dropAll: %d schema objects, %v", n, err)
	}
}

func TestOpenOddPath(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "with space", "a?b#c%d")
	ix, err := Open(t.Context(), filepath.Join(dir, "idx?.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if _, err := ix.Sync(t.Context(), corpusDir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "idx?.db")); err != nil {
		t.Errorf("database not where asked: %v", err)
	}
}

// TestConcurrentUse runs searches and fetches from several goroutines
// while another re-indexes; run it with -race.
func TestConcurrentUse(t *testing.T) {
	ctx := t.Context()
	dir := copyCorpus(t)
	ix := openIndex(t)
	if _, err := ix.Sync(ctx, dir); err != nil {
		t.Fatal(err)
	}
	queries := []string{"TAT-8 fibre", "Great Eastern", "repeaters power feed", "shark bites", "Porthcurno", "gutta-percha"}
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for g := range 8 {
		wg.Go(func() {
			for i := range 40 {
				q := queries[(g+i)%len(queries)]
				res, err := ix.Search(ctx, q, 5)
				if err != nil {
					errs <- err
					return
				}
				if len(res) == 0 {
					errs <- fmt.Errorf("Search(%q): no results", q)
					return
				}
				if _, err := ix.Fetch(ctx, res[0].DocID); err != nil && !errors.Is(err, search.ErrNotFound) {
					errs <- err
					return
				}
			}
		})
	}
	wg.Go(func() {
		for i := range 5 {
			p := filepath.Join(dir, "operations", "cable-faults.md")
			data, err := os.ReadFile(p)
			if err == nil {
				err = os.WriteFile(p, fmt.Appendf(data, "\nEdit %d.\n", i), 0o644)
			}
			if err == nil {
				_, err = ix.Sync(ctx, dir)
			}
			if err != nil {
				errs <- err
				return
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// goDocFolder is the Go distribution's doc folder (GOROOT/doc), which the
// tests and benchmarks index as it is.
func goDocFolder(ctx context.Context) (string, error) {
	root, err := GoRoot(ctx)
	if err != nil {
		return "", err
	}
	return defaultCorpus(ctx, root, "")
}

func TestGoDocumentation(t *testing.T) {
	dir, err := goDocFolder(t.Context())
	if err != nil {
		t.Skip("no Go documentation folder:", err)
	}
	ix := openIndex(t)
	st, err := ix.Sync(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Added == 0 || st.Passages < 100 {
		t.Fatalf("Sync(%s) = %+v", dir, st)
	}
	for _, tt := range []struct{ query, doc, title string }{
		{"happens before", "go_mem.html", "The Go Memory Model"},
		{"slice expressions", "go_spec.html", "The Go Programming Language Specification"},
	} {
		res, err := ix.Search(t.Context(), tt.query, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) == 0 || res[0].DocID != tt.doc || res[0].Title != tt.title || res[0].Location == "" {
			t.Errorf("Search(%q) = %+v, want %s (%q) first, with a location", tt.query, res, tt.doc, tt.title)
		}
	}
}

func TestDefaultPath(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	t.Setenv("HOME", cache)
	t.Setenv("LocalAppData", cache)
	a, err := DefaultPath(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(corpusDir)
	b, _ := DefaultPath(abs)
	c, _ := DefaultPath(t.TempDir())
	if a != b || a == c {
		t.Errorf("DefaultPath: same folder %q and %q, other folder %q", a, b, c)
	}
	if filepath.Dir(filepath.Dir(a)) != filepath.Clean(cache) && !strings.Contains(a, "deepresearch") ||
		!strings.HasPrefix(filepath.Base(a), "index-") || filepath.Ext(a) != ".db" {
		t.Errorf("DefaultPath = %q, want <cache>/deepresearch/index-<hash>.db", a)
	}
}

// TestDefaultCorpus checks the default corpus of each kind of Go
// distribution: one with sources gives the generated documentation,
// written into the cache folder once (the standard library, the go
// command's help, GOROOT/doc, each declaring its URL); one without gives
// its doc folder; one with neither is ErrNoCorpus; a cache folder that
// cannot be written is an error that names it.
func TestDefaultCorpus(t *testing.T) {
	ctx := t.Context()
	real, err := GoRoot(ctx)
	if err != nil || !isDir(filepath.Join(real, "src", "bufio")) || !isDir(filepath.Join(real, "doc")) {
		t.Skip("no Go distribution with sources:", err)
	}
	// Distributions made of real files: a few packages and cmd/go's help,
	// small enough to write under -race.
	withSrc, docOnly, empty := t.TempDir(), t.TempDir(), t.TempDir()
	for _, p := range []struct{ root, part string }{
		{withSrc, "VERSION"}, {withSrc, "doc"}, {withSrc, "src/bufio"}, {withSrc, "src/cmd/go/alldocs.go"},
		{docOnly, "doc"},
	} {
		copyPath(t, filepath.Join(real, filepath.FromSlash(p.part)), filepath.Join(p.root, filepath.FromSlash(p.part)))
	}
	cache := t.TempDir()
	blocked := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocked, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, root, cache string
		want              func(dir string) bool
		err               error
	}{
		{"sources", withSrc, cache, func(dir string) bool {
			return filepath.Dir(dir) == filepath.Join(cache, "deepresearch") && strings.HasPrefix(filepath.Base(dir), "godoc-") &&
				isFile(filepath.Join(dir, "pkg", "bufio.md")) && isFile(filepath.Join(dir, "cmd", "go", "testflag.md")) &&
				isFile(filepath.Join(dir, "doc", "go_spec.html"))
		}, nil},
		{"sources again", withSrc, cache, nil, nil}, // the same folder, checked below
		{"no cache folder", withSrc, "", func(dir string) bool { return dir == filepath.Join(withSrc, "doc") }, nil},
		{"doc only", docOnly, cache, func(dir string) bool { return dir == filepath.Join(docOnly, "doc") }, nil},
		{"nothing", empty, cache, nil, ErrNoCorpus},
		{"cache not writable", withSrc, blocked, nil, syscall.ENOTDIR},
	}
	var first string
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, err := defaultCorpus(ctx, tt.root, tt.cache)
			switch {
			case tt.err != nil:
				if !errors.Is(err, tt.err) {
					t.Errorf("defaultCorpus = %q, %v; want %v", dir, err, tt.err)
				}
				if tt.err == syscall.ENOTDIR && (err == nil || !strings.Contains(err.Error(), blocked)) {
					t.Errorf("error %v does not name the cache folder %s", err, blocked)
				}
				return
			case err != nil:
				t.Fatal(err)
			case tt.name == "sources":
				first = dir
			case tt.name == "sources again" && dir != first:
				t.Errorf("defaultCorpus again = %q, want %q", dir, first)
			}
			if tt.want != nil && !tt.want(dir) {
				t.Errorf("defaultCorpus = %q", dir)
			}
		})
	}
	// The generated folder indexes with its declared URLs.
	ix := openIndex(t)
	if _, err := ix.Sync(ctx, first); err != nil {
		t.Fatal(err)
	}
	res, err := ix.Search(ctx, "read standard input as a set of lines", 3)
	if err != nil || len(res) == 0 || res[0].DocID != "pkg/bufio.md" || res[0].URL != "https://pkg.go.dev/bufio" {
		t.Errorf("Search = %+v, %v; want pkg/bufio.md at https://pkg.go.dev/bufio first", res, err)
	}
}

// copyPath copies a file or a folder.
func copyPath(t *testing.T, from, to string) {
	t.Helper()
	fi, err := os.Stat(from)
	if err != nil {
		t.Skip(err)
	}
	if fi.IsDir() {
		err = os.CopyFS(to, os.DirFS(from))
	} else if b, rerr := os.ReadFile(from); rerr != nil {
		err = rerr
	} else if err = os.MkdirAll(filepath.Dir(to), 0o755); err == nil {
		err = os.WriteFile(to, b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func isFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular()
}

func TestPragmas(t *testing.T) {
	ix := openIndex(t)
	ctx := t.Context()
	var mode string
	var timeout, version int
	if err := ix.db.QueryRowContext(ctx, `PRAGMA journal_mode`).Scan(&mode); err != nil || mode != "wal" {
		t.Errorf("journal_mode = %q, %v; want wal", mode, err)
	}
	if err := ix.db.QueryRowContext(ctx, `PRAGMA busy_timeout`).Scan(&timeout); err != nil || timeout != int(busyTimeout.Milliseconds()) {
		t.Errorf("busy_timeout = %d, %v", timeout, err)
	}
	if err := ix.db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&version); err != nil || version != schemaVersion {
		t.Errorf("user_version = %d, %v; want %d", version, err, schemaVersion)
	}
}

// TestSyncStripsControls checks that terminal escape sequences in a corpus
// document reach neither search results nor fetched text.
func TestSyncStripsControls(t *testing.T) {
	dir := t.TempDir()
	src := "# Evil \x1b]0;pwned\x07title\n\nThe \x1b[31mkraken\x1b[0m cable\x1b[2J was cut\x07.\n"
	if err := os.WriteFile(filepath.Join(dir, "evil.md"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t)
	if _, err := ix.Sync(t.Context(), dir); err != nil {
		t.Fatal(err)
	}
	res, err := ix.Search(t.Context(), "kraken", 5)
	if err != nil || len(res) != 1 {
		t.Fatalf("Search = %+v, %v", res, err)
	}
	doc, err := ix.Fetch(t.Context(), "evil.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{res[0].Title, res[0].Snippet, res[0].Location, doc.Title, doc.Text} {
		if strings.ContainsAny(s, "\x1b\x07") || strings.Contains(s, "pwned") {
			t.Errorf("control characters reached a result: %q", s)
		}
	}
	if !strings.Contains(doc.Text, "The kraken cable was cut.") {
		t.Errorf("Fetch text = %q", doc.Text)
	}
}

// TestConcurrentIndexes opens one new database from several Indexes at
// once, as concurrent runs of the program do, and syncs the same folder
// from all of them: none fails, and the files are indexed once in all.
func TestConcurrentIndexes(t *testing.T) {
	ctx := t.Context()
	db := filepath.Join(t.TempDir(), "shared.db")
	const n = 12
	var wg sync.WaitGroup
	stats := make([]SyncStats, n)
	errs := make([]error, n)
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() {
			<-start
			ix, err := Open(ctx, db)
			if err != nil {
				errs[i] = err
				return
			}
			defer ix.Close()
			stats[i], errs[i] = ix.Sync(ctx, corpusDir)
			if errs[i] == nil {
				var res []search.Result
				if res, errs[i] = ix.Search(ctx, "Porthcurno", 1); errs[i] == nil && len(res) == 0 {
					errs[i] = errors.New("search after sync found nothing")
				}
			}
		})
	}
	close(start)
	wg.Wait()
	added := 0
	for i := range n {
		if errs[i] != nil {
			t.Errorf("Index %d: %v", i, errs[i])
		}
		added += stats[i].Added
	}
	if added != corpusDocs {
		t.Errorf("%d Indexes added %d documents in all, want %d (each file once)", n, added, corpusDocs)
	}
}

// TestConcurrentProcesses runs several processes that open one new index
// and sync one folder at once, as concurrent runs of the program do: none
// fails, and the files are indexed once in all.
func TestConcurrentProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	db := filepath.Join(t.TempDir(), "shared.db")
	dir, err := filepath.Abs(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	const n = 6
	cmds := make([]*exec.Cmd, n)
	outs := make([]*bytes.Buffer, n)
	for i := range n {
		cmds[i] = exec.CommandContext(t.Context(), os.Args[0], "-test.run=^$")
		cmds[i].Env = append(os.Environ(), helperEnv+"="+db, helperDirEnv+"="+dir)
		outs[i] = new(bytes.Buffer)
		cmds[i].Stdout = outs[i]
		cmds[i].Stderr = outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	added := 0
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("process %d: %v: %s", i, err, outs[i])
			continue
		}
		var st SyncStats
		if err := json.Unmarshal(outs[i].Bytes(), &st); err != nil {
			t.Errorf("process %d: %v: %s", i, err, outs[i])
			continue
		}
		added += st.Added
	}
	if added != corpusDocs {
		t.Errorf("%d processes added %d documents in all, want %d (each file once)", n, added, corpusDocs)
	}
}

// TestErrors checks that errors name the operation and its subject once,
// with one "corpus: " prefix, and wrap their causes.
func TestErrors(t *testing.T) {
	ctx := t.Context()
	ix := syncedCorpus(t)
	_, err := ix.Sync(ctx, t.TempDir())
	var ce *Error
	if !errors.As(err, &ce) || ce.Op != "sync" || !errors.Is(err, ErrOtherCorpus) {
		t.Errorf("Sync of another folder: %#v", err)
	}
	_, ferr := ix.Fetch(ctx, "nope.md")
	dir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(dir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, oerr := Open(ctx, filepath.Join(dir, "index.db")) // a parent that is a file
	_, serr := ix.Sync(ctx, filepath.Join(t.TempDir(), "missing"))
	for _, err := range []error{err, ferr, oerr, serr} {
		if err == nil {
			t.Error("no error")
			continue
		}
		msg := err.Error()
		if strings.Count(msg, "corpus: ") != 1 || !strings.HasPrefix(msg, "corpus: ") || !errors.As(err, &ce) {
			t.Errorf("error %q: want one corpus: prefix, at the start, on a *corpus.Error", msg)
		}
	}
	if !errors.Is(oerr, fs.ErrExist) && !errors.Is(oerr, syscall.ENOTDIR) {
		t.Errorf("Open under a file: %v, want the cause wrapped", oerr)
	}
	if !errors.Is(serr, fs.ErrNotExist) {
		t.Errorf("Sync of a missing folder: %v, want fs.ErrNotExist wrapped", serr)
	}
}

// TestSyncWaitsForLock checks that a Sync waits while another Index of
// the same database holds the sync lock, and that cancelling it ends the
// wait with the cause.
func TestSyncWaitsForLock(t *testing.T) {
	ctx := t.Context()
	db := filepath.Join(t.TempDir(), "index.db")
	a, err := Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if !b.ready(ctx) {
		t.Error("an opened index is not ready")
	}
	unlock, err := a.lock.lock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// An index that is set up opens without the lock.
	c, err := Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()

	cctx, cancel := context.WithCancelCause(ctx)
	cause := errors.New("operator pressed Ctrl-C")
	errc := make(chan error, 1)
	go func() {
		_, err := b.Sync(cctx, corpusDir)
		errc <- err
	}()
	cancel(cause)
	if err := <-errc; !errors.Is(err, cause) {
		t.Errorf("Sync cancelled while waiting for the lock: err = %v, want the cause", err)
	}

	// Once the lock is free, a Sync goes ahead.
	done := make(chan error, 1)
	go func() {
		_, err := b.Sync(ctx, corpusDir)
		done <- err
	}()
	unlock()
	if err := <-done; err != nil {
		t.Error(err)
	}
}

// TestOpenOlderVersion checks that an index written by an older version
// (one that kept control characters in extracted text) is rebuilt: the
// next Sync indexes every file again.
func TestOpenOlderVersion(t *testing.T) {
	ctx := t.Context()
	db := filepath.Join(t.TempDir(), "index.db")
	ix, err := Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Sync(ctx, corpusDir); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.db.ExecContext(ctx, `PRAGMA user_version = 1`); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	ix, err = Open(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	st, err := ix.Sync(ctx, corpusDir)
	if err != nil || st.Added != corpusDocs {
		t.Errorf("Sync of an index of schema version 1 = %+v, %v; want all %d documents added again", st, err, corpusDocs)
	}
}

// TestSyncControlCharacterNames checks that a file whose name holds a
// control character or an escape sequence is skipped: its path would be
// the DocID shown in results and reports.
func TestSyncControlCharacterNames(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"ok.md", "\x1b[31mred.md", "bell\x07.txt", "latin\xe9.md"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("# T\n\nsome text\n"), 0o644); err != nil {
			t.Skip("file system refuses the name:", err)
		}
	}
	ix := openIndex(t)
	st, err := ix.Sync(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Added != 1 || st.Skipped != 3 {
		t.Errorf("Sync = %+v, want ok.md added and 3 skipped", st)
	}
	for _, sk := range st.Skips {
		if strings.ContainsAny(sk.Path, "\x1b\x07") || !utf8.ValidString(sk.Path) {
			t.Errorf("skip path %q holds what it was skipped for", sk.Path)
		}
	}
}
