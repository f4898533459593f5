package cite_test

import (
	"fmt"

	"github.com/deepresearch/deepresearch/cite"
	"github.com/deepresearch/deepresearch/source"
)

// The citation core on text from any model: Cite renumbers a text's
// markers by first citation, one number per resource (two URL forms of
// one page meet), and drops a number no source backs.
func ExampleCite() {
	cited, err := cite.Cite("Cables fail [3]. Ships repair them [7][3]. Unbacked [9].", cite.Options{
		Mode: cite.Renumber,
		Sources: map[int]source.Source{
			3: {ID: "a", URL: "https://example.com/faults?utm_source=x", Title: "Faults"},
			7: {ID: "b", URL: "https://example.com/repair", Title: "Repair"},
		},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(cited.Text)
	for _, c := range cited.Citations {
		fmt.Printf("[%d] was [%d]: %s\n", c.Display, c.Number, c.Source.Title)
	}
	fmt.Printf("unresolved: %d\n", cited.Unresolved[0].Number)
	// Output:
	// Cables fail [1]. Ships repair them [2][1]. Unbacked.
	// [1] was [3]: Faults
	// [2] was [7]: Repair
	// unresolved: 9
}

// A citation index built one source at a time, as the MCP server's
// citation_add does: Add gives each resource a number the first time it
// is cited (two URL forms of one page meet), and the same number after.
func ExampleMerger_Add() {
	m := cite.NewMerger()
	fmt.Println(m.Add("Faults", source.Source{URL: "https://example.com/faults?utm_source=x", Title: "Faults"}))
	fmt.Println(m.Add("Repair", source.Source{URL: "https://example.com/repair", Title: "Repair"}))
	fmt.Println(m.Add("Repair", source.Source{URL: "https://EXAMPLE.com/faults", Title: "Faults, again"}))
	for _, s := range m.Sources() {
		fmt.Println(s.Number, s.CanonicalURL, s.UsedInSections)
	}
	// Output:
	// 1
	// 2
	// 1
	// 1 https://example.com/faults [Faults Repair]
	// 2 https://example.com/repair [Repair]
}
