package journal

import (
	"context"
	"fmt"
	"sync"

	"github.com/deepresearch/deepresearch/internal/fetch"
	"github.com/deepresearch/deepresearch/search"
	"github.com/deepresearch/deepresearch/source"
)

// Backend journals the searches and document fetches of the search backend
// it wraps, as Model does a model's calls: in a context that carries a
// Journal they are answered from it or made and recorded; in any other
// context they pass through. It is safe for concurrent use when the
// wrapped backend is.
type Backend struct {
	search.Backend
}

// Search implements search.Backend.
func (b Backend) Search(ctx context.Context, query string, limit int) ([]search.Result, error) {
	j := FromContext(ctx)
	if j == nil {
		return b.Backend.Search(ctx, query, limit)
	}
	d := j.decide(ctx, KindSearch, SearchKey(query, limit))
	switch {
	case d.entry != nil:
		if d.entry.Error != nil {
			return nil, d.entry.Error.err()
		}
		return d.entry.Search.results(), nil
	case d.miss:
		return nil, d.missed()
	}
	res, err := b.Backend.Search(ctx, query, limit)
	if !d.keep {
		return res, err
	}
	if err != nil {
		j.recordError(ctx, d, err)
		return res, err
	}
	rec := &SearchRecord{Query: String(query), Limit: limit}
	if res != nil {
		rec.Results = make([]Result, len(res))
	}
	for i, r := range res {
		rec.Results[i] = Result{DocID: String(r.DocID), URL: String(r.URL), Title: String(r.Title),
			Location: String(r.Location), Snippet: String(r.Snippet), Score: Float(r.Score), Channel: String(r.Channel),
			Published: String(r.Published), Modified: String(r.Modified), Author: String(r.Author)}
		if !r.Locator.IsZero() {
			rec.Results[i].Locator = &Locator{Kind: String(r.Locator.Kind), Value: String(r.Locator.Value), Part: String(r.Locator.Part)}
		}
	}
	j.record(ctx, d, Entry{Search: rec})
	return res, nil
}

func (r *SearchRecord) results() []search.Result {
	if r.Results == nil {
		return nil
	}
	out := make([]search.Result, len(r.Results))
	for i, x := range r.Results {
		out[i] = search.Result{DocID: string(x.DocID), URL: string(x.URL), Title: string(x.Title),
			Location: string(x.Location), Snippet: string(x.Snippet), Score: float64(x.Score), Channel: string(x.Channel),
			Published: string(x.Published), Modified: string(x.Modified), Author: string(x.Author)}
		if l := x.Locator; l != nil {
			out[i].Locator = source.Location{Kind: string(l.Kind), Value: string(l.Value), Part: string(l.Part)}
		}
	}
	return out
}

// Fetch implements search.Backend. A document read from a web page that
// Pages recorded on the way keeps its text once, in the page's entry; a
// text longer than InlineText is kept once per run, in a text entry.
func (b Backend) Fetch(ctx context.Context, docID string) (search.Document, error) {
	j := FromContext(ctx)
	if j == nil {
		return b.Backend.Fetch(ctx, docID)
	}
	d := j.decide(ctx, KindDocument, DocumentKey(docID))
	switch {
	case d.entry != nil:
		if d.entry.Error != nil {
			return search.Document{}, d.entry.Error.err()
		}
		return j.document(d.entry.Document)
	case d.miss:
		return search.Document{}, d.missed()
	}
	sink := &pageSink{}
	doc, err := b.Backend.Fetch(context.WithValue(ctx, pageSinkKey{}, sink), docID)
	if !d.keep {
		return doc, err
	}
	if err != nil {
		j.recordError(ctx, d, err)
		return doc, err
	}
	rec := &DocumentRecord{DocID: String(docID), URL: String(doc.URL), Title: String(doc.Title), Text: String(doc.Text),
		Published: String(doc.Published), Modified: String(doc.Modified), Author: String(doc.Author), Channel: String(doc.Channel)}
	if ref, text, ok := sink.get(); ok && text == doc.Text {
		rec.Text, rec.TextPage = "", &ref
	} else if key, err := j.keepText(ctx, d.ref.Scope, doc.Text); err != nil {
		return doc, nil // told to Hooks.AppendFailed; a resumed run fetches it again
	} else if key != "" {
		rec.Text, rec.TextKey = "", key
	}
	j.record(ctx, d, Entry{Document: rec})
	return doc, nil
}

