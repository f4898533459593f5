package deepresearchtest

import "fmt"

// TechMartSynonyms is the synonym table TechMart's collections are
// embedded with (NewConcepts(TechMartSynonyms)): what a question about
// prices, laptops, returns or warranties must share with the records.
var TechMartSynonyms = [][]string{
	{"cost", "price", "how much"},
	{"laptop", "notebook", "techbook"},
	{"return", "refund", "send back"},
	{"warranty", "guarantee"},
}

// TechMart is seed 003's knowledge base as Chroma collections of CSV rows,
// each record's metadata naming its file and 0-based data row ({"source":
// "techmart_catalog.csv", "row_index": 0}), embedded with emb: "catalog"
// (techmart_catalog.csv, three products) and "faq" (techmart_faq.csv,
// three questions with their answers). Load it into NewChromaServer, or
// into a real Chroma server with the same vectors.
func TechMart(emb *Concepts) map[string][]ChromaRecord {
	rows := func(collection, file string, docs ...string) []ChromaRecord {
		out := make([]ChromaRecord, len(docs))
		for i, doc := range docs {
			out[i] = ChromaRecord{ID: fmt.Sprintf("%s_%d", collection, i), Document: doc,
				Metadata: map[string]any{"source": file, "row_index": float64(i)}, Embedding: emb.Embed(doc)}
		}
		return out
	}
	return map[string][]ChromaRecord{
		"catalog": rows("catalog", "techmart_catalog.csv",
			"product_id: SKU001 | name: TechBook Pro | category: laptop | price: 1499.0 | stock: 12",
			"product_id: SKU002 | name: TechBook Air | category: laptop | price: 999.0 | stock: 30",
			"product_id: SKU003 | name: SoundWave Buds | category: audio | price: 129.0 | stock: 85"),
		"faq": rows("faq", "techmart_faq.csv",
			"question: Can I return a laptop? | answer: Laptops can be returned within 30 days of delivery for a full refund.",
			"question: How long is the warranty? | answer: Every TechBook has a two-year warranty covering defects.",
			"question: Do you ship abroad? | answer: TechMart ships to twelve countries in Europe."),
	}
}
