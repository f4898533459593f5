package corpus

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/deepresearch/deepresearch/internal/terms"
	"github.com/deepresearch/deepresearch/search"
)

// wordsEmbedder is a deterministic bag-of-words embedding with a synonym
// table: each word is a dimension (hashed), and the words of one synonym
// group share one. It knows nothing else, so what hybrid search finds
// beyond bm25 is exactly the synonyms. It counts its calls, and fails
// them while fail is set.
type wordsEmbedder struct {
	syn  map[string]string // stemmed word → its group's first word
	dim  int
	mu   sync.Mutex
	docs []int // texts per EmbedDocuments call
	fail error
}

func newWordsEmbedder(groups ...string) *wordsEmbedder {
	e := &wordsEmbedder{syn: map[string]string{}, dim: 256}
	for _, g := range groups {
		ws := strings.Fields(g)
		for _, w := range ws {
			e.syn[terms.Stem(w)] = terms.Stem(ws[0])
		}
	}
	return e
}

func (e *wordsEmbedder) Name() string { return fmt.Sprintf("test:words-%d", e.dim) }

func (e *wordsEmbedder) embed(text string) []float32 {
	v := make([]float32, e.dim)
	for _, w := range terms.Tokens(text) {
		if stop(w) {
			continue
		}
		s := terms.Stem(w)
		if g, ok := e.syn[s]; ok {
			s = g
		}
		h := fnv.New32a()
		h.Write([]byte(s))
		v[h.Sum32()%uint32(e.dim)]++
	}
	return v
}

func (e *wordsEmbedder) EmbedDocuments(_ context.Context, texts []string) ([][]float32, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.fail != nil {
		return nil, e.fail
	}
	e.docs = append(e.docs, len(texts))
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = e.embed(t)
	}
	return out, nil
}

func (e *wordsEmbedder) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	return e.embed(text), nil
}

func (e *wordsEmbedder) calls() []int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]int(nil), e.docs...)
}

func writeDocs(t *testing.T, dir string, docs map[string]string) {
	t.Helper()
	for name, text := range docs {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func openHybrid(t *testing.T, e *wordsEmbedder) *Index {
	t.Helper()
	ix, err := Open(t.Context(), filepath.Join(t.TempDir(), "index.db"), WithEmbedder(e))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

var hybridDocs = map[string]string{
	"slices.md":   "# Slices\n\nThe Sort function arranges the elements of a slice in increasing order.\n",
	"maps.md":     "# Maps\n\nA map holds keys and values; iteration visits them in no fixed sequence.\n",
	"channels.md": "# Channels\n\nA channel carries values between goroutines, blocking until both sides are ready.\n",
	"strings.md":  "# Strings\n\nStrings are immutable sequences of bytes.\n",
}

// A question that shares no word with the document that answers it
// finds it only through the vectors; one that shares words finds the
// same document first either way.
func TestHybridFindsWhatBM25Misses(t *testing.T) {
	dir := t.TempDir()
	writeDocs(t, dir, hybridDocs)
	e := newWordsEmbedder("sort arrange order rank")
	ix := openHybrid(t, e)
	st, err := ix.Sync(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Embedded != 4 {
		t.Errorf("embedded %d passages, want 4", st.Embedded)
	}
	lexical, err := Open(t.Context(), ix.dbPath) // the same file, no embedder
	if err != nil {
		t.Fatal(err)
	}
	defer lexical.Close()
	for _, tc := range []struct {
		query, want string
		lexicalMiss bool
	}{
		{"how do I rank items", "slices.md", true},
		{"goroutines blocking", "channels.md", false},
	} {
		res, err := ix.Search(t.Context(), tc.query, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) == 0 || res[0].DocID != tc.want {
			t.Errorf("%q: hybrid %v, want %s first", tc.query, ids(res), tc.want)
		}
		if res[0].URL == "" || res[0].Snippet == "" || res[0].Score <= 0 {
			t.Errorf("%q: result %+v", tc.query, res[0])
		}
		lres, err := lexical.Search(t.Context(), tc.query, 3)
		if err != nil {
			t.Fatal(err)
		}
		if missed := len(lres) == 0 || lres[0].DocID != tc.want; missed != tc.lexicalMiss {
			t.Errorf("%q: lexical %v (miss %v, want %v)", tc.query, ids(lres), missed, tc.lexicalMiss)
		}
	}
	// Stop words alone: nothing for bm25, nothing similar either.
	if res, err := ix.Search(t.Context(), "what is the", 3); err != nil || len(res) != 0 {
		t.Errorf("stop words: %v %v", ids(res), err)
	}
}

func ids(rs []search.Result) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.DocID)
	}
	return out
}

// Passages are embedded once: an unchanged corpus asks the model for
// nothing, a changed file only for its new text, in batches of at most
// embedBatch; a removed file's vectors are forgotten.
func TestEmbeddingsIncremental(t *testing.T) {
	dir := t.TempDir()
	docs := map[string]string{}
	for i := range 70 {
		docs[fmt.Sprintf("n%02d.md", i)] = fmt.Sprintf("# Note %d\n\nNote number %d talks about topic%d.\n", i, i, i)
	}
	writeDocs(t, dir, docs)
	e := newWordsEmbedder()
	ix := openHybrid(t, e)
	st, err := ix.Sync(t.Context(), dir)
	if err != nil {
		t.Fatal(err)
	}
	if st.Embedded != 70 || fmt.Sprint(e.calls()) != "[64 6]" {
		t.Fatalf("first sync embedded %d in calls %v, want 70 in [64 6]", st.Embedded, e.calls())
	}
	if st, err = ix.Sync(t.Context(), dir); err != nil || st.Embedded != 0 || len(e.calls()) != 2 {
		t.Fatalf("unchanged: %+v %v, calls %v", st, err, e.calls())
	}
	writeDocs(t, dir, map[string]string{"n05.md": "# Note 5\n\nNote five was rewritten.\n"})
	if err := os.Remove(filepath.Join(dir, "n06.md")); err != nil {
		t.Fatal(err)
	}
	if st, err = ix.Sync(t.Context(), dir); err != nil || st.Embedded != 1 {
		t.Fatalf("changed: %+v %v", st, err)
	}
	var n int
	if err := ix.db.QueryRow(`SELECT count(*) FROM embeddings`).Scan(&n); err != nil || n != 69 {
		t.Errorf("%d vectors kept, want 69 (%v)", n, err)
	}
	res, err := ix.Search(t.Context(), "rewritten", 1)
	if err != nil || len(res) != 1 || res[0].DocID != "n05.md" {
		t.Errorf("search after the change: %v %v", ids(res), err)
	}
	// Another Index of the file with the same model finds the vectors
	// there and asks for none.
	e2 := newWordsEmbedder()
	ix2, err := Open(t.Context(), ix.dbPath, WithEmbedder(e2))
	if err != nil {
		t.Fatal(err)
	}
	defer ix2.Close()
	if st, err := ix2.Sync(t.Context(), dir); err != nil || st.Embedded != 0 || len(e2.calls()) != 0 {
		t.Errorf("reopened: %+v %v %v", st, err, e2.calls())
	}
	// Another model's vectors are its own.
	e3 := newWordsEmbedder()
	e3.dim = 128
	ix3, err := Open(t.Context(), ix.dbPath, WithEmbedder(e3))
	if err != nil {
		t.Fatal(err)
	}
	defer ix3.Close()
	if st, err := ix3.Sync(t.Context(), dir); err != nil || st.Embedded != 69 {
		t.Errorf("another model: %+v %v", st, err)
	}
}

// A model that fails fails the Sync with its error after the lexical
// index is committed, which searches then use; the next Sync embeds what
// is missing.
func TestEmbeddingFailure(t *testing.T) {
	dir := t.TempDir()
	writeDocs(t, dir, hybridDocs)
	e := newWordsEmbedder("sort arrange order rank")
	boom := errors.New("provider down")
	e.fail = boom
	ix := openHybrid(t, e)
	st, err := ix.Sync(t.Context(), dir)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "embed 4 passages with test:words-256") {
		t.Fatalf("err %v", err)
	}
	if st.Added != 4 || st.Embedded != 0 {
		t.Errorf("stats %+v", st)
	}
	res, err := ix.Search(t.Context(), "goroutines", 2)
	if err != nil || len(res) == 0 || res[0].DocID != "channels.md" {
		t.Errorf("lexical half while unembedded: %v %v", ids(res), err)
	}
	e.fail = nil
	if st, err := ix.Sync(t.Context(), dir); err != nil || st.Embedded != 4 {
		t.Fatalf("second sync %+v %v", st, err)
	}
	if res, err := ix.Search(t.Context(), "how do I rank items", 1); err != nil || len(res) != 1 || res[0].DocID != "slices.md" {
		t.Errorf("after embedding: %v %v", ids(res), err)
	}
}

