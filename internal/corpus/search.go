package corpus

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/deepresearch/deepresearch/internal/sourcetext"
	"github.com/deepresearch/deepresearch/internal/terms"
	"github.com/deepresearch/deepresearch/search"
)

// Ranking weights of the passages_fts columns for bm25: a match in the
// document title counts most, then the heading path, then the body.
const (
	weightTitle   = 4.0
	weightHeading = 2.0
	weightBody    = 1.0
)

// perDocument is the most passages of one document a hybrid search
// returns, so that one long document does not crowd out the others.
const perDocument = 1

// snippetMax is the length, in bytes, past which a passage is trimmed for
// the Snippet (passages that merged short sections can run past
// passageMax).
const snippetMax = 1400

// Query limits: a model's query is free text of any length. Each phrase
// (a pair of neighbouring words, which ranks passages that keep the words
// together higher) and each NEAR group costs a bm25 pass per word of its
// own: 16 phrases made a search of a 10-word query 2.4× slower than none,
// so only the first few pairs, usually the query's head words, are added.
const (
	maxTerms   = 32
	maxPhrases = 4
	maxNear    = 2 // NEAR groups: pairs of consecutive query words
	nearWindow = 8 // most words between the two of a NEAR pair
	maxTermLen = 64
)

// Search returns at most limit results for query, best first, each with
// its document's modification time at the last Sync (Modified). The
// query is free text: it is split into words (punctuation, quotes and FTS5
// operators are only separators), stop words are dropped (internal/terms's
// one list), and a passage matches if it has any of the remaining words
// (stemmed: "cables" finds "cable").
//
// Documents are ranked, not passages (rank.go): bm25 over whole documents
// (title, headings, file path and text, BM25F-style) is fused with the
// documents' order by their best passage (bm25 over passages: a word in
// the document's title counts weightTitle (4) times, one in the heading
// path weightHeading (2) times, one in the body once; the query's first
// neighbouring pairs count again as phrases, and its first pairs of
// consecutive words again where they stand within nearWindow (8) words of
// each other). So a long page whose one section answers the query is not
// lost to short passages elsewhere that repeat its words, and an exact
// phrase outranks the same words nearby, which outrank them scattered.
//
// A document gives one result, located at its best passage, whose Snippet
// holds its best passages (up to snippetPassages, in document order); a
// table gives one result per matching row (up to rowsPerDocument), each
// row a source of its own; a paged document or a deck its best page or
// slide. A query with nothing but stop words and punctuation, or
// limit <= 0, returns no results and no error.
//
// Cost: two SQL queries that score every matching document and passage
// with bm25, read a pool deeper than limit (depths), then a few reads per
// result: about 2 ms for a five-word query over the Go documentation.
//
// With WithEmbedder the search is hybrid (see hybridSearch): the bm25
// ranking of passages fused with vector similarity.
func (ix *Index) Search(ctx context.Context, query string, limit int) ([]search.Result, error) {
	if ix.emb != nil {
		return ix.hybridSearch(ctx, query, limit)
	}
	match := matchQuery(query)
	if match == "" || limit <= 0 {
		return nil, nil
	}
	out, err := ix.rankedSearch(ctx, match, limit)
	if err != nil {
		return nil, ix.queryError(ctx, "search", query, err)
	}
	return out, nil
}

// Fetch returns the whole extracted text of the document docID (a path
// relative to the corpus folder, as in search results), as it was at the
// last Sync, with the file's modification time then as its Modified (as
// search results have it), and its URL as search results have it: the
// http(s) URL the document declares, else its file:// URL. An unknown
// docID is an error wrapping search.ErrNotFound.
func (ix *Index) Fetch(ctx context.Context, docID string) (search.Document, error) {
	id := docID
	if id != "" {
		id = strings.TrimPrefix(path.Clean(filepath.ToSlash(id)), "./")
	}
	doc := search.Document{DocID: id}
	var mtime int64
	var declared string
	err := ix.db.QueryRowContext(ctx, `SELECT title, text, url, author, mtime_ns FROM docs WHERE path = ?`, id).Scan(&doc.Title, &doc.Text, &declared, &doc.Author, &mtime)
	if errors.Is(err, sql.ErrNoRows) {
		return search.Document{}, &Error{Op: "fetch", Subject: fmt.Sprintf("%q from %s", docID, ix.dbPath), Err: search.ErrNotFound}
	}
	if err != nil {
		return search.Document{}, ix.queryError(ctx, "fetch", docID, err)
	}
	doc.URL = docURL(ix.rootDir(), id, declared)
	doc.Modified = sourcetext.FileDate(time.Unix(0, mtime))
	return doc, nil
}

