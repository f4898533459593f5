package verify

import (
	"reflect"
	"strings"
	"testing"
)

// TestCheckYAMLSidecar: a YAML report's sidecar is checked by the same
// rules as a JSON one: each YAML document gives exactly the problems its
// JSON twin gives.
func TestCheckYAMLSidecar(t *testing.T) {
	const block = `question: "How?"
blocks:
  - '# Title'
  - |
    A claim [1].
    Another [1][2].
  - "2024-03-15"
references:
  - number: 1
  - number: 2
_citations:
  - path: /blocks/1
    sids: [1, 2]
`
	const twin = `{"question": "How?", "blocks": ["# Title", "A claim [1].\nAnother [1][2].\n", "2024-03-15"],` +
		` "references": [{"number": 1}, {"number": 2}], "_citations": [{"path": "/blocks/1", "sids": [1, 2]}]}`
	edit := func(s, old, new string) string { return strings.Replace(s, old, new, 1) }
	tests := []struct {
		name       string
		yaml, json string
		problems   int
	}{
		{"valid", block, twin, 0},
		{"unknown sid", edit(block, "sids: [1, 2]", "sids: [1, 2, 3]"), edit(twin, `"sids": [1, 2]`, `"sids": [1, 2, 3]`), 1},
		{"a date-like string cites nothing", edit(block, "path: /blocks/1", "path: /blocks/2"), edit(twin, `"/blocks/1"`, `"/blocks/2"`), 2},
		{"a number is no string", "n: 12\n_citations:\n  - {path: /n, sids: [1]}\n", `{"n": 12, "_citations": [{"path": "/n", "sids": [1]}]}`, 1},
		{"no sidecar", "blocks: []\n", `{"blocks": []}`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CheckYAMLSidecar([]byte(tt.yaml), "/_citations")
			if err != nil {
				t.Fatal(err)
			}
			want, err := CheckSidecar([]byte(tt.json), "/_citations")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) || len(got) != tt.problems {
				t.Errorf("YAML: %+v\nJSON: %+v\nwant %d problems", got, want, tt.problems)
			}
		})
	}
	for _, bad := range []string{"a: [1\n", "? [1, 2]\n: x\n", "a: 1\n---\nb: 2\n"} {
		if _, err := CheckYAMLSidecar([]byte(bad), "/_citations"); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}
