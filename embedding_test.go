package deepresearch_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/corpus"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
)

// synonyms is the test's own table for the Concepts embedding.
var synonyms = [][]string{
	{"sort", "order", "put in order", "arrange", "ascending"},
	{"cost", "price", "how much"},
	{"laptop", "notebook", "techbook"},
}

// embeddingServer is an OpenAI-compatible server answering
// /v1/embeddings with the Concepts embedding.
func embeddingServer(t *testing.T) *deepresearchtest.OpenAIServer {
	s := deepresearchtest.NewOpenAIServer(deepresearchtest.Model(0), deepresearchtest.OpenAIOptions{Embedder: deepresearchtest.NewConcepts(synonyms)})
	t.Cleanup(s.Close)
	return s
}

func writeCorpus(t *testing.T, docs map[string]string) string {
	dir := t.TempDir()
	for name, text := range docs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// seen lists the documents the agents' searches returned, kept or
// dropped by the relevance filter.
func seen(rec *recorder) []string {
	var out []string
	for _, e := range rec.of(events.SourcesFiltered) {
		d := e.Data.(events.FilteredData)
		for _, v := range append(d.Kept, d.Dropped...) {
			if !slices.Contains(out, v.Key) {
				out = append(out, v.Key)
			}
		}
	}
	return out
}

// model.embeddings through config.NewResearcher: the corpus is embedded over
// OpenAI's wire format at indexing time (once), and a question that shares
// no word with a document reaches it; without embeddings it does not.
func TestHybridRunFromSettings(t *testing.T) {
	srv := embeddingServer(t)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "")
	dir := writeCorpus(t, map[string]string{
		"slices.md":   "# Slices\n\nThe Sort function arranges the elements of a slice ascending, smallest first.\n",
		"channels.md": "# Channels\n\nA channel carries values between goroutines and blocks until both sides are ready.\n",
		"maps.md":     "# Maps\n\nA map holds keys and values; iterating over it visits them in no fixed sequence.\n",
	})
	const question = "How do I put the items of a list in order?"
	run := func(embeddings string) ([]string, *corpus.Corpus) {
		s := config.Defaults()
		s.Corpus.Dir, s.Corpus.Index = dir, filepath.Join(t.TempDir(), "index.db")
		s.Model.Embeddings = embeddings
		s.Research.MaxCycles = 1
		cfg, err := config.ResearcherConfig(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		r, err := deepresearch.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { r.Close() })
		rec := &recorder{}
		if _, err := runWith(context.Background(), r, question, rec.sink); err != nil {
			t.Fatal(err)
		}
		return seen(rec), cfg.Search.(*corpus.Corpus)
	}
	found := func(keys []string) bool {
		return slices.ContainsFunc(keys, func(k string) bool { return strings.HasSuffix(k, "/slices.md") })
	}
	lexical, _ := run("")
	if found(lexical) || srv.Embeds() != 0 {
		t.Fatalf("lexical run found %v (%d embedding calls)", lexical, srv.Embeds())
	}
	hybrid, docs := run("openai:concepts")
	if !found(hybrid) {
		t.Errorf("hybrid run found %v, not slices.md", hybrid)
	}
	calls := srv.Embeds()
	if calls < 2 { // the passages at indexing, then each query
		t.Errorf("%d embedding calls", calls)
	}
	st, err := docs.Sync(context.Background())
	if err != nil || st.Embedded != 0 || st.Unchanged != 3 {
		t.Errorf("re-index: %+v %v (nothing to embed again)", st, err)
	}
}

// catalog is seed 003's knowledge base: CSV rows with their source and
// row_index, embedded with the Concepts embedding.
func catalog(c *deepresearchtest.Concepts) []deepresearchtest.ChromaRecord {
	rows := []string{
		"product_id: SKU001; name: TechBook Pro; category: laptop; price: 1499.0; stock: 12",
		"product_id: SKU002; name: TechBook Air; category: laptop; price: 999.0; stock: 30",
		"product_id: SKU003; name: SoundWave Buds; category: audio; price: 129.0; stock: 85",
	}
	var out []deepresearchtest.ChromaRecord
	for i, doc := range rows {
		out = append(out, deepresearchtest.ChromaRecord{ID: fmt.Sprintf("catalog_%d", i), Document: doc,
			Metadata: map[string]any{"source": "techmart_catalog.csv", "row_index": float64(i)}, Embedding: c.Embed(doc)})
	}
	return out
}

