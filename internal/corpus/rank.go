package corpus

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/deepresearch/deepresearch/internal/sourcetext"
	"github.com/deepresearch/deepresearch/search"
	"github.com/deepresearch/deepresearch/source"
)

// Document-level ranking. A search ranks documents, not passages: a long
// page whose one section answers the query must not lose to short
// passages elsewhere that repeat the query's words (bm25 over passages
// favours short ones). Two rankings of the same query are fused:
//
//   - documents by bm25 over docs_fts, BM25F-style: the title counts
//     docWeightTitle times, the headings docWeightHeading, the file path
//     docWeightPath, the whole text once;
//   - documents by their best passage in the passage ranking (passages_fts,
//     as before).
//
// Each list is cut at its depth; a document's fused score is the sum of
// 1/(fuseK + rank) over the lists it is in (reciprocal rank fusion).
const (
	docWeightTitle   = 5.0
	docWeightHeading = 2.0
	docWeightPath    = 3.0
	docWeightBody    = 1.0

	// fuseK is the rank-fusion offset: small, so the top of each list
	// counts clearly more than its tail.
	fuseK = 10
	// snippetPassages is how many of a document's best passages its
	// result carries (in document order), so that what an agent and the
	// relevance filter see of a long page is its best parts, not one.
	snippetPassages = 2
	// secondPassage is how good, as a share of the best passage's bm25,
	// a document's second passage must be to join its snippet.
	secondPassage = 0.5
	// rowsPerDocument is how many rows of one table a search returns:
	// each row is a source of its own, and a question about a table
	// ("which servers are in Frankfurt?") is answered by every row that
	// matches, not the best one.
	rowsPerDocument = 8
)

// snippetSep stands between the passages of one snippet; maxSnippetLen
// bounds a snippet's length in bytes.
const (
	snippetSep    = "\n\n…\n\n"
	maxSnippetLen = snippetPassages*(snippetMax+len(" …")+maxHeadingLen) + (snippetPassages-1)*len(snippetSep)
	// maxHeadingLen bounds the heading line a part of a snippet carries.
	maxHeadingLen = 200
)

// depths returns how deep each ranking is read for a search of limit
// results: a deeper pool than is handed on, so that a document found by
// one list and placed low by the other still meets itself.
func depths(limit int) (docs, passages int) {
	return max(50, 10*limit), max(200, 40*limit)
}

var (
	sqlDocRanks = fmt.Sprintf(`SELECT rowid, bm25(docs_fts, %g, %g, %g, %g) AS rank
FROM docs_fts WHERE docs_fts MATCH ?1 ORDER BY rank, rowid LIMIT ?2`,
		docWeightTitle, docWeightHeading, docWeightPath, docWeightBody)

	// sqlPassageRanks ranks passages; own is a passage's bm25 without its
	// document's title, which every passage of the document shares.
	sqlPassageRanks = fmt.Sprintf(`SELECT h.pid, p.doc_id, h.rank, h.own FROM (
	SELECT rowid AS pid, bm25(passages_fts, %g, %g, %g) AS rank, bm25(passages_fts, 0, %g, %g) AS own
	FROM passages_fts WHERE passages_fts MATCH ?1 ORDER BY rank, rowid LIMIT ?2
) h JOIN passages p ON p.id = h.pid ORDER BY h.rank, h.pid`, weightTitle, weightHeading, weightBody, weightHeading, weightBody)

	// sqlDocPassageRanks ranks the passages of one document.
	sqlDocPassageRanks = fmt.Sprintf(`SELECT rowid, bm25(passages_fts, %g, %g, %g) AS rank, bm25(passages_fts, 0, %g, %g) AS own
FROM passages_fts WHERE passages_fts MATCH ?1 AND rowid IN (SELECT id FROM passages WHERE doc_id = ?2)
ORDER BY rank, rowid LIMIT ?3`, weightTitle, weightHeading, weightBody, weightHeading, weightBody)
)

// hit is a passage of a ranking, with its document and bm25 (lower is
// better): rank in full, own without the title's share (0 when only the
// title matched).
type hit struct {
	pid, doc  int64
	rank, own float64
}

// alsoGood reports whether passage h of a document matches, by its own
// words (not the title's), at least secondPassage as well as the best.
func alsoGood(h, best hit) bool {
	return h.own < 0 && h.own <= secondPassage*best.own
}

