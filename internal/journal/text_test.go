package journal_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/internal/corpus"
	"github.com/deepresearch/deepresearch/internal/fetch"
	"github.com/deepresearch/deepresearch/internal/journal"
	"github.com/deepresearch/deepresearch/internal/websearch"
	"github.com/deepresearch/deepresearch/search"
)

// longText returns a text of about n bytes of sentences.
func longText(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "Section %d: the repair ship grapples the undersea cable, splices fibre and lowers it again.\n", i)
	}
	return b.String()
}

// logBytes returns the size of run's journal in log and the entries of
// each kind, counting a text kept in parts (text entries of one key) as
// one text entry.
func logBytes(t *testing.T, log journal.Log, run string) (int, map[journal.Kind]int) {
	t.Helper()
	raw, err := log.Entries(context.Background(), run)
	if err != nil {
		t.Fatal(err)
	}
	size, kinds, texts := 0, map[journal.Kind]int{}, map[string]bool{}
	for _, b := range raw {
		e, err := journal.Decode(b)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) > journal.TextPart*11/10 {
			t.Errorf("a %s entry of %d bytes; want at most TextPart and its envelope", e.Kind, len(b))
		}
		size += len(b)
		if e.Kind == journal.KindText {
			if texts[e.Key] {
				continue
			}
			texts[e.Key] = true
		}
		kinds[e.Kind]++
	}
	return size, kinds
}

// bigCorpus indexes a folder of a note and a document of size bytes,
// and returns the index, the document's ID and the index's path.
func bigCorpus(t *testing.T, size int) (*corpus.Index, string, string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "note.md"), []byte("# Cable ships\n\nA cable ship carries spare cable.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(longText(size)), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "index.db")
	ix, err := corpus.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if _, err := ix.Sync(t.Context(), dir); err != nil {
		t.Fatal(err)
	}
	res, err := ix.Search(t.Context(), "repair ship grapples undersea cable splices fibre", 5)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res {
		if strings.HasSuffix(r.DocID, "big.txt") || strings.Contains(r.Title, "big") {
			return ix, r.DocID, path
		}
	}
	t.Fatalf("the large document is not found: %+v", res)
	return nil, "", ""
}