func (ix *Index) queryError(ctx context.Context, op, subject string, err error) error {
	if ctx.Err() != nil {
		err = context.Cause(ctx)
	}
	return &Error{Op: op, Subject: fmt.Sprintf("%q in %s", subject, ix.dbPath), Err: err}
}

func (ix *Index) rootDir() string {
	if p := ix.root.Load(); p != nil {
		return *p
	}
	return ""
}

// docURL is a document's URL: the one it declares (docs.url, checked by
// extract.DeclaredURL when indexed), else the file:// URL of its file
// under root.
func docURL(root, docID, declared string) string {
	if declared != "" {
		return declared
	}
	if root == "" {
		return ""
	}
	return fileURL(filepath.Join(root, filepath.FromSlash(docID)))
}

func trimSnippet(s string) string {
	if len(s) <= snippetMax {
		return s
	}
	n := snippetMax
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	head := s[:n]
	if i := strings.LastIndexAny(head, " \n\t"); i >= snippetMax/2 {
		head = head[:i]
	}
	return strings.TrimRight(head, " \n\t") + " …"
}

// matchQuery turns free text into an FTS5 query that cannot be a syntax
// error: every word becomes a quoted term (so quotes, colons, hyphens,
// parentheses and the words AND, OR, NOT, NEAR mean nothing), the terms
// are ORed (stop words left out); each of the first maxPhrases pairs of
// neighbouring terms (with at most two stop words between them) is added
// as a phrase, and each of the first maxNear pairs of consecutive distinct
// terms as a NEAR group, which lift passages that have the words together
// or close. It returns "" when the text has no words.
func matchQuery(q string) string {
	words := queryWords(q)
	var terms []int // indexes into words
	seen := map[string]bool{}
	for i, w := range words {
		if !stop(w) && !seen[w] {
			seen[w] = true
			terms = append(terms, i)
		}
	}
	if len(terms) == 0 {
		return ""
	}
	var parts []string
	for _, i := range terms[:min(len(terms), maxTerms)] {
		parts = append(parts, `"`+words[i]+`"`)
	}
	// Phrases of neighbouring content words, in query order, with any stop
	// words that stand between them ("speed of light").
	var content []int
	for i, w := range words {
		if !stop(w) {
			content = append(content, i)
		}
	}
	phrases := map[string]bool{}
	for k := 1; k < len(content) && len(phrases) < maxPhrases; k++ {
		a, b := content[k-1], content[k]
		if b-a > 3 || words[a] == words[b] {
			continue
		}
		p := `"` + strings.Join(words[a:b+1], " ") + `"`
		if !phrases[p] {
			phrases[p] = true
			parts = append(parts, p)
		}
	}
	// Proximity: consecutive distinct terms within nearWindow words of each
	// other, in any order. In bm25, the words of a NEAR group count only
	// where the group matches.
	for k := 1; k < len(terms) && k <= maxNear; k++ {
		parts = append(parts, fmt.Sprintf(`NEAR("%s" "%s", %d)`, words[terms[k-1]], words[terms[k]], nearWindow))
	}
	return strings.Join(parts, " OR ")
}

// queryWords splits text into lower-case words the way the index's
// unicode61 tokenizer does (terms.Tokens: letters, numbers and private-use
// characters make words, everything else separates them), leaving out
// words longer than maxTermLen.
func queryWords(q string) []string {
	words := terms.Tokens(q)
	out := words[:0]
	for _, w := range words {
		if len(w) <= maxTermLen {
			out = append(out, w)
		}
	}
	return out
}

// stop reports whether a query word is left out: a stop word or a word
// that frames a request (terms.IsStop, terms.IsRequest): they match nearly
// every passage. Stop words that relate two things in a technical phrase
// ("happens before", "not nil": terms.IsRelation) are kept.
func stop(w string) bool {
	return terms.IsStop(w) && !terms.IsRelation(w) || terms.IsRequest(w)
}
