package journal_test

import (
	"context"
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/internal/fetch"
	"github.com/deepresearch/deepresearch/internal/journal"
	"github.com/deepresearch/deepresearch/internal/websearch"
	"github.com/deepresearch/deepresearch/search"
)

// web is a SearXNG search engine over a local stand-in for the web, whose
// pages are read through a real page fetcher (its SSRF guard opened for
// the local server), wrapped as the root wires them: the engine's pages
// through journal.Pages, the whole backend in journal.Backend.
func web(t *testing.T) (search.Backend, *deepresearchtest.WebServer, *fetch.Fetcher) {
	t.Helper()
	srv, err := deepresearchtest.NewWebServer(
		search.Document{DocID: "pacer", Title: "The GC pacer", Text: "The pacer starts a collection early enough.\n\nIt aims at the heap goal."},
		search.Document{DocID: "gogc", Title: "GOGC", Text: "GOGC sets the heap growth between collections.\n\nThe default is 100."},
	)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	f, err := fetch.New(fetch.Config{Allow: []string{u.Host}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	b, err := websearch.Build([]string{"searxng"}, websearch.Config{SearXNGURL: srv.URL, Pages: journal.Pages{PageFetcher: f}}, nil, websearch.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	return journal.Backend{Backend: b}, srv, f
}

// TestBackendRecordReplay records web searches and page reads, then
// answers them offline with the web gone: the same results, the same
// documents, and each page's text kept once in the journal.
func TestBackendRecordReplay(t *testing.T) {
	b, srv, _ := web(t)
	log := &journal.MemLog{}
	j, _ := journal.New("r", nil, journal.Options{Log: log, Clock: clock()})
	ctx := journal.WithScope(journal.NewContext(context.Background(), j), "researcher/t1")

	results, err := b.Search(ctx, "heap goal pacer", 5)
	if err != nil || len(results) == 0 {
		t.Fatalf("search: %v, %v", results, err)
	}
	doc, err := b.Fetch(ctx, results[0].DocID)
	if err != nil || !strings.Contains(doc.Text, "heap goal") {
		t.Fatalf("fetch: %+v, %v", doc, err)
	}
	gone := srv.URL + "/pages/gone"
	_, missing := b.Fetch(ctx, gone)
	if missing == nil {
		t.Fatal("fetching an unknown document succeeded")
	}
	raw, _ := log.Entries(ctx, "r")
	var kinds []journal.Kind
	var page, document journal.Entry
	for _, r := range raw {
		e, err := journal.Decode(r)
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, e.Kind)
		switch e.Kind {
		case journal.KindPage:
			if e.Page != nil {
				page = e
			}
		case journal.KindDocument:
			if e.Document != nil {
				document = e
			}
		}
	}
	// The missing page fails with 404, recorded as the page's and the
	// document's failure.
	if want := []journal.Kind{journal.KindSearch, journal.KindPage, journal.KindDocument, journal.KindPage, journal.KindDocument}; !reflect.DeepEqual(kinds, want) {
		t.Fatalf("recorded %v, want %v", kinds, want)
	}
	if page.Page == nil || page.Page.FinalURL == "" || page.Page.SHA256 == "" || page.Page.Bytes == 0 || !page.Page.FetchedAt.After(t0.AddDate(-100, 0, 0)) {
		t.Errorf("the page entry lacks its URL, hash, size or time: %+v", page.Page)
	}
	if document.Document.Text != "" || document.Document.TextPage == nil || *document.Document.TextPage != (journal.Ref{Scope: page.Scope, Kind: journal.KindPage, Key: page.Key, N: page.N}) {
		t.Errorf("the document should keep its text in the page's entry: %+v", document.Document)
	}
	fetched := len(srv.Fetched())

	srv.Close() // the web is gone
	j2, err := journal.New("r", raw, journal.Options{Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	ctx = journal.WithScope(journal.NewContext(context.Background(), j2), "researcher/t1")
	again, err := b.Search(ctx, "heap goal pacer", 5)
	if err != nil || !reflect.DeepEqual(again, results) {
		t.Errorf("replayed search %+v, %v\nwant %+v", again, err, results)
	}
	doc2, err := b.Fetch(ctx, results[0].DocID)
	if err != nil || doc2 != doc {
		t.Errorf("replayed document %+v, %v\nwant %+v", doc2, err, doc)
	}
	_, err = b.Fetch(ctx, gone)
	if err == nil || err.Error() != missing.Error() || errors.Is(missing, search.ErrNotFound) != errors.Is(err, search.ErrNotFound) {
		t.Errorf("replayed failure %v, want %v", err, missing)
	}
	if _, err := b.Search(ctx, "another query", 5); !errors.Is(err, journal.ErrNotJournaled) {
		t.Errorf("an unrecorded search offline: %v", err)
	}
	if len(srv.Fetched()) != fetched {
		t.Errorf("replay fetched pages")
	}
}

// TestDocumentAfterLostEntry: a document whose page was recorded but whose
// own entry was not (the process died between the two) is read again
// through the page's entry, without the web.
func TestDocumentAfterLostEntry(t *testing.T) {
	b, srv, _ := web(t)
	log := &journal.MemLog{}
	j, _ := journal.New("r", nil, journal.Options{Log: log})
	ctx := journal.WithScope(journal.NewContext(context.Background(), j), "researcher/t2")
	results, err := b.Search(ctx, "GOGC default", 5)
	if err != nil || len(results) == 0 {
		t.Fatal(results, err)
	}
	doc, err := b.Fetch(ctx, results[0].DocID)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := log.Entries(ctx, "r")
	raw = raw[:len(raw)-1] // the document's entry was lost
	srv.Close()

	j2, _ := journal.New("r", raw, journal.Options{Log: &journal.MemLog{}})
	ctx = journal.WithScope(journal.NewContext(context.Background(), j2), "researcher/t2")
	if _, err := b.Search(ctx, "GOGC default", 5); err != nil {
		t.Fatal(err)
	}
	got, err := b.Fetch(ctx, results[0].DocID)
	if err != nil || got != doc {
		t.Errorf("document %+v, %v; want %+v", got, err, doc)
	}
	if s := j2.Stats(); s.Replayed != 2 || s.Recorded != 1 {
		t.Errorf("stats %+v: the search and the page replay, the document is recorded", s)
	}
}

// TestCorruptPageRef: a document that refers to a page the journal lacks
// is refused, not answered with an empty text.
func TestCorruptPageRef(t *testing.T) {
	e := journal.Entry{Kind: journal.KindDocument, Key: journal.DocumentKey("d"), Document: &journal.DocumentRecord{DocID: "d",
		TextPage: &journal.Ref{Kind: journal.KindPage, Key: "nowhere"}}}
	b, err := journal.Encode(e)
	if err != nil {
		t.Fatal(err)
	}
	j, _ := journal.New("r", [][]byte{b}, journal.Options{Offline: true})
	_, err = journal.Backend{}.Fetch(journal.NewContext(context.Background(), j), "d")
	if !errors.Is(err, journal.ErrCorrupt) {
		t.Errorf("err = %v, want ErrCorrupt", err)
	}
}

// TestPagesOutsideARun: without a journal the wrappers pass through.
func TestPagesOutsideARun(t *testing.T) {
	b, srv, _ := web(t)
	res, err := b.Search(context.Background(), "pacer", 5)
	if err != nil || len(res) == 0 {
		t.Fatal(res, err)
	}
	if _, err := b.Fetch(fetch.NewContext(context.Background(), nil), res[0].DocID); err != nil {
		t.Fatal(err)
	}
	if len(srv.Fetched()) != 1 {
		t.Errorf("fetched %v", srv.Fetched())
	}
}
