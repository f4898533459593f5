package verify

import (
	"strings"
	"testing"
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
		{"rendered links count", `{"blocks": ["A [[1]](https://a.example/)."], ` + refs + `, "_citations": [{"path": "/blocks/0", "sids": [1]}]}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := CheckSidecar([]byte(tt.doc), "/_citations")
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
	if _, err := CheckSidecar([]byte(`{"a": 1} x`), "/_citations"); err == nil {
		t.Error("trailing text: no error")
	}
}
