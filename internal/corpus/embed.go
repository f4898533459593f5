package corpus

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/deepresearch/deepresearch/internal/vector"
)

// Option configures an Index at Open.
type Option func(*Index)

// WithEmbedder makes the Index hybrid: Sync embeds every passage with e
// (incrementally: only text whose vector e's model has not made before),
// and Search fuses bm25 with vector similarity. Without it the Index is
// lexical, exactly as before embeddings existed.
func WithEmbedder(e vector.Embedder) Option {
	return func(ix *Index) { ix.emb = e }
}

// WithProgress makes Sync report what it has done so far to fn: after
// each entry of the folder it looks at and after each batch of passages
// embedded, with the counts of the whole Sync up to then (Skips left out;
// Documents still 0). fn is called on the goroutine that called Sync,
// which waits for it: it should be quick (draw a line, not write a file).
func WithProgress(fn func(SyncStats)) Option {
	return func(ix *Index) { ix.progress = fn }
}

// embedBatch is the most passages sent to the embedding model in one
// call; embedBatchBytes bounds a call's text (OpenAI takes 2,048 inputs and
// 300k tokens a request, Gemini 100 inputs).
const (
	embedBatch      = 64
	embedBatchBytes = 256 << 10
)

// embedText is what the embedding model reads of a passage: its
// document's title, where it sits, and its text.
func embedText(title, location, body string) string {
	return title + "\n" + location + "\n" + body
}

// embedHash is the key a passage's vector is cached under.
func embedHash(title, location, body string) string {
	sum := sha256.Sum256([]byte(embedText(title, location, body)))
	return hex.EncodeToString(sum[:])
}

const (
	// sqlPendingEmbeddings lists the texts the model has no vector for,
	// one row per distinct text, in index order.
	sqlPendingEmbeddings = `
SELECT p.embed_hash, d.title, p.location, p.body
FROM passages p JOIN docs d ON d.id = p.doc_id
WHERE NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.model = ?1 AND e.hash = p.embed_hash)
GROUP BY p.embed_hash
ORDER BY min(p.id)
LIMIT ?2`
	sqlInsertEmbedding = `INSERT OR REPLACE INTO embeddings(model, hash, vector) VALUES (?, ?, ?)`
	// sqlPruneEmbeddings forgets vectors of text no passage holds any
	// more, of every model.
	sqlPruneEmbeddings = `DELETE FROM embeddings WHERE hash NOT IN (SELECT embed_hash FROM passages)`
)

// embed asks the embedding model for the vectors of the passages that
// have none from it, a batch at a time, each batch committed on its own:
// a Sync that fails or is canceled keeps the batches done, and the next
// one asks only for the rest. It then forgets the vectors of text the
// index no longer holds, and drops the vectors Search had loaded.
func (s *syncer) embed() error {
	e := s.ix.emb
	if e == nil {
		return nil
	}
	defer func() {
		if s.stats.Added+s.stats.Updated+s.stats.Removed+s.stats.Embedded > 0 {
			s.ix.vecs.Store(nil) // Search reads them again
		}
	}()
	model := e.Name()
	for {
		if err := s.ctx.Err(); err != nil {
			return err
		}
		hashes, texts, err := s.pendingEmbeddings(model)
		if err != nil {
			return err
		}
		if len(texts) == 0 {
			break
		}
		vs, err := e.EmbedDocuments(s.ctx, texts)
		if err != nil {
			return fmt.Errorf("embed %d passages with %s: %w", len(texts), model, err)
		}
		if len(vs) != len(texts) {
			return fmt.Errorf("embed %d passages with %s: the model returned %d vectors", len(texts), model, len(vs))
		}
		if err := s.ix.putEmbeddings(s, model, hashes, vs); err != nil {
			return err
		}
		s.stats.Embedded += len(texts)
		s.report()
	}
	if s.stats.Added+s.stats.Updated+s.stats.Removed > 0 {
		if _, err := s.ix.db.ExecContext(s.ctx, sqlPruneEmbeddings); err != nil {
			return fmt.Errorf("forget old vectors in %s: %w", s.ix.dbPath, err)
		}
	}
	return nil
}

