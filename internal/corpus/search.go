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

	"github.com/deepresearch/deepresearch/internal/search"
	"github.com/deepresearch/deepresearch/internal/source"
	"github.com/deepresearch/deepresearch/internal/terms"
)

// Ranking weights of the passages_fts columns for bm25: a match in the
// document title counts most, then the heading path, then the body.
const (
	weightTitle   = 4.0
	weightHeading = 2.0
	weightBody    = 1.0
)

// perDocument is the most passages of one document a Search returns, so
// that one long document does not crowd out the others: its best one, so
// that a search's results are as many documents as passages (measured on
// the evaluation's corpora, README "Research quality": with two, the
// fifth document of a plain search of the question was often not among
// an agent's five results).
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

// sqlSearch ranks the matching passages, keeps the best perDocument of
// each document, and returns the best limit of those. bm25 is lower for
// better matches.
var sqlSearch = fmt.Sprintf(`
WITH hits AS (
	SELECT rowid AS pid, bm25(passages_fts, %g, %g, %g) AS rank
	FROM passages_fts WHERE passages_fts MATCH ?1
), ranked AS (
	SELECT h.pid, h.rank, p.doc_id,
		row_number() OVER (PARTITION BY p.doc_id ORDER BY h.rank, h.pid) AS n
	FROM hits h JOIN passages p ON p.id = h.pid
)
SELECT d.path, d.title, d.url, d.mtime_ns, p.location, p.loc_kind, p.loc_value, p.loc_part, p.body, r.rank
FROM ranked r
JOIN passages p ON p.id = r.pid
JOIN docs d ON d.id = r.doc_id
WHERE r.n <= %d
ORDER BY r.rank, r.pid
LIMIT ?2`, weightTitle, weightHeading, weightBody, perDocument)

// Search returns at most limit passages matching query, best first, each
// with its document's modification time at the last Sync (Modified), at
// most perDocument (1) from any one document, so that one long document
// does not fill every slot. The query is free text: it is split into
// words (punctuation, quotes and FTS5 operators are only separators), stop
// words are dropped (internal/terms's one list), and a passage matches if it has any
// of the remaining words (stemmed: "cables" finds "cable").
//
// Passages are ranked by bm25 over three columns: a word matched in the
// document's title counts weightTitle (4) times, one in the heading path
// weightHeading (2) times, one in the body once. Passages with more of the
// words, rarer ones, or the words together rank higher: the query's first
// neighbouring pairs count again as phrases ("memory model", "speed of
// light"), and its first pairs of consecutive words count again where they
// stand within nearWindow (8) words of each other, in either order. So an
// exact phrase outranks the same words nearby, which outrank the same words
// scattered. A query with nothing but stop words and punctuation, or
// limit <= 0, returns no results and no error.
//
// Cost: one SQL query that scores every matching passage with bm25, so it
// grows with the number of passages that share a word with the query:
// about 1ms for a five-word query over the Go documentation (350 passages).
//
// With WithEmbedder the search is hybrid (see hybridSearch): the same
// bm25 ranking fused with vector similarity.
func (ix *Index) Search(ctx context.Context, query string, limit int) ([]search.Result, error) {
	if ix.emb != nil {
		return ix.hybridSearch(ctx, query, limit)
	}
	match := matchQuery(query)
	if match == "" || limit <= 0 {
		return nil, nil
	}
	rows, err := ix.search.QueryContext(ctx, match, limit)
	if err != nil {
		return nil, ix.queryError(ctx, "search", query, err)
	}
	defer rows.Close()
	root := ix.rootDir()
	var out []search.Result
	for rows.Next() {
		var r search.Result
		var rank float64
		var mtime int64
		var declared string
		if err := rows.Scan(&r.DocID, &r.Title, &declared, &mtime, &r.Location, &r.Locator.Kind, &r.Locator.Value, &r.Locator.Part, &r.Snippet, &rank); err != nil {
			return nil, ix.queryError(ctx, "search", query, err)
		}
		r.URL = docURL(root, r.DocID, declared)
		r.Modified = source.FileDate(time.Unix(0, mtime))
		r.Snippet = trimSnippet(r.Snippet)
		r.Score = -rank
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
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
	err := ix.db.QueryRowContext(ctx, `SELECT title, text, url, mtime_ns FROM docs WHERE path = ?`, id).Scan(&doc.Title, &doc.Text, &declared, &mtime)
	if errors.Is(err, sql.ErrNoRows) {
		return search.Document{}, &Error{Op: "fetch", Subject: fmt.Sprintf("%q from %s", docID, ix.dbPath), Err: search.ErrNotFound}
	}
	if err != nil {
		return search.Document{}, ix.queryError(ctx, "fetch", docID, err)
	}
	doc.URL = docURL(ix.rootDir(), id, declared)
	doc.Modified = source.FileDate(time.Unix(0, mtime))
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
