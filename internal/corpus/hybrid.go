package corpus

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/deepresearch/deepresearch/internal/vector"
	"github.com/deepresearch/deepresearch/search"
)

// candidates is how many passages each ranking of a hybrid search offers
// to the fusion: enough that a passage ranked well by one and badly by
// the other still meets itself.
func candidates(limit int) int { return max(50, 10*limit) }

// sqlLexicalRanks is the bm25 ranking of a hybrid search: the best
// matching passages, best first, with their documents.
var sqlLexicalRanks = fmt.Sprintf(`
WITH hits AS (
	SELECT rowid AS pid, bm25(passages_fts, %g, %g, %g) AS rank
	FROM passages_fts WHERE passages_fts MATCH ?1
	ORDER BY rank, rowid LIMIT ?2
)
SELECT h.pid, p.doc_id FROM hits h JOIN passages p ON p.id = h.pid ORDER BY h.rank, h.pid`,
	weightTitle, weightHeading, weightBody)

// hybridSearch is Search with an Embedder: the bm25 ranking of the
// query's words (as Search ranks them, candidates(limit) deep) and the
// ranking of every embedded passage by cosine similarity to the query's
// vector are fused by reciprocal rank fusion (vector.Fuse, k = 60); then,
// as in Search, at most perDocument passages of a document are kept and
// the best limit returned. A result's Score is its fused score. A query
// that shares no word with the corpus is answered by the vectors alone; a
// passage not yet embedded (an Index opened on another's Sync) by bm25
// alone.
//
// Cost: the lexical query, one call to the embedding model for the
// query's vector, and a dot product with every passage's vector (2.4 ms
// for 1,000 passages of 1,536 dimensions on a shared 2-core machine,
// BenchmarkNearest); the vectors are read
// from the database once after Open or a Sync and kept (4 bytes per
// dimension per passage).
func (ix *Index) hybridSearch(ctx context.Context, query string, limit int) ([]search.Result, error) {
	if strings.TrimSpace(query) == "" || limit <= 0 {
		return nil, nil
	}
	n := candidates(limit)
	docOf := map[int64]int64{}
	var lexical []int64
	if match := matchQuery(query); match != "" {
		rows, err := ix.db.QueryContext(ctx, sqlLexicalRanks, match, n)
		if err != nil {
			return nil, ix.queryError(ctx, "search", query, err)
		}
		for rows.Next() {
			var pid, doc int64
			if err := rows.Scan(&pid, &doc); err != nil {
				rows.Close()
				return nil, ix.queryError(ctx, "search", query, err)
			}
			lexical = append(lexical, pid)
			docOf[pid] = doc
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, ix.queryError(ctx, "search", query, err)
		}
	}
	dense, err := ix.nearest(ctx, query, n, docOf)
	if err != nil {
		return nil, ix.queryError(ctx, "search", query, err)
	}
	fused, score := vector.Fuse(lexical, dense)
	perDoc := map[int64]int{}
	var picked []int64
	for _, pid := range fused {
		d := docOf[pid]
		if perDoc[d] >= perDocument {
			continue
		}
		perDoc[d]++
		picked = append(picked, pid)
		if len(picked) == limit {
			break
		}
	}
	out, err := ix.passages(ctx, picked, score)
	if err != nil {
		return nil, ix.queryError(ctx, "search", query, err)
	}
	return out, nil
}

// nearest ranks the embedded passages by similarity to the query's
// vector and returns the best n, recording each one's document in docOf.
func (ix *Index) nearest(ctx context.Context, query string, n int, docOf map[int64]int64) ([]int64, error) {
	vs, err := ix.vectors(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the vectors: %w", err)
	}
	if len(vs.pids) == 0 {
		return nil, nil
	}
	q, err := ix.emb.EmbedQuery(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("embed the query with %s: %w", vs.model, err)
	}
	if len(q) != vs.dim {
		return nil, fmt.Errorf("embed the query with %s: %d dimensions, the index's vectors have %d", vs.model, len(q), vs.dim)
	}
	q = vector.Normalize(q)
	type hit struct {
		i   int
		sim float32
	}
	hits := make([]hit, len(vs.pids))
	for i := range vs.pids {
		hits[i] = hit{i, vector.Dot(q, vs.data[i*vs.dim:(i+1)*vs.dim])}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if c := cmp.Compare(b.sim, a.sim); c != 0 {
			return c
		}
		return cmp.Compare(vs.pids[a.i], vs.pids[b.i])
	})
	out := make([]int64, 0, min(n, len(hits)))
	for _, h := range hits[:min(n, len(hits))] {
		if h.sim <= 0 {
			break // orthogonal or opposite: no evidence of relevance
		}
		pid := vs.pids[h.i]
		out = append(out, pid)
		docOf[pid] = vs.docs[h.i]
	}
	return out, nil
}

// passages reads the results for pids, in that order, each scored as
// score says.
func (ix *Index) passages(ctx context.Context, pids []int64, score map[int64]float64) ([]search.Result, error) {
	if len(pids) == 0 {
		return nil, nil
	}
	args := make([]any, len(pids))
	for i, p := range pids {
		args[i] = p
	}
	rows, err := ix.db.QueryContext(ctx, `SELECT p.id, d.path, d.title, d.url, d.author, p.location, p.loc_kind, p.loc_value, p.loc_part, p.body
		FROM passages p JOIN docs d ON d.id = p.doc_id WHERE p.id IN (?`+strings.Repeat(",?", len(pids)-1)+`)`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	byID := make(map[int64]search.Result, len(pids))
	root := ix.rootDir()
	for rows.Next() {
		var id int64
		var r search.Result
		var declared string
		if err := rows.Scan(&id, &r.DocID, &r.Title, &declared, &r.Author, &r.Location, &r.Locator.Kind, &r.Locator.Value, &r.Locator.Part, &r.Snippet); err != nil {
			return nil, err
		}
		r.URL = docURL(root, r.DocID, declared)
		r.Snippet = trimSnippet(r.Snippet)
		r.Score = score[id]
		byID[id] = r
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := make([]search.Result, 0, len(pids))
	for _, p := range pids {
		if r, ok := byID[p]; ok { // a passage a concurrent Sync removed is left out
			out = append(out, r)
		}
	}
	return out, nil
}