// pendingEmbeddings returns the next batch of texts model has no vector
// for, with their hashes.
func (s *syncer) pendingEmbeddings(model string) (hashes, texts []string, err error) {
	rows, err := s.ix.db.QueryContext(s.ctx, sqlPendingEmbeddings, model, embedBatch)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", s.ix.dbPath, err)
	}
	defer rows.Close()
	size := 0
	for rows.Next() {
		var h, title, loc, body string
		if err := rows.Scan(&h, &title, &loc, &body); err != nil {
			return nil, nil, fmt.Errorf("read %s: %w", s.ix.dbPath, err)
		}
		t := embedText(title, loc, body)
		if len(texts) > 0 && size+len(t) > embedBatchBytes {
			break
		}
		size += len(t)
		hashes = append(hashes, h)
		texts = append(texts, t)
	}
	if err := rows.Err(); err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", s.ix.dbPath, err)
	}
	return hashes, texts, nil
}

// putEmbeddings stores one batch of vectors, normalised, in one
// transaction.
func (ix *Index) putEmbeddings(s *syncer, model string, hashes []string, vs [][]float32) (err error) {
	tx, err := ix.db.BeginTx(s.ctx, nil)
	if err != nil {
		return fmt.Errorf("begin write to %s: %w", ix.dbPath, err)
	}
	defer func() {
		if err != nil {
			tx.Rollback()
		}
	}()
	st, err := tx.PrepareContext(s.ctx, sqlInsertEmbedding)
	if err != nil {
		return fmt.Errorf("prepare write to %s: %w", ix.dbPath, err)
	}
	defer st.Close()
	dim := -1
	for i, v := range vs {
		if dim >= 0 && len(v) != dim || len(v) == 0 {
			return fmt.Errorf("embed with %s: vector %d has %d dimensions, not %d", model, i+1, len(v), dim)
		}
		dim = len(v)
		if _, err := st.ExecContext(s.ctx, model, hashes[i], vector.Encode(vector.Normalize(v))); err != nil {
			return fmt.Errorf("store a vector in %s: %w", ix.dbPath, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit vectors to %s: %w", ix.dbPath, err)
	}
	return nil
}

// vectorSet is the index's vectors of one model, for the vector half of
// a hybrid search: the passages that have one, their documents, and the
// unit vectors laid end to end.
type vectorSet struct {
	model string
	dim   int
	pids  []int64
	docs  []int64
	data  []float32
}

// vectors returns the passages' vectors of the Embedder's model, reading
// them from the database the first time after Open or a Sync.
func (ix *Index) vectors(ctx context.Context) (*vectorSet, error) {
	if vs := ix.vecs.Load(); vs != nil {
		return vs, nil
	}
	ix.vmu.Lock()
	defer ix.vmu.Unlock()
	if vs := ix.vecs.Load(); vs != nil {
		return vs, nil
	}
	model := ix.emb.Name()
	rows, err := ix.db.QueryContext(ctx, `SELECT p.id, p.doc_id, e.vector FROM passages p
		JOIN embeddings e ON e.model = ? AND e.hash = p.embed_hash ORDER BY p.id`, model)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	vs := &vectorSet{model: model, dim: -1}
	for rows.Next() {
		var pid, doc int64
		var blob []byte
		if err := rows.Scan(&pid, &doc, &blob); err != nil {
			return nil, err
		}
		n := len(vs.data)
		if vs.data, err = vector.Decode(vs.data, blob); err != nil {
			return nil, err
		}
		if d := len(vs.data) - n; vs.dim < 0 {
			vs.dim = d
		} else if d != vs.dim {
			return nil, fmt.Errorf("stored vectors of %s have %d and %d dimensions", model, vs.dim, d)
		}
		vs.pids = append(vs.pids, pid)
		vs.docs = append(vs.docs, doc)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	ix.vecs.Store(vs)
	return vs, nil
}
