package websearch_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/internal/clock"
	"github.com/deepresearch/deepresearch/internal/search"
	"github.com/deepresearch/deepresearch/internal/source"
	"github.com/deepresearch/deepresearch/internal/websearch"
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