// document rebuilds a recorded document, with the text of the page it
// refers to.
func (j *Journal) document(r *DocumentRecord) (search.Document, error) {
	doc := search.Document{DocID: string(r.DocID), URL: string(r.URL), Title: string(r.Title), Text: string(r.Text),
		Published: string(r.Published), Modified: string(r.Modified), Author: string(r.Author), Channel: string(r.Channel)}
	switch {
	case r.TextPage != nil:
		p := j.lookup(*r.TextPage)
		if p == nil || p.Page == nil {
			return search.Document{}, fmt.Errorf("%w: the document %q refers to a page entry the journal does not hold", ErrCorrupt, r.DocID)
		}
		text, err := j.pageText(p.Page)
		if err != nil {
			return search.Document{}, err
		}
		doc.Text = text
	case r.TextKey != "":
		text, err := j.text(r.TextKey)
		if err != nil {
			return search.Document{}, fmt.Errorf("the document %q: %w", r.DocID, err)
		}
		doc.Text = text
	}
	return doc, nil
}

// pageText returns the text of a recorded page: its own, or that of the
// text entry it refers to.
func (j *Journal) pageText(r *PageRecord) (string, error) {
	if r.TextKey == "" {
		return string(r.Text), nil
	}
	text, err := j.text(r.TextKey)
	if err != nil {
		return "", fmt.Errorf("the page %q: %w", r.URL, err)
	}
	return text, nil
}

// PageFetcher reads web pages; *fetch.Fetcher and fetch.ContextPages are
// ones.
type PageFetcher interface {
	Fetch(ctx context.Context, rawURL string) (fetch.Page, error)
}

// Pages journals the page fetches of the fetcher it wraps, as Model does a
// model's calls. It is safe for concurrent use when the wrapped fetcher
// is.
type Pages struct {
	PageFetcher
}

// Fetch reads the page at rawURL, or answers it from the journal.
func (p Pages) Fetch(ctx context.Context, rawURL string) (fetch.Page, error) {
	j := FromContext(ctx)
	if j == nil {
		return p.PageFetcher.Fetch(ctx, rawURL)
	}
	sink, _ := ctx.Value(pageSinkKey{}).(*pageSink)
	d := j.decide(ctx, KindPage, PageKey(rawURL))
	switch {
	case d.entry != nil:
		if d.entry.Error != nil {
			return fetch.Page{}, d.entry.Error.err()
		}
		r := d.entry.Page
		text, err := j.pageText(r)
		if err != nil {
			return fetch.Page{}, err
		}
		sink.set(d.ref, text)
		return fetch.Page{URL: string(r.URL), FinalURL: string(r.FinalURL), Title: string(r.Title), Text: text,
			ContentType: string(r.ContentType), FetchedAt: r.FetchedAt, SHA256: r.SHA256, Bytes: r.Bytes,
			Published: string(r.Published), Modified: string(r.Modified), Author: string(r.Author)}, nil
	case d.miss:
		return fetch.Page{}, d.missed()
	}
	page, err := p.PageFetcher.Fetch(ctx, rawURL)
	if !d.keep {
		return page, err
	}
	if err != nil {
		j.recordError(ctx, d, err)
		return page, err
	}
	rec := &PageRecord{URL: String(page.URL), FinalURL: String(page.FinalURL), Title: String(page.Title),
		Text: String(page.Text), ContentType: String(page.ContentType), FetchedAt: page.FetchedAt,
		SHA256: page.SHA256, Bytes: page.Bytes, Published: String(page.Published), Modified: String(page.Modified),
		Author: String(page.Author)}
	key, err := j.keepText(ctx, d.ref.Scope, page.Text)
	if err != nil {
		return page, nil // told to Hooks.AppendFailed; a resumed run fetches it again
	}
	if key != "" {
		rec.Text, rec.TextKey = "", key
	}
	if j.record(ctx, d, Entry{Page: rec}) == nil {
		sink.set(d.ref, page.Text)
	}
	return page, nil
}

// pageSink is where Pages tells the Backend.Fetch it serves which page
// entry (recorded, or replayed) it read.
type pageSink struct {
	mu   sync.Mutex
	ref  *Ref
	text string
}

type pageSinkKey struct{}

func (s *pageSink) set(r Ref, text string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ref, s.text = &r, text
}

func (s *pageSink) get() (Ref, string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ref == nil {
		return Ref{}, "", false
	}
	return *s.ref, s.text, true
}
