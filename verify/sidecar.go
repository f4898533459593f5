package verify

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	iverify "github.com/deepresearch/deepresearch/internal/verify"
)

// CheckSidecar checks the citation sidecar of a JSON report (the array at
// JSON Pointer pointer, "/_citations" in a report rendered as JSON): every
// entry must point at a string that cites exactly the reference numbers
// it lists. It returns an error when data is not JSON or has no sidecar.
func CheckSidecar(data []byte, pointer string) ([]SidecarProblem, error) {
	return iverify.CheckSidecar(data, pointer)
}

// CheckYAMLSidecar is CheckSidecar for a YAML report: the same checks on
// the document the YAML decodes to.
func CheckYAMLSidecar(data []byte, pointer string) ([]SidecarProblem, error) {
	return iverify.CheckYAMLSidecar(data, pointer)
}

// CheckSidecarValue checks the citation sidecar of a document already
// decoded, as CheckSidecar does for JSON: a JSON document decoded into
// any, or a YAML report decoded by go.yaml.in/yaml/v3, whose "_citations"
// sidecar has the same shape.
func CheckSidecarValue(doc any, pointer string) []SidecarProblem {
	return iverify.CheckSidecarValue(doc, pointer)
}

// SidecarMarkdown returns the claims of a JSON document's citation
// sidecar (the array at JSON Pointer pointer, "/_citations") as a markdown
// report Verify checks: entry i on line i+1, its string followed by a
// marker citing the sids it does not cite inline ("The CPU is 2.5x faster
// [3, 5]"). It is how a document that is not ours, whose claims live in
// its sidecar alone (the citation protocol's JSON form), is verified. It
// returns an error when data is not JSON.
func SidecarMarkdown(data []byte, pointer string) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return "", fmt.Errorf("verify: the sidecar's document is not JSON: %w", err)
	}
	return iverify.SidecarMarkdown(doc, pointer), nil
}

// JSONReportText is the text to verify of a JSON report, and what
// checking its citation sidecar ("/_citations") found: a report rendered
// as JSON is verified by its "text"; another's document with a sidecar
// and no "text" (the citation protocol's JSON form) by its sidecar's
// claims, one a line (line n is entry n-1), which fromSidecar then says.
// It returns an error when data is not such a document.
func JSONReportText(data []byte) (text string, fromSidecar bool, sidecar []SidecarProblem, err error) {
	var doc struct {
		Text      *string         `json:"text"`
		Citations json.RawMessage `json:"_citations"`
	}
	if err := json.Unmarshal(data, &doc); err != nil || doc.Text == nil && doc.Citations == nil {
		if err == nil {
			err = errors.New("it has neither")
		}
		return "", false, nil, fmt.Errorf("verify: a JSON report needs a \"text\" field, or a \"_citations\" sidecar of its claims (%v)", err)
	}
	if sidecar, err = CheckSidecar(data, "/_citations"); err != nil {
		return "", false, nil, err
	}
	if doc.Text != nil {
		return *doc.Text, false, sidecar, nil
	}
	text, err = SidecarMarkdown(data, "/_citations")
	return text, true, sidecar, err
}
