package finalreport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// YAML renders doc as a YAML document: the JSON document's fields, in the
// same order and under the same names (its JSON form is the one
// definition of both), so that its citation sidecar's JSON Pointers
// ("/blocks/3") name the same values in either. Mappings and sequences are
// in block style, multi-line text in literal blocks (double-quoted where a
// literal block cannot hold it: trailing spaces, control characters, the
// line breaks YAML knows beyond JSON's), and
// every string that would read as another type ("yes", "12",
// "2024-03-15", "null") quoted. Decoding it gives exactly what decoding the
// JSON document gives.
func YAML(doc *Document) ([]byte, error) {
	js, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("finalreport: yaml: %w", err)
	}
	// JSON is YAML: parsed as YAML it is a node tree in JSON's order, with
	// JSON's types as tags; only its styles change.
	var root yaml.Node
	if err := yaml.Unmarshal(yamlEscape(js), &root); err != nil {
		return nil, fmt.Errorf("finalreport: yaml: %w", err)
	}
	blockStyle(&root)
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&root); err != nil {
		return nil, fmt.Errorf("finalreport: yaml: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("finalreport: yaml: %w", err)
	}
	return out.Bytes(), nil
}

// blockStyle drops the flow and quoting styles JSON's syntax gave the
// nodes: the encoder then quotes a string only where it must, and writes
// multi-line strings as literal blocks.
func blockStyle(n *yaml.Node) {
	n.Style = 0
	switch {
	case n.Kind != yaml.ScalarNode || n.Tag != "!!str":
	case strings.ContainsAny(n.Value, "\u0085\u2028\u2029") || strings.HasPrefix(n.Value, "\t") || strings.Contains(n.Value, "\n\t"):
		// Line breaks to YAML that the encoder writes unescaped outside
		// double quotes (NEL, LS, PS), which a reader would fold; a line
		// led by a tab, which the encoder writes into a literal block
		// that no reader takes.
		n.Style = yaml.DoubleQuotedStyle
	case strings.Contains(n.Value, "\n"):
		n.Style = yaml.LiteralStyle
	}
	for _, c := range n.Content {
		blockStyle(c)
	}
}

// yamlEscape escapes, in JSON text, the characters JSON leaves raw that
// YAML does not read as themselves inside a double-quoted string: those
// outside YAML's printable set (DEL, the C1 controls, U+FFFE, U+FFFF),
// NEL (a line break to YAML, folded to a space) and the byte order mark.
// encoding/json writes them only inside strings, where \uXXXX means the
// same character to both.
func yamlEscape(js []byte) []byte {
	var out []byte
	for i, r := range string(js) {
		if r == 0x7f || r >= 0x80 && r <= 0x9f || r == 0xfeff || r == 0xfffe || r == 0xffff {
			if out == nil {
				out = append(make([]byte, 0, len(js)+16), js[:i]...)
			}
			out = fmt.Appendf(out, `\u%04x`, r)
			continue
		}
		if out != nil {
			out = utf8.AppendRune(out, r)
		}
	}
	if out == nil {
		return js
	}
	return out
}