// A query vector of another length than the stored ones is an error that
// says so.
func TestHybridDimensionMismatch(t *testing.T) {
	dir := t.TempDir()
	writeDocs(t, dir, hybridDocs)
	e := newWordsEmbedder()
	ix := openHybrid(t, e)
	if _, err := ix.Sync(t.Context(), dir); err != nil {
		t.Fatal(err)
	}
	ix.emb = &resized{e}
	if _, err := ix.Search(t.Context(), "channels", 2); err == nil || !strings.Contains(err.Error(), "the index's vectors have 256") {
		t.Errorf("err %v", err)
	}
}

type resized struct{ *wordsEmbedder }

func (r *resized) EmbedQuery(ctx context.Context, text string) ([]float32, error) {
	v, err := r.wordsEmbedder.EmbedQuery(ctx, text)
	return v[:10], err
}

// fixedEmbedder returns one vector for every query.
type fixedEmbedder struct {
	wordsEmbedder
	v []float32
}

func (f *fixedEmbedder) EmbedQuery(context.Context, string) ([]float32, error) { return f.v, nil }

// BenchmarkNearest measures the vector half of a hybrid search: ranking
// 1,000 passages of 1,536 dimensions (text-embedding-3-small's) by
// similarity to the query.
func BenchmarkNearest(b *testing.B) {
	const n, dim = 1000, 1536
	vs := &vectorSet{model: "bench", dim: dim, pids: make([]int64, n), docs: make([]int64, n), data: make([]float32, n*dim)}
	seed := uint32(1)
	next := func() float32 { seed = seed*1664525 + 1013904223; return float32(seed>>8)/float32(1<<24) - 0.5 }
	for i := range n {
		vs.pids[i], vs.docs[i] = int64(i+1), int64(i/3)
		for k := range dim {
			vs.data[i*dim+k] = next()
		}
	}
	q := make([]float32, dim)
	for k := range q {
		q[k] = next()
	}
	ix := &Index{emb: &fixedEmbedder{v: q}}
	ix.vecs.Store(vs)
	docOf := map[int64]int64{}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ix.nearest(context.Background(), "q", 50, docOf); err != nil {
			b.Fatal(err)
		}
	}
}
