package websearch_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/internal/websearch"
	"github.com/deepresearch/deepresearch/search"
	"github.com/deepresearch/deepresearch/source"
)

// seedCatalog is seed 003's knowledge base, as its documents are written
// (fields joined by " | ") with their source and row_index.
func seedCatalog(c *deepresearchtest.Concepts) map[string][]deepresearchtest.ChromaRecord {
	rows := []string{
		"product_id: SKU001 | name: TechBook Pro | category: laptop | price: 1499.0",
		"product_id: SKU002 | name: TechBook Air | category: laptop | price: 999.0",
		"product_id: SKU003 | name: SoundWave Buds | category: audio | price: 129.0",
	}
	var recs []deepresearchtest.ChromaRecord
	for i, doc := range rows {
		recs = append(recs, deepresearchtest.ChromaRecord{ID: fmt.Sprintf("catalog_%d", i), Document: doc,
			Metadata: map[string]any{"source": "techmart_catalog.csv", "row_index": float64(i)}, Embedding: c.Embed(doc)})
	}
	recs = append(recs, deepresearchtest.ChromaRecord{ID: "note_1", Document: "Returns are accepted within 30 days.",
		Metadata: map[string]any{"collection": "faq"}, Embedding: c.Embed("Returns are accepted within 30 days.")})
	return map[string][]deepresearchtest.ChromaRecord{"catalog": recs}
}

// Chroma's v2 API (and v1 on a server older than 0.6): the collection
// found by name, queried by id with the query's vector; metadata source
// and row_index become the document and its row; Fetch reads the source's
// rows in order, so that a row's unit can be opened.
func TestChroma(t *testing.T) {
	concepts := deepresearchtest.NewConcepts([][]string{{"cost", "price"}, {"laptop", "notebook"}})
	for _, v1 := range []bool{false, true} {
		t.Run(fmt.Sprintf("v1-only=%v", v1), func(t *testing.T) {
			srv := deepresearchtest.NewChromaServer(seedCatalog(concepts), deepresearchtest.ChromaOptions{V1Only: v1, Token: "ck"})
			defer srv.Close()
			ch, err := websearch.NewChroma(websearch.ChromaConfig{URL: srv.URL, Collection: "catalog", Token: "ck"}, concepts, websearch.Config{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := ch.Search(context.Background(), "notebook cost TechBook Air", 2)
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != 2 {
				t.Fatalf("%d results", len(res))
			}
			r := res[0]
			want := search.Result{DocID: "chroma:catalog/techmart_catalog.csv", Title: "chroma:catalog/techmart_catalog.csv",
				Location: "row 3", Locator: source.Location{Kind: source.LocRow, Value: "3"},
				Snippet: "product_id: SKU002 | name: TechBook Air | category: laptop | price: 999.0", Channel: "chroma", Score: r.Score}
			if r != want || r.Score >= 0 || res[1].Score > r.Score {
				t.Errorf("result\n got %+v\nwant %+v", r, want)
			}
			doc, err := ch.Fetch(context.Background(), r.DocID)
			if err != nil {
				t.Fatal(err)
			}
			wantText := "row 2: product_id: SKU001 | name: TechBook Pro | category: laptop | price: 1499.0\n" +
				"row 3: product_id: SKU002 | name: TechBook Air | category: laptop | price: 999.0\n" +
				"row 4: product_id: SKU003 | name: SoundWave Buds | category: audio | price: 129.0\n"
			if doc.Text != wantText || doc.Title != r.DocID {
				t.Errorf("fetched %q\nwant %q", doc.Text, wantText)
			}
			// A record with no source is a document of its own.
			res, err = ch.Search(context.Background(), "returns accepted", 1)
			if err != nil || len(res) != 1 || res[0].DocID != "chroma:catalog#note_1" || !res[0].Locator.IsZero() {
				t.Fatalf("%+v %v", res, err)
			}
			if doc, err := ch.Fetch(context.Background(), res[0].DocID); err != nil || doc.Text != "Returns are accepted within 30 days.\n" {
				t.Errorf("%q %v", doc.Text, err)
			}
			if _, err := ch.Fetch(context.Background(), "chroma:faq/x.csv"); !errors.Is(err, search.ErrNotFound) {
				t.Errorf("another collection's id: %v", err)
			}
			if err := ch.Check(context.Background()); err != nil {
				t.Error(err)
			}
		})
	}
}

// Errors say what Chroma said, and which call: a collection that does not
// exist, a missing token, a vector of the wrong length (another model than
// the collection's), an embedding model that fails.
func TestChromaErrors(t *testing.T) {
	concepts := deepresearchtest.NewConcepts(nil)
	srv := deepresearchtest.NewChromaServer(seedCatalog(concepts), deepresearchtest.ChromaOptions{Token: "ck"})
	defer srv.Close()
	other := deepresearchtest.NewConcepts([][]string{{"a", "b"}}) // one dimension more
	for _, tc := range []struct {
		name string
		cc   websearch.ChromaConfig
		emb  websearch.QueryEmbedder
		err  error
		msg  string
	}{
		{"missing collection", websearch.ChromaConfig{Collection: "faq", Token: "ck"}, concepts, websearch.ErrRejected,
			`chroma find collection "faq": request rejected (HTTP 404): NotFoundError: Collection [faq] does not exist`},
		{"no token", websearch.ChromaConfig{Collection: "catalog"}, concepts, websearch.ErrAuth, "AuthError: Unauthorized"},
		{"another model's vectors", websearch.ChromaConfig{Collection: "catalog", Token: "ck"}, other, websearch.ErrRejected,
			"Collection expecting embedding with dimension of 512, got 513"},
		{"embedding fails", websearch.ChromaConfig{Collection: "catalog", Token: "ck"}, failing{}, errEmbed, "chroma embed the query"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cc.URL = srv.URL
			ch, err := websearch.NewChroma(tc.cc, tc.emb, websearch.Config{Clock: clock.NewFake(time.Unix(0, 0))})
			if err != nil {
				t.Fatal(err)
			}
			_, err = ch.Search(context.Background(), "price of the TechBook", 3)
			if !errors.Is(err, tc.err) || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("err %v, want %v containing %q", err, tc.err, tc.msg)
			}
		})
	}
	if _, err := websearch.NewChroma(websearch.ChromaConfig{}, concepts, websearch.Config{}); err == nil {
		t.Error("no collection: no error")
	}
	if _, err := websearch.NewChroma(websearch.ChromaConfig{Collection: "c"}, nil, websearch.Config{}); err == nil {
		t.Error("no embedder: no error")
	}
}