// --search chroma: an existing Chroma collection queried with the
// configured embedding model's vectors; a question about one product
// cites its row, shown as seed 003 shows internal sources (the
// collection and the source file), and the row's text is what was read.
func TestChromaRun(t *testing.T) {
	concepts := deepresearchtest.NewConcepts(synonyms)
	chroma := deepresearchtest.NewChromaServer(map[string][]deepresearchtest.ChromaRecord{"catalog": catalog(concepts)},
		deepresearchtest.ChromaOptions{Token: "ck-test"})
	defer chroma.Close()
	srv := embeddingServer(t)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("CHROMA_API_KEY", "ck-test")
	s := config.Defaults()
	s.Search.Providers = []string{"chroma"}
	s.Search.ChromaURL, s.Search.ChromaCollection = chroma.URL, "catalog"
	s.Model.Embeddings = "openai:concepts"
	s.Research.MaxCycles = 1
	s.Fetch.Allow = []string{strings.TrimPrefix(chroma.URL, "http://")}
	r, err := config.NewResearcher(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rec := &recorder{}
	rep, err := runWith(context.Background(), r, "What is the price of the TechBook Air?", rec.sink)
	if err != nil {
		t.Fatal(err)
	}
	if chroma.Queries() == 0 {
		t.Fatal("Chroma was never queried")
	}
	var labels []string
	for _, ref := range rep.References {
		labels = append(labels, ref.Label())
		if ref.Channel != "chroma" {
			t.Errorf("reference %q on channel %q", ref.Label(), ref.Channel)
		}
	}
	if len(labels) != 1 || !strings.HasPrefix(labels[0], "chroma:catalog/techmart_catalog.csv, row") || !strings.Contains(rep.Body, "price: 999.0; stock: 30 [1, row 3]") {
		t.Fatalf("references %q, want the catalog with the TechBook Air's row cited (row_index 1 is row 3)\n%s", labels, rep.Body)
	}
	if !strings.Contains(rep.Text, "999.0") {
		t.Errorf("the report does not quote the row:\n%s", rep.Text)
	}
	// Seed 003's envelope: the collection by its own name, the type chromadb.
	doc, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(doc.CollectionsUsed, []string{"catalog"}) || !slices.Equal(doc.SourceTypes, []string{"chromadb"}) {
		t.Errorf("collections_used %q, source_types %q; want [catalog] and [chromadb]", doc.CollectionsUsed, doc.SourceTypes)
	}
	for _, st := range rep.CitedSources(nil) {
		if want := st.Location.String() + ": product_id: SKU00"; !strings.Contains(st.Text, want) {
			t.Errorf("text read of %s at %v: %q, want the row (%q)", st.Title, st.Location, st.Text, want)
		}
	}
}

// doctor shows the embedding model and, called, embeds one query; it
// finds the Chroma collection.
func TestDiagnoseEmbeddingsAndChroma(t *testing.T) {
	concepts := deepresearchtest.NewConcepts(synonyms)
	chroma := deepresearchtest.NewChromaServer(map[string][]deepresearchtest.ChromaRecord{"catalog": catalog(concepts)}, deepresearchtest.ChromaOptions{})
	defer chroma.Close()
	srv := embeddingServer(t)
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "")
	s := config.Defaults()
	s.Model.Embeddings = "openai:concepts"
	s.Search.Providers = []string{"chroma"}
	s.Search.ChromaURL, s.Search.ChromaCollection = chroma.URL, "catalog"
	ds := config.Diagnose(context.Background(), s, true)
	var got []string
	for _, d := range ds {
		if d.Part == "embeddings" || d.Provider == "chroma" {
			got = append(got, fmt.Sprintf("%s %s %q ok=%v checked=%v %s", d.Part, d.Provider, d.Detail, d.OK(), d.Checked, d.Err))
		}
	}
	want := []string{
		fmt.Sprintf("embeddings openai %q ok=true checked=true ", "concepts "+srv.URL+"/v1 (515 dimensions)"),
		fmt.Sprintf("search chroma %q ok=true checked=true ", chroma.URL+` collection "catalog"`),
	}
	if !slices.Equal(got, want) {
		t.Errorf("diagnoses\n got %q\nwant %q", got, want)
	}
	s.Search.ChromaCollection = "faq"
	for _, d := range config.Diagnose(context.Background(), s, true) {
		if d.Provider == "chroma" && !strings.Contains(d.Err, `Collection [faq] does not exist`) {
			t.Errorf("a missing collection: %+v", d)
		}
	}
}

// Seed 003's knowledge base of several collections: search.chroma_collections
// lists the catalog and the FAQ, a question about both cites a record of
// each, every record keeps its collection, and the JSON report names them
// as seed 003's first example does.
func TestChromaCollectionsRun(t *testing.T) {
	concepts := deepresearchtest.NewConcepts(deepresearchtest.TechMartSynonyms)
	chroma := deepresearchtest.NewChromaServer(deepresearchtest.TechMart(concepts), deepresearchtest.ChromaOptions{})
	defer chroma.Close()
	srv := deepresearchtest.NewOpenAIServer(deepresearchtest.Model(0), deepresearchtest.OpenAIOptions{Embedder: concepts})
	defer srv.Close()
	t.Setenv("OPENAI_BASE_URL", srv.URL+"/v1")
	t.Setenv("OPENAI_API_KEY", "")
	s := config.Defaults()
	s.Search.Providers = []string{"chroma"}
	s.Search.ChromaURL, s.Search.ChromaCollections = chroma.URL, []string{"catalog", "faq"}
	s.Model.Embeddings = "openai:concepts"
	s.Research.MaxCycles = 1
	r, err := config.NewResearcher(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	rep, err := runWith(context.Background(), r, "How much does the TechBook Air cost, and can I return a laptop?", nil)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := rep.JSON()
	if err != nil {
		t.Fatal(err)
	}
	// The answer names the knowledge base as seed 003's do, and the words
	// that name it are not held against the records.
	for _, w := range []string{"According to our product catalog, product_id: SKU002", "According to our FAQ, question: Can I return a laptop?"} {
		if !strings.Contains(rep.Text, w) {
			t.Errorf("the report does not say %q:\n%s", w, rep.Text)
		}
	}
	if strings.Contains(rep.Text, "unsupported") {
		t.Errorf("a citation is flagged:\n%s", rep.Text)
	}
	want := []string{"techmart_catalog.csv", "techmart_faq.csv"}
	if !slices.Equal(doc.Sources, want) || !slices.Equal(doc.CollectionsUsed, []string{"catalog", "faq"}) ||
		!slices.Equal(doc.SourceTypes, []string{"chromadb", "chromadb"}) || doc.CitationFormat != "internal_kb" ||
		!slices.Equal(doc.FormattedCitations, []string{"Product Catalog", "FAQ"}) {
		t.Errorf("sources %q, collections_used %q, source_types %q, citation_format %q, formatted_citations %q",
			doc.Sources, doc.CollectionsUsed, doc.SourceTypes, doc.CitationFormat, doc.FormattedCitations)
	}
}