// TestLongDocumentKeptOnce: a corpus document of megabytes fetched by four
// agents at once and twice more by one of them is kept once in the run's
// journal, in one text entry; the run replayed offline reads the same
// document six times; a resumed attempt that fetches it again adds no
// copy.
func TestLongDocumentKeptOnce(t *testing.T) {
	const size = 3 << 20
	ix, id, _ := bigCorpus(t, size)
	b := journal.Backend{Backend: ix}
	log := &journal.MemLog{}
	j, _ := journal.New("r", nil, journal.Options{Log: log, Clock: clock()})
	ctx := journal.NewContext(context.Background(), j)

	want, err := ix.Fetch(ctx, id)
	if err != nil || len(want.Text) < size {
		t.Fatalf("fetch: %d bytes, %v", len(want.Text), err)
	}
	scopes := []string{"researcher/t1", "researcher/t2", "researcher/t3", "researcher/t4", "researcher/t1", "researcher/t1"}
	fetchAll := func(ctx context.Context) []search.Document {
		docs := make([]search.Document, len(scopes))
		var wg sync.WaitGroup
		for i, s := range scopes[:4] {
			wg.Go(func() {
				var err error
				if docs[i], err = b.Fetch(journal.WithScope(ctx, s), id); err != nil {
					t.Error(err)
				}
			})
		}
		wg.Wait()
		for i := 4; i < len(scopes); i++ {
			if docs[i], err = b.Fetch(journal.WithScope(ctx, scopes[i]), id); err != nil {
				t.Fatal(err)
			}
		}
		return docs
	}
	for i, d := range fetchAll(ctx) {
		if d != want {
			t.Fatalf("fetch %d: a %d-byte document, want the %d-byte one", i, len(d.Text), len(want.Text))
		}
	}
	total, kinds := logBytes(t, log, "r")
	if kinds[journal.KindText] != 1 || kinds[journal.KindDocument] != len(scopes) {
		t.Errorf("entries %v; want one text entry and %d document entries", kinds, len(scopes))
	}
	// The text once, its line ends escaped, and six small entries.
	if limit := len(want.Text)*21/20 + 16<<10; total > limit {
		t.Errorf("the journal holds %d bytes for a %d-byte document fetched %d times; want at most %d", total, len(want.Text), len(scopes), limit)
	}

	// Replayed offline: the same documents, six times, from one text.
	raw, _ := log.Entries(ctx, "r")
	off, err := journal.New("r", raw, journal.Options{Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range fetchAll(journal.NewContext(context.Background(), off)) {
		if d != want {
			t.Errorf("replayed fetch %d: a %d-byte document, want the %d-byte one", i, len(d.Text), len(want.Text))
		}
	}
	if s := off.Stats(); s.Replayed != len(scopes) || s.Unused != 0 {
		t.Errorf("replay stats %+v", s)
	}

	// Resumed: the calls recorded replay, a new agent's fetch refers to
	// the text the journal holds.
	re, err := journal.New("r", raw, journal.Options{Log: log, Clock: clock()})
	if err != nil {
		t.Fatal(err)
	}
	rctx := journal.NewContext(context.Background(), re)
	fetchAll(rctx)
	if d, err := b.Fetch(journal.WithScope(rctx, "researcher/t5"), id); err != nil || d != want {
		t.Fatalf("a new agent's fetch: %d bytes, %v", len(d.Text), err)
	}
	total2, kinds := logBytes(t, log, "r")
	if kinds[journal.KindText] != 1 || total2-total > 1<<10 {
		t.Errorf("the resumed attempt grew the journal by %d bytes (%v); want one document entry referring to the text", total2-total, kinds)
	}
}

// TestLongPageKeptOnce: a web page of megabytes is kept once, in a text
// entry its page entry refers to (the document read from it refers to
// the page), and it replays offline with the web gone.
func TestLongPageKeptOnce(t *testing.T) {
	text := longText(2 << 20)
	srv, err := deepresearchtest.NewWebServer(search.Document{DocID: "cables", Title: "Undersea cables", Text: text})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	u, _ := url.Parse(srv.URL)
	f, err := fetch.New(fetch.Config{Allow: []string{u.Host}})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	web, err := websearch.Build([]string{"searxng"}, websearch.Config{SearXNGURL: srv.URL, Pages: journal.Pages{PageFetcher: f}}, nil, websearch.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	b := journal.Backend{Backend: web}
	log := &journal.MemLog{}
	j, _ := journal.New("r", nil, journal.Options{Log: log, Clock: clock()})
	ctx := journal.WithScope(journal.NewContext(context.Background(), j), "researcher/t1")
	res, err := b.Search(ctx, "undersea cables", 5)
	if err != nil || len(res) == 0 {
		t.Fatal(res, err)
	}
	doc, err := b.Fetch(ctx, res[0].DocID)
	if err != nil || len(doc.Text) < len(text)/2 {
		t.Fatalf("fetch: %d bytes, %v", len(doc.Text), err)
	}
	total, kinds := logBytes(t, log, "r")
	if kinds[journal.KindText] != 1 || kinds[journal.KindPage] != 1 || kinds[journal.KindDocument] != 1 {
		t.Errorf("entries %v", kinds)
	}
	if limit := len(doc.Text)*21/20 + 8<<10; total > limit {
		t.Errorf("the journal holds %d bytes for a %d-byte page; want at most %d", total, len(doc.Text), limit)
	}

	srv.Close() // the web is gone
	raw, _ := log.Entries(ctx, "r")
	off, err := journal.New("r", raw, journal.Options{Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx = journal.WithScope(journal.NewContext(context.Background(), off), "researcher/t1")
	if _, err := b.Search(ctx, "undersea cables", 5); err != nil {
		t.Fatal(err)
	}
	again, err := b.Fetch(ctx, res[0].DocID)
	if err != nil || again != doc {
		t.Errorf("replayed: %d bytes, %v; want the %d-byte document", len(again.Text), err, len(doc.Text))
	}
}

// failingTexts is a log that refuses text entries while fail is set.
type failingTexts struct {
	journal.MemLog
	mu   sync.Mutex
	fail bool
}

func (l *failingTexts) Append(ctx context.Context, run string, entry []byte) error {
	l.mu.Lock()
	fail := l.fail
	l.mu.Unlock()
	if e, err := journal.Decode(entry); err == nil && e.Kind == journal.KindText && fail {
		return errors.New("disk full")
	}
	return l.MemLog.Append(ctx, run, entry)
}

// TestTextAppendFails: when the text cannot be appended, the document is
// returned all the same, its entry (which would refer to nothing) is not
// recorded and the failure is told; the next fetch appends the text.
func TestTextAppendFails(t *testing.T) {
	ix, id, _ := bigCorpus(t, 200<<10)
	b := journal.Backend{Backend: ix}
	log := &failingTexts{fail: true}
	var failed []error
	j, _ := journal.New("r", nil, journal.Options{Log: log, Hooks: journal.Hooks{AppendFailed: func(err error) { failed = append(failed, err) }}})
	ctx := journal.WithScope(journal.NewContext(context.Background(), j), "researcher/t1")
	doc, err := b.Fetch(ctx, id)
	if err != nil || len(doc.Text) < 200<<10 {
		t.Fatalf("fetch: %d bytes, %v", len(doc.Text), err)
	}
	var aerr *journal.AppendError
	if len(failed) != 1 || !errors.As(failed[0], &aerr) || aerr.Kind != journal.KindText || aerr.Scope != "researcher/t1" {
		t.Errorf("failures told: %v", failed)
	}
	if _, kinds := logBytes(t, log, "r"); len(kinds) != 0 {
		t.Errorf("entries %v; want none", kinds)
	}
	log.mu.Lock()
	log.fail = false
	log.mu.Unlock()
	if _, err := b.Fetch(ctx, id); err != nil {
		t.Fatal(err)
	}
	raw, _ := log.Entries(ctx, "r")
	off, _ := journal.New("r", raw, journal.Options{Offline: true})
	// The first fetch was not recorded: the journal answers the second.
	octx := journal.WithScope(journal.NewContext(context.Background(), off), "researcher/t1")
	if _, err := b.Fetch(octx, id); !errors.Is(err, journal.ErrNotJournaled) {
		t.Errorf("the unrecorded fetch replayed: %v", err)
	}
	again, err := b.Fetch(octx, id)
	if err != nil || again != doc {
		t.Errorf("replayed: %d bytes, %v", len(again.Text), err)
	}
}

// TestImportLongText: importing a worker's journal brings the text
// entries the imported entries refer to, once, and none that only entries
// left behind refer to.
func TestImportLongText(t *testing.T) {
	ix, id, _ := bigCorpus(t, 300<<10)
	b := journal.Backend{Backend: ix}
	worker := &journal.MemLog{}
	wj, _ := journal.New("r", nil, journal.Options{Log: worker})
	wctx := journal.NewContext(context.Background(), wj)
	for _, s := range []string{"researcher/t1", "researcher/t2"} {
		if _, err := b.Fetch(journal.WithScope(wctx, s), id); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := worker.Entries(wctx, "r")

	parts := 0
	for _, b := range entries {
		if e, _ := journal.Decode(b); e.Kind == journal.KindText {
			parts++
		}
	}
	if parts < 2 {
		t.Fatalf("a 300 KiB text in %d entries; want it in parts", parts)
	}
	for _, tc := range []struct {
		keep  string
		texts int // text entries imported
		rest  int // entries imported after, when everything is kept
	}{{"researcher/t1", parts, 1}, {"researcher/t9", 0, parts + 2}} {
		run := &journal.MemLog{}
		j, _ := journal.New("r", nil, journal.Options{Log: run})
		n, err := j.Import(context.Background(), entries, func(s string) bool { return s == tc.keep })
		if err != nil {
			t.Fatal(err)
		}
		if _, kinds := logBytes(t, run, "r"); kinds[journal.KindText] != min(tc.texts, 1) || n != tc.texts+min(tc.texts, 1) {
			t.Errorf("keeping %s: imported %d, entries %v; want %d text entries and a document", tc.keep, n, kinds, tc.texts)
		}
		// Imported again: nothing new.
		if n, err := j.Import(context.Background(), entries, func(s string) bool { return true }); err != nil || n != tc.rest {
			t.Errorf("importing everything after %s: %d entries, %v; want %d", tc.keep, n, err, tc.rest)
		}
		if _, kinds := logBytes(t, run, "r"); kinds[journal.KindText] != 1 {
			t.Errorf("importing everything after %s: entries %v; want one text entry", tc.keep, kinds)
		}
		raw, _ := run.Entries(context.Background(), "r")
		off, err := journal.New("r", raw, journal.Options{Offline: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range []string{"researcher/t1", "researcher/t2"} {
			if d, err := b.Fetch(journal.WithScope(journal.NewContext(context.Background(), off), s), id); err != nil || len(d.Text) < 300<<10 {
				t.Errorf("keeping %s, replayed %s: %d bytes, %v", tc.keep, s, len(d.Text), err)
			}
		}
	}
}

// TestCorruptTextRef: a document that refers to a text the journal lacks
// is refused, not answered with an empty text.
func TestCorruptTextRef(t *testing.T) {
	b, err := journal.Encode(journal.Entry{Kind: journal.KindDocument, Key: journal.DocumentKey("d"),
		Document: &journal.DocumentRecord{DocID: "d", TextKey: journal.TextKey("lost")}})
	if err != nil {
		t.Fatal(err)
	}
	j, _ := journal.New("r", [][]byte{b}, journal.Options{Offline: true})
	if _, err := (journal.Backend{}).Fetch(journal.NewContext(context.Background(), j), "d"); !errors.Is(err, journal.ErrCorrupt) {
		t.Errorf("err = %v, want ErrCorrupt", err)
	}
}

// TestTextPartsLost: a text whose last parts were never appended (the
// process died while appending them) is appended again by the resumed
// attempt, and the run replays; a part that does not belong to its text
// is refused.
func TestTextPartsLost(t *testing.T) {
	ix, id, _ := bigCorpus(t, 1<<20)
	b := journal.Backend{Backend: ix}
	log := &journal.MemLog{}
	j, _ := journal.New("r", nil, journal.Options{Log: log})
	doc, err := b.Fetch(journal.WithScope(journal.NewContext(context.Background(), j), "researcher/t1"), id)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := log.Entries(context.Background(), "r")
	if len(raw) < 4 {
		t.Fatalf("a %d-byte text in %d entries; want parts", len(doc.Text), len(raw)-1)
	}
	cut := raw[:2] // two parts appended, then the process died

	log2 := &journal.MemLog{}
	for _, e := range cut {
		log2.Append(context.Background(), "r", e)
	}
	re, err := journal.New("r", cut, journal.Options{Log: log2})
	if err != nil {
		t.Fatal(err)
	}
	if d, err := b.Fetch(journal.WithScope(journal.NewContext(context.Background(), re), "researcher/t1"), id); err != nil || d != doc {
		t.Fatalf("resumed fetch: %d bytes, %v", len(d.Text), err)
	}
	again, _ := log2.Entries(context.Background(), "r")
	off, err := journal.New("r", again, journal.Options{Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	if d, err := b.Fetch(journal.WithScope(journal.NewContext(context.Background(), off), "researcher/t1"), id); err != nil || d != doc {
		t.Errorf("replayed: %d bytes, %v", len(d.Text), err)
	}

	// A part swapped for another text's part of the same place.
	e, _ := journal.Decode(raw[1])
	e.Text.Text = journal.String(strings.ToUpper(string(e.Text.Text)))
	forged, _ := journal.Encode(e)
	bad := append([][]byte{raw[0], forged}, raw[2:]...)
	if _, err := journal.New("r", bad, journal.Options{Offline: true}); !errors.Is(err, journal.ErrCorrupt) {
		t.Errorf("a forged part: %v, want ErrCorrupt", err)
	}
}

// textFixture is a journal of version 2 kept for later programs to read:
// a header, then a corpus document of 66 KiB read once, its text in a text
// entry (under testdata/text/, apart from the provider traffic of
// TestReplayFixtures).
var textFixture = filepath.Join("testdata", "text", "v2", "long_document.jsonl")

// TestTextFixture replays the kept journal of a long document (written
// under -write-fixtures where there is none): the document entry answers
// with the text of the text entry it refers to. A change to the format
// that breaks a kept journal fails here.
func TestTextFixture(t *testing.T) {
	if _, err := os.Stat(textFixture); err != nil && *writeFixtures {
		ix, id, _ := bigCorpus(t, 66<<10)
		log := &journal.MemLog{}
		j, _ := journal.New("fixture", nil, journal.Options{Log: log, Clock: clock()})
		ctx := journal.NewContext(context.Background(), j)
		if err := j.WriteHeader(ctx, journal.Header{Program: "deepresearch journal fixtures"}); err != nil {
			t.Fatal(err)
		}
		if _, err := (journal.Backend{Backend: ix}).Fetch(journal.WithScope(ctx, "researcher/t1"), id); err != nil {
			t.Fatal(err)
		}
		raw, _ := log.Entries(ctx, "fixture")
		os.MkdirAll(filepath.Dir(textFixture), 0o755)
		if err := os.WriteFile(textFixture, append(bytes.Join(raw, []byte("\n")), '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(textFixture)
	if err != nil {
		t.Fatal(err)
	}
	raw := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	j, err := journal.New("fixture", raw, journal.Options{Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	var doc journal.Entry
	for _, b := range raw {
		if e, _ := journal.Decode(b); e.Kind == journal.KindDocument {
			doc = e
		}
	}
	if doc.Document == nil || doc.Document.TextKey == "" {
		t.Fatalf("the fixture has no document entry that refers to a text: %+v", doc)
	}
	got, err := (journal.Backend{}).Fetch(journal.WithScope(journal.NewContext(context.Background(), j), doc.Scope), string(doc.Document.DocID))
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Text) <= journal.InlineText || !strings.HasPrefix(got.Text, "Section 0:") || journal.TextKey(got.Text) != doc.Document.TextKey {
		t.Errorf("the document replays with a %d-byte text %.40q…", len(got.Text), got.Text)
	}
}
