package verify

import (
	"encoding/json"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestCheckSidecar(t *testing.T) {
	const refs = `"references": [{"number": 1}, {"number": 2}]`
	tests := []struct {
		name string
		doc  string
		want []string // substrings of the problems, in order
	}{
		{"valid", `{"blocks": ["A [1].", "B [1][2]."], ` + refs + `, "_citations": [{"path": "/blocks/0", "sids": [1]}, {"path": "/blocks/1", "sids": [1, 2]}]}`, nil},
		{"escaped pointer", `{"a/b": {"~c": "X [2]."}, ` + refs + `, "_citations": [{"path": "/a~1b/~0c", "sids": [2]}]}`, nil},
		{"missing path", `{"blocks": ["A [1]."], ` + refs + `, "_citations": [{"path": "/blocks/3", "sids": [1]}]}`, []string{`no element "3"`}},
		{"not a pointer", `{"blocks": ["A [1]."], "_citations": [{"path": "blocks/0", "sids": [1]}]}`, []string{"must start with /"}},
		{"not a string", `{"blocks": [["A [1]."]], "_citations": [{"path": "/blocks/0", "sids": [1]}]}`, []string{"names an array"}},
		{"unknown sid", `{"blocks": ["A [1] [7]."], ` + refs + `, "_citations": [{"path": "/blocks/0", "sids": [1, 7]}]}`, []string{"sid 7 is not a reference number"}},
		{"sid not cited", `{"blocks": ["A [1]."], ` + refs + `, "_citations": [{"path": "/blocks/0", "sids": [1, 2]}]}`, []string{"does not cite [2]"}},
		{"cited, not listed", `{"blocks": ["A [1] and [2]."], ` + refs + `, "_citations": [{"path": "/blocks/0", "sids": [1]}]}`, []string{"cites [2], which its sids do not list"}},
		{"bad sids", `{"blocks": ["A [1]."], "_citations": [{"path": "/blocks/0", "sids": ["1", 0, 1, 1]}]}`, []string{"sid 1 is not", "sid 0 is not", "sid 1 is listed twice"}},
		{"no sidecar", `{"blocks": []}`, []string{"no sidecar"}},
		{"sidecar not an array", `{"_citations": {}}`, []string{"not an array"}},
		{"another's document: inline markers optional", `{"some": {"nested": {"field": "The CPU is 2.5x faster…"}}, "_citations": [{"path": "/some/nested/field", "sids": [3, 5]}]}`, nil},
		{"another's document: an unlisted marker", `{"a": "The CPU is faster [4].", "_citations": [{"path": "/a", "sids": [3]}]}`, []string{"cites [4], which its sids do not list"}},
		{"rendered links count", `{"blocks": ["A [[1]](https://a.example/)."], ` + refs + `, "_citations": [{"path": "/blocks/0", "sids": [1]}]}`, nil},
	}
	// The document as JSON, and decoded already: by encoding/json (numbers
	// as float64) and as YAML, whose reports carry the same sidecar.
	decoders := map[string]func(string) ([]SidecarProblem, error){
		"json": func(doc string) ([]SidecarProblem, error) { return CheckSidecar([]byte(doc), "/_citations") },
		"decoded json": func(doc string) ([]SidecarProblem, error) {
			var v any
			if err := json.Unmarshal([]byte(doc), &v); err != nil {
				return nil, err
			}
			return CheckSidecarValue(v, "/_citations"), nil
		},
		"yaml": func(doc string) ([]SidecarProblem, error) {
			var v any
			if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
				return nil, err
			}
			return CheckSidecarValue(v, "/_citations"), nil
		},
	}
	for _, tt := range tests {
		for dec, check := range decoders {
			t.Run(tt.name+"/"+dec, func(t *testing.T) {
				got, err := check(tt.doc)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(tt.want) {
					t.Fatalf("problems %+v, want %d", got, len(tt.want))
				}
				for i, w := range tt.want {
					if !strings.Contains(got[i].Message, w) {
						t.Errorf("problem %d: %q does not say %q", i, got[i].Message, w)
					}
				}
			})
		}
	}
	// A YAML report written as YAML, not as JSON.
	doc := "blocks:\n  - \"A [1].\"\n  - \"B [1][2].\"\nreferences:\n  - number: 1\n  - number: 2\n_citations:\n  - path: /blocks/1\n    sids: [1, 2]\n  - {path: /blocks/0, sids: [2]}\n"
	var v any
	if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatal(err)
	}
	if got := CheckSidecarValue(v, "/_citations"); len(got) != 2 || got[0].Index != 1 || !strings.Contains(got[0].Message, "does not cite [2]") {
		t.Errorf("YAML report: %+v", got)
	}
	if _, err := CheckSidecar([]byte(`{"a": 1} x`), "/_citations"); err == nil {
		t.Error("trailing text: no error")
	}
}

// A document that is not ours keeps its claims in its sidecar: each entry
// becomes a line citing its sids.
func TestSidecarMarkdown(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"seed 001's example", `{"some": {"nested": {"field": "The CPU is 2.5x faster…"}}, "_citations": [{"path": "/some/nested/field", "sids": [3, 5]}]}`,
			"The CPU is 2.5x faster… [3, 5]\n"},
		{"inline markers kept, not repeated", `{"a": "Fast [[S:3]].", "b": "Two\nlines", "_citations": [{"path": "/a", "sids": [3, 5]}, {"path": "/b", "sids": [1]}]}`,
			"Fast [[S:3]]. [5]\nTwo lines [1]\n"},
		{"an entry with no claim", `{"a": 1, "b": "B", "_citations": [{"path": "/a", "sids": [1]}, {"path": "/b", "sids": [2]}]}`,
			"<!-- entry 0: no claim to check -->\nB [2]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v any
			if err := json.Unmarshal([]byte(tt.doc), &v); err != nil {
				t.Fatal(err)
			}
			if got := SidecarMarkdown(v, "/_citations"); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