// rankedSearch is Search without an Embedder: see Search.
func (ix *Index) rankedSearch(ctx context.Context, match string, limit int) ([]search.Result, error) {
	docDepth, passageDepth := depths(limit)
	docRanks, err := ix.docRanks(ctx, match, docDepth)
	if err != nil {
		return nil, err
	}
	hits, err := ix.passageRanks(ctx, match, passageDepth)
	if err != nil {
		return nil, err
	}
	byDoc := map[int64][]hit{}
	var passageOrder []int64 // documents by their best passage
	for _, h := range hits {
		if _, ok := byDoc[h.doc]; !ok {
			passageOrder = append(passageOrder, h.doc)
		}
		byDoc[h.doc] = append(byDoc[h.doc], h)
	}
	order, fused := fuseDocs(docRanks, passageOrder)
	var out []search.Result
	for _, d := range order {
		if len(out) >= limit {
			break
		}
		ps := byDoc[d]
		if len(ps) == 0 {
			// Found by its whole text only: rank its own passages.
			if ps, err = ix.docPassages(ctx, match, d, rowsPerDocument); err != nil {
				return nil, err
			}
		}
		rs, err := ix.docResults(ctx, d, ps, limit-len(out))
		if err != nil {
			return nil, err
		}
		for i := range rs {
			rs[i].Score = fused[d]
		}
		out = append(out, rs...)
	}
	return out, nil
}

