package mcpsource

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/internal/excerpt"
	"github.com/deepresearch/deepresearch/internal/terms"
	"github.com/deepresearch/deepresearch/search"
)

var _ search.Backend = (*Source)(nil)

// maxSnippet caps a result's snippet, in bytes.
const maxSnippet = 2000

// Search calls the search tool with query (and limit, when it takes one)
// and returns at most limit documents it names, each with its locator as
// DocID, the channel "mcp:NAME" and a snippet: the passage of its text
// that best answers the query, or the description the server gave.
// Documents named without text are read (read tool, else resources/read),
// at most Options.MaxListed of them. A search tool that takes no query
// lists: Search reads what it lists, keeps the documents that hold a key
// term of the query and ranks them by how many. Errors are *ToolError
// values naming the server and the tool, or say why connecting failed.
func (s *Source) Search(ctx context.Context, query string, limit int) ([]search.Result, error) {
	if limit <= 0 {
		return nil, nil
	}
	t, err := s.session(ctx)
	if err != nil {
		return nil, err
	}
	m := t.mapping
	var cands []candidate
	if t.listResources {
		if cands, err = s.listResources(ctx); err != nil {
			return nil, err
		}
	} else {
		args := maps.Clone(t.searchArgs)
		if m.QueryArg != "" {
			args[m.QueryArg] = query
		}
		if m.LimitArg != "" {
			args[m.LimitArg] = limit
		}
		res, err := s.call(ctx, m.SearchTool, args)
		if err != nil {
			return nil, err
		}
		synthetic := "mcp://" + url.PathEscape(s.name) + "/" + url.PathEscape(m.SearchTool) + "?" + url.Values{"q": {query}}.Encode()
		cands = candidates(res, synthetic, s.opts.MaxText)
	}
	listing := m.QueryArg == ""
	var docs []search.Document
	snippets := map[string]string{} // by locator: what the server said of it
	var readErr error
	read := 0
	for _, c := range cands {
		if c.loc == "" || slices.ContainsFunc(docs, func(d search.Document) bool { return d.DocID == c.loc }) {
			continue
		}
		doc := search.Document{DocID: c.loc, URL: urlOf(c.loc), Channel: s.Channel()}
		switch {
		case c.hasText:
			doc.Title, doc.Text = readText(c.loc, c.text, c.title, s.opts.MaxText)
		case !listing && c.snippet != "":
			doc.Title = cleanLine(firstOf(c.title, c.loc), 300)
			doc.Text = "" // read when opened
		case s.cached(c.loc) != nil:
			doc = *s.cached(c.loc)
		default:
			if read == s.opts.MaxListed {
				continue
			}
			read++
			d, err := s.open(ctx, t, c.loc, c.title)
			if err != nil {
				if cause := context.Cause(ctx); cause != nil {
					return nil, err
				}
				readErr = cmp.Or(readErr, err)
				continue
			}
			doc = d
			s.remember(d, false)
		}
		snippets[c.loc] = c.snippet
		docs = append(docs, doc)
		if !listing && len(docs) == limit {
			break
		}
	}
	if len(docs) == 0 && readErr != nil {
		return nil, readErr
	}
	scores := make([]float64, len(docs))
	if listing {
		keys := terms.KeyStems(query)
		for i, d := range docs {
			have := terms.StemSet(d.Title + "\n" + d.Text)
			for _, k := range keys {
				if have[k] {
					scores[i]++
				}
			}
		}
	} else {
		for i := range docs {
			scores[i] = float64(len(docs) - i)
		}
	}
	order := make([]int, len(docs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	var out []search.Result
	for _, i := range order {
		if scores[i] <= 0 || len(out) == limit {
			break
		}
		d := docs[i]
		snippet := snippets[d.DocID]
		if d.Text != "" {
			snippet = excerpt.Cut(d.Text, query, query, maxSnippet)
		}
		out = append(out, search.Result{DocID: d.DocID, URL: d.URL, Title: d.Title, Channel: d.Channel,
			Snippet: cleanLine(snippet, maxSnippet), Score: scores[i]})
		s.remember(d, true)
	}
	return out, nil
}

// Fetch opens the document docID locates: from what a search returned
// with its text, else through the read tool (or resources/read for a URI
// when the server has no read tool). A docID that is no locator of this
// server's (not returned by its searches, nor an absolute path or a URI
// other than a web page's) wraps search.ErrNotFound.
func (s *Source) Fetch(ctx context.Context, docID string) (search.Document, error) {
	if d := s.cached(docID); d != nil {
		return *d, nil
	}
	s.mu.Lock()
	known := s.known[docID]
	title := s.docs[docID].doc.Title
	s.mu.Unlock()
	if !known && (!isLocator(docID) || strings.HasPrefix(docID, "http:") || strings.HasPrefix(docID, "https:") || strings.HasPrefix(docID, "mcp:")) {
		return search.Document{}, fmt.Errorf("mcpsource: %s: %q: %w", s.name, docID, search.ErrNotFound)
	}
	t, err := s.session(ctx)
	if err != nil {
		return search.Document{}, err
	}
	doc, err := s.open(ctx, t, docID, title)
	if err != nil {
		return search.Document{}, err
	}
	s.remember(doc, true)
	return doc, nil
}

// listResources lists the server's resources (resources/list), at most
// Options.MaxListed, as the candidates of a search without a search tool.
func (s *Source) listResources(ctx context.Context) ([]candidate, error) {
	sess, err := s.current()
	if err != nil {
		return nil, err
	}
	cctx, cancel := clock.WithTimeout(ctx, s.opts.Clock, s.opts.Timeout)
	defer cancel()
	var out []candidate
	for r, err := range sess.Resources(cctx, nil) {
		if err != nil {
			if cause := context.Cause(ctx); cause != nil {
				err = cause
			} else if cctx.Err() != nil {
				err = fmt.Errorf("no answer within %s: %w", s.opts.Timeout, ErrTimeout)
			}
			return nil, &ToolError{Server: s.name, Tool: "resources/list", Err: err}
		}
		if r.URI != "" {
			out = append(out, candidate{loc: r.URI, title: r.Title, snippet: r.Description}) // Name is often a file name: the heading titles better
		}
		if len(out) == s.opts.MaxListed {
			break
		}
	}
	return out, nil
}

// cached returns the document read at loc, or nil.
func (s *Source) cached(loc string) *search.Document {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d, ok := s.docs[loc]; ok && d.doc.Text != "" && s.opts.Clock.Now().Sub(d.at) < cacheFor {
		return &d.doc
	}
	return nil
}

// open reads the document at loc with the read tool, or as a resource.
func (s *Source) open(ctx context.Context, t tools, loc, title string) (search.Document, error) {
	doc := search.Document{DocID: loc, URL: urlOf(loc), Channel: s.Channel()}
	var raw string
	switch {
	case t.mapping.ReadTool != "":
		res, err := s.call(ctx, t.mapping.ReadTool, map[string]any{t.mapping.URLArg: loc})
		if err != nil {
			return search.Document{}, err
		}
		raw = resultText(res, s.opts.MaxText+1)
	case t.resources && strings.Contains(loc, ":"):
		sess, err := s.current()
		if err != nil {
			return search.Document{}, err
		}
		res, err := sess.ReadResource(ctx, &mcp.ReadResourceParams{URI: loc})
		if err != nil {
			return search.Document{}, &ToolError{Server: s.name, Tool: "resources/read", Err: err}
		}
		var parts []string
		size := 0
		for _, c := range res.Contents {
			if text, ok := resourceText(c); ok && size <= s.opts.MaxText {
				parts = append(parts, text)
				size += len(text)
			}
		}
		raw = strings.Join(parts, "\n\n")
	default:
		return search.Document{}, fmt.Errorf("mcpsource: %s: no read tool and no resources to open %q with: %w", s.name, loc, search.ErrNotFound)
	}
	doc.Title, doc.Text = readText(loc, raw, title, s.opts.MaxText)
	if strings.TrimSpace(doc.Text) == "" {
		return search.Document{}, fmt.Errorf("mcpsource: %s: %q holds no text: %w", s.name, loc, search.ErrNotFound)
	}
	return doc, nil
}

// remember keeps a document read, so that a search that lists it or
// opening it does not call the server again, up to maxCached documents;
// returned marks one a search returned (Fetch opens it by its ID).
func (s *Source) remember(d search.Document, returned bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if returned && len(s.known) < 16*maxCached {
		s.known[d.DocID] = true
	}
	if d.Text == "" {
		return
	}
	if _, ok := s.docs[d.DocID]; !ok && len(s.docs) >= maxCached {
		for k := range s.docs { // drop any one
			delete(s.docs, k)
			break
		}
	}
	s.docs[d.DocID] = cachedDoc{d, s.opts.Clock.Now()}
}

// cacheFor is how long a document read is kept: a long-lived Researcher
// (a server) reads a changed file again after it.
const cacheFor = 5 * time.Minute

// cachedDoc is a document read, and when.
type cachedDoc struct {
	doc search.Document
	at  time.Time
}