var errEmbed = errors.New("embedding model down")

type failing struct{}

func (failing) EmbedQuery(context.Context, string) ([]float32, error) { return nil, errEmbed }

// Several collections of one server (seed 003's catalog, faq and
// troubleshooting): Build makes a member of each, every record keeps its
// collection in its DocID, a search reaches all of them and Fetch reads a
// record through the collection that returned it. Before, the list was
// sent to Chroma as one name (404).
func TestChromaCollections(t *testing.T) {
	concepts := deepresearchtest.NewConcepts([][]string{{"cost", "price"}, {"return", "refund"}})
	faqDoc := "question: Can I return a laptop? | answer: Refunds within 30 days."
	cols := seedCatalog(concepts)
	cols["faq"] = []deepresearchtest.ChromaRecord{{ID: "faq_0", Document: faqDoc,
		Metadata: map[string]any{"source": "techmart_faq.csv", "row_index": float64(0)}, Embedding: concepts.Embed(faqDoc)}}
	srv := deepresearchtest.NewChromaServer(cols, deepresearchtest.ChromaOptions{})
	defer srv.Close()
	cc := websearch.ChromaConfig{URL: srv.URL, Collections: []string{"catalog", " faq", "catalog"}}
	if got := cc.Names(); strings.Join(got, ",") != "catalog,faq" {
		t.Fatalf("Names() = %q", got)
	}
	var failed []string
	b, err := websearch.Build([]string{"chroma"}, websearch.Config{Chroma: cc, Embedder: concepts},
		nil, websearch.Hooks{Failed: func(_ context.Context, m string, err error) { failed = append(failed, m+": "+err.Error()) }})
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.Search(context.Background(), "refund price of the TechBook Air", 4)
	if err != nil {
		t.Fatal(err)
	}
	byCollection := map[string]int{}
	for _, r := range res {
		src := source.Source{ID: r.DocID, Channel: r.Channel}
		byCollection[src.Collection()]++
	}
	if byCollection["catalog"] == 0 || byCollection["faq"] == 0 || len(failed) > 0 {
		t.Fatalf("results by collection %v (failed %q): %+v", byCollection, failed, res)
	}
	doc, err := b.Fetch(context.Background(), "chroma:faq/techmart_faq.csv")
	if err != nil || doc.Text != "row 2: "+faqDoc+"\n" {
		t.Errorf("fetch of the faq's file: %q %v", doc.Text, err)
	}
	// A collection that does not exist fails its member, named, not the
	// search.
	cc.Collections = append(cc.Collections, "troubleshooting")
	failed = nil
	b, err = websearch.Build([]string{"chroma"}, websearch.Config{Chroma: cc, Embedder: concepts},
		nil, websearch.Hooks{Failed: func(_ context.Context, m string, err error) { failed = append(failed, m+": "+err.Error()) }})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := b.Search(context.Background(), "refund", 3); err != nil || len(res) == 0 {
		t.Fatalf("%+v %v", res, err)
	}
	if len(failed) != 1 || !strings.HasPrefix(failed[0], "chroma:troubleshooting: ") || !strings.Contains(failed[0], "Collection [troubleshooting] does not exist") {
		t.Errorf("failures %q", failed)
	}
	if _, err := websearch.Build([]string{"chroma"}, websearch.Config{Chroma: websearch.ChromaConfig{URL: srv.URL}, Embedder: concepts}, nil, websearch.Hooks{}); err == nil ||
		!strings.Contains(err.Error(), "no collection named") {
		t.Errorf("no collection: %v", err)
	}
}