// fuseDocs fuses the document ranking and the documents in order of their
// best passage by reciprocal rank fusion: the documents, best first (ties
// to the better document rank, then the lower id), and each one's score.
func fuseDocs(docRanks, passageOrder []int64) ([]int64, map[int64]float64) {
	score := map[int64]float64{}
	docPos := map[int64]int{}
	for i, d := range docRanks {
		score[d] += 1 / float64(fuseK+i+1)
		docPos[d] = i + 1
	}
	for i, d := range passageOrder {
		score[d] += 1 / float64(fuseK+i+1)
	}
	order := make([]int64, 0, len(score))
	for d := range score {
		order = append(order, d)
	}
	pos := func(d int64) int {
		if p, ok := docPos[d]; ok {
			return p
		}
		return len(docRanks) + 1
	}
	slices.SortFunc(order, func(a, b int64) int {
		if c := cmp.Compare(score[b], score[a]); c != 0 {
			return c
		}
		if c := cmp.Compare(pos(a), pos(b)); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return order, score
}

func (ix *Index) docRanks(ctx context.Context, match string, depth int) ([]int64, error) {
	rows, err := ix.db.QueryContext(ctx, sqlDocRanks, match, depth)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []int64
	for rows.Next() {
		var id int64
		var rank float64
		if err := rows.Scan(&id, &rank); err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, rows.Err()
}

func (ix *Index) passageRanks(ctx context.Context, match string, depth int) ([]hit, error) {
	rows, err := ix.db.QueryContext(ctx, sqlPassageRanks, match, depth)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []hit
	for rows.Next() {
		var h hit
		if err := rows.Scan(&h.pid, &h.doc, &h.rank, &h.own); err != nil {
			return nil, err
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// docPassages ranks the passages of document doc for match, best first;
// a document none of whose passages matches (its title or path did) gives
// its first passage.
func (ix *Index) docPassages(ctx context.Context, match string, doc int64, n int) ([]hit, error) {
	rows, err := ix.db.QueryContext(ctx, sqlDocPassageRanks, match, doc, n)
	if err != nil {
		return nil, err
	}
	var out []hit
	for rows.Next() {
		h := hit{doc: doc}
		if err := rows.Scan(&h.pid, &h.rank, &h.own); err != nil {
			rows.Close()
			return nil, err
		}
		out = append(out, h)
	}
	err = rows.Err()
	rows.Close()
	if err != nil || len(out) > 0 {
		return out, err
	}
	var pid int64
	err = ix.db.QueryRowContext(ctx, `SELECT id FROM passages WHERE doc_id = ? ORDER BY seq LIMIT 1`, doc).Scan(&pid)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil // a document without passages (removed meanwhile)
	}
	if err != nil {
		return nil, err
	}
	return []hit{{pid: pid, doc: doc}}, nil
}

// stored is a passage as the index holds it.
type stored struct {
	seq      int
	location string
	loc      source.Location
	body     string
}

// docResults makes the results of document doc from its ranked passages
// ps (best first), at most room: one result whose snippet holds its best
// passages — up to snippetPassages, those at least secondPassage as good
// as the best, in document order — located at the best one; for a table,
// one result per row that matches at least secondPassage as well as the
// best, up to rowsPerDocument (each row is a source of its own); for pages and slides, the best one.
func (ix *Index) docResults(ctx context.Context, doc int64, ps []hit, room int) ([]search.Result, error) {
	if len(ps) == 0 || room <= 0 {
		return nil, nil
	}
	var base search.Result
	var mtime int64
	var declared string
	err := ix.db.QueryRowContext(ctx, `SELECT path, title, url, author, mtime_ns FROM docs WHERE id = ?`, doc).Scan(&base.DocID, &base.Title, &declared, &base.Author, &mtime)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil // removed by a concurrent Sync
	}
	if err != nil {
		return nil, err
	}
	base.URL = docURL(ix.rootDir(), base.DocID, declared)
	base.Modified = sourcetext.FileDate(time.Unix(0, mtime))
	read := func(pid int64) (stored, error) {
		var s stored
		err := ix.db.QueryRowContext(ctx, `SELECT seq, location, loc_kind, loc_value, loc_part, body FROM passages WHERE id = ?`, pid).
			Scan(&s.seq, &s.location, &s.loc.Kind, &s.loc.Value, &s.loc.Part, &s.body)
		return s, err
	}
	best, err := read(ps[0].pid)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil // removed by a concurrent Sync
	}
	if err != nil {
		return nil, err
	}
	result := func(s stored, snippet string) search.Result {
		r := base
		r.Location, r.Locator, r.Snippet = s.location, s.loc, snippet
		return r
	}
	if best.loc.Unit() {
		n := 1
		if best.loc.Kind == source.LocRow {
			n = min(rowsPerDocument, room)
		}
		out := []search.Result{result(best, trimSnippet(best.body))}
		for _, h := range ps[1:] {
			if len(out) >= n {
				break
			}
			if !alsoGood(h, ps[0]) {
				continue // matches far less than the best row, or by the title alone
			}
			s, err := read(h.pid)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return nil, err
			}
			if err == nil {
				out = append(out, result(s, trimSnippet(s.body)))
			}
		}
		return out, nil
	}
	parts := []stored{best}
	for _, h := range ps[1:] {
		if len(parts) >= snippetPassages {
			break
		}
		if alsoGood(h, ps[0]) {
			s, err := read(h.pid)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return nil, err
			}
			if err == nil {
				parts = append(parts, s)
			}
		}
	}
	slices.SortFunc(parts, func(a, b stored) int { return cmp.Compare(a.seq, b.seq) })
	texts := make([]string, len(parts))
	for i, p := range parts {
		texts[i] = trimSnippet(p.body)
		if h := innermost(p.loc); len(parts) > 1 && h != "" && len(h) < maxHeadingLen-4 {
			// Each part under its own heading: the result's location is
			// its best part's, which need not come first.
			texts[i] = "## " + h + "\n\n" + texts[i]
		}
	}
	return []search.Result{result(best, strings.Join(texts, snippetSep))}, nil
}

// innermost returns the innermost heading of a section location; "" for
// any other.
func innermost(l source.Location) string {
	if l.Kind != source.LocSection || l.Value == "" {
		return ""
	}
	parts := strings.Split(l.Value, source.SectionSep)
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return ' '
		}
		return r
	}, parts[len(parts)-1]))
}

// pathWords is the text indexed for a document's path: its folders and
// file name without the extension, so that a question naming a file
// ("spec_ctrl", "disk-shock-protection") finds it.
func pathWords(p string) string {
	return strings.TrimSuffix(p, path.Ext(p))
}

// headingsOf is the text indexed as a document's headings: the distinct
// heading texts of its passages, in order.
func headingsOf(heads []string) string {
	var out []string
	seen := map[string]bool{}
	for _, h := range heads {
		if h != "" && !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	return strings.Join(out, "\n")
}
