package extract

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/golden"
	"github.com/deepresearch/deepresearch/source"
)

// formatsDir holds one file of each binary format, written by the tools
// that write them (testdata/formats/make.sh).
const formatsDir = "testdata/formats"

// renderLocated is render with each passage's structured location.
func renderLocated(d *Document, ps []Passage) string {
	var b strings.Builder
	b.WriteString(render(d, ps))
	b.WriteString("\n--- locations\n")
	for i, p := range ps {
		b.WriteString(strings.Join([]string{itoa(i), p.Loc.Kind, p.Loc.Part, p.Loc.Value}, " | ") + "\n")
	}
	b.WriteString("\n--- text\n" + d.Text + "\n")
	return b.String()
}

func itoa(i int) string { return string(rune('0'+i/10)) + string(rune('0'+i%10)) }

// TestFormatsGolden reads each office, EPUB and CSV fixture and compares
// its passages, their locations and its text with
// testdata/formats/*.golden; -update rewrites them.
func TestFormatsGolden(t *testing.T) {
	for _, name := range []string{"handbook.docx", "guide.odt", "deck.pptx", "book.epub", "catalog.xlsx", "stock.ods", "catalog.csv", "depots.tsv"} {
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(formatsDir, name))
			if err != nil {
				t.Fatal(err)
			}
			f := FormatOf(name)
			if !f.Binary() {
				t.Fatalf("%s: format %d is not binary", name, f)
			}
			doc, err := ExtractBytes(t.Context(), name, data, f, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("formats", name+".golden"), renderLocated(&doc, Split(&doc)))
		})
	}
}

// Each row of a CSV file is a passage of its own, named by the header and
// located by its row as a spreadsheet numbers it: seed 003's catalogue,
// cited as "catalog.csv, row 3".
func TestCSVRows(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(formatsDir, "catalog.csv"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := ExtractBytes(context.Background(), "catalog.csv", data, FormatCSV, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	ps := Split(&doc)
	want := []struct{ row, body string }{
		{"2", "product_id: SKU001; name: TechBook Pro; category: laptop; price: 1499.0; stock: 12; description: 14-inch laptop with 32 GB of memory and a 2 TB drive"},
		{"3", "product_id: SKU002; name: TechBook Air; category: laptop; price: 999.0; stock: 40; description: 13-inch laptop, 1.1 kg, 18 hours of battery"},
		{"4", `product_id: SKU003; name: SoundWave X2; category: headphones; price: 249.0; stock: 0; description: Noise-cancelling headphones; "studio" sound`},
		// Row 5 is empty; row 6 spans two lines of the file.
		{"6", "product_id: SKU004; name: PowerDock 9; category: accessory; price: 189.0; stock: 7; description: Dock with nine ports, two of them Thunderbolt, and a 100 W charger"},
		{"7", "product_id: SKU005; category: accessory; price: 19.0; description: USB-C cable"},
	}
	if len(ps) != len(want) {
		t.Fatalf("%d passages, want %d: %+v", len(ps), len(want), ps)
	}
	for i, w := range want {
		loc := source.Location{Kind: source.LocRow, Value: w.row}
		if ps[i].Loc != loc || ps[i].Body != w.body {
			t.Errorf("passage %d: %+v %q\nwant %+v %q", i, ps[i].Loc, ps[i].Body, loc, w.body)
		}
	}
	if doc.Title != "catalog.csv" {
		t.Errorf("title %q", doc.Title)
	}
	src := source.Source{ID: "catalog.csv", URL: "file:///c/catalog.csv", Title: doc.Title, Location: ps[1].Loc}
	if got := src.Label(); got != "catalog.csv, row 3" {
		t.Errorf("label %q", got)
	}
}
