package verify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/deepresearch/deepresearch/internal/citeproc"
)

// SidecarProblem is one thing wrong with a JSON document's citation
// sidecar.
type SidecarProblem struct {
	// Index is the sidecar entry's index (-1: the sidecar itself).
	Index   int    `json:"index"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
}

// CheckSidecar validates the citation sidecar of a JSON document (the
// citation protocol's "_citations": [{"path": JSON Pointer, "sids": [n…]}],
// as "deepresearch run --format json" writes it) found at the JSON Pointer
// at (usually "/_citations"): every entry's path is a well-formed JSON
// Pointer to a string field that exists; its sids are distinct numbers of
// the document's "references" (when it has them, else any number of 1 or
// more); and the string at the path cites no number its sids do not list.
// In our own reports (a document with "references") the string must also
// cite each of its sids by a marker the citation parser recognises; in
// another's, the sidecar is authoritative and inline markers optional, as
// the citation protocol has it. It returns the problems found, or an error
// when data is not a JSON document.
func CheckSidecar(data []byte, at string) ([]SidecarProblem, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("verify: sidecar: the document is not JSON: %w", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("verify: sidecar: text after the JSON document")
	}
	return CheckSidecarValue(doc, at), nil
}

// CheckSidecarValue validates the citation sidecar of a document already
// decoded, as CheckSidecar does: JSON decoded into any (numbers as
// float64 or json.Number), or YAML (go.yaml.in/yaml/v3 into any: maps
// with string keys, numbers as int). It is what checks a YAML report's
// "_citations" like a JSON one's.
func CheckSidecarValue(doc any, at string) []SidecarProblem {
	doc = normalize(doc)
	var out []SidecarProblem
	bad := func(i int, path, format string, args ...any) {
		out = append(out, SidecarProblem{Index: i, Path: path, Message: fmt.Sprintf(format, args...)})
	}
	side, err := pointer(doc, at)
	if err != nil {
		bad(-1, at, "no sidecar: %v", err)
		return out
	}
	entries, ok := side.([]any)
	if !ok {
		bad(-1, at, "the sidecar is %s, not an array", article(jsonType(side)))
		return out
	}
	var refs []int
	hasRefs := false
	if m, ok := doc.(map[string]any); ok {
		if rs, ok := m["references"].([]any); ok {
			hasRefs = true
			for _, r := range rs {
				if rm, ok := r.(map[string]any); ok {
					if n, ok := intOf(rm["number"]); ok {
						refs = append(refs, n)
					}
				}
			}
		}
	}
	for i, e := range entries {
		em, ok := e.(map[string]any)
		if !ok {
			bad(i, "", "entry is %s, not an object", article(jsonType(e)))
			continue
		}
		p, ok := em["path"].(string)
		if !ok {
			bad(i, "", "\"path\" is missing or not a string")
			continue
		}
		target, err := pointer(doc, p)
		if err != nil {
			bad(i, p, "%v", err)
			continue
		}
		text, ok := target.(string)
		if !ok {
			bad(i, p, "the path names %s, not a string field", article(jsonType(target)))
		}
		raw, ok := em["sids"].([]any)
		if !ok || len(raw) == 0 {
			bad(i, p, "\"sids\" is missing, empty or not an array")
			continue
		}
		var sids []int
		for _, s := range raw {
			n, ok := intOf(s)
			switch {
			case !ok || n < 1:
				bad(i, p, "sid %v is not a number of 1 or more", s)
			case slices.Contains(sids, n):
				bad(i, p, "sid %d is listed twice", n)
			case hasRefs && !slices.Contains(refs, n):
				bad(i, p, "sid %d is not a reference number", n)
			default:
				sids = append(sids, n)
			}
		}
		if text == "" {
			continue
		}
		cited := markerNumbers(text)
		for _, n := range sids {
			if hasRefs && !slices.Contains(cited, n) {
				bad(i, p, "the text does not cite [%d]", n)
			}
		}
		for _, n := range cited {
			if !slices.Contains(sids, n) && (!hasRefs || slices.Contains(refs, n)) {
				bad(i, p, "the text cites [%d], which its sids do not list", n)
			}
		}
	}
	return out
}

// normalize turns a decoded document's maps with keys of any type (YAML's
// map[any]any) into map[string]any, recursively; other values are kept.
func normalize(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = normalize(x)
		}
		return v
	case map[any]any:
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[fmt.Sprint(k)] = normalize(x)
		}
		return m
	case []any:
		for i, x := range v {
			v[i] = normalize(x)
		}
		return v
	}
	return v
}

// markerNumbers returns the numbers the markers of text cite, in order of
// first appearance.
func markerNumbers(text string) []int {
	var nums []int
	p := citeproc.New(io.Discard, citeproc.Config{Mode: citeproc.Keep, Hooks: citeproc.Hooks{Marker: func(m citeproc.Marker) {
		for _, n := range m.Numbers {
			if !slices.Contains(nums, n) {
				nums = append(nums, n)
			}
		}
	}}})
	_, _ = p.WriteString(text)
	_ = p.Close()
	for _, m := range linkedRe.FindAllStringSubmatch(text, -1) {
		if n := atoi(m[1]); !slices.Contains(nums, n) {
			nums = append(nums, n)
		}
	}
	return nums
}

// pointer resolves a JSON Pointer (RFC 6901) in doc.
func pointer(doc any, p string) (any, error) {
	if p == "" {
		return doc, nil
	}
	if !strings.HasPrefix(p, "/") {
		return nil, fmt.Errorf("%q is not a JSON Pointer: it must start with /", p)
	}
	cur := doc
	for _, tok := range strings.Split(p[1:], "/") {
		if strings.Contains(strings.ReplaceAll(strings.ReplaceAll(tok, "~0", ""), "~1", ""), "~") {
			return nil, fmt.Errorf("%q: bad escape in %q", p, tok)
		}
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, fmt.Errorf("%q: no field %q", p, tok)
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) || (len(tok) > 1 && tok[0] == '0') {
				return nil, fmt.Errorf("%q: no element %q (the array has %d)", p, tok, len(c))
			}
			cur = c[i]
		default:
			return nil, fmt.Errorf("%q: %q is inside %s", p, tok, article(jsonType(cur)))
		}
	}
	return cur, nil
}

// intOf reads an integer as a decoder gives it: json.Number, float64
// (integral), or one of Go's integer types (YAML).
func intOf(v any) (int, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := strconv.Atoi(n.String())
		return i, err == nil
	case float64:
		i := int(n)
		return i, float64(i) == n
	case int:
		return n, true
	case int64:
		return int(n), int64(int(n)) == n
	case uint64:
		return int(n), n <= math.MaxInt
	}
	return 0, false
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number, float64, int, int64, uint64:
		return "number"
	case []any:
		return "array"
	}
	return "object"
}

func article(t string) string {
	switch t {
	case "null":
		return "null"
	case "array", "object":
		return "an " + t
	}
	return "a " + t
}

// SidecarMarkdown returns the claims of a decoded document's citation
// sidecar (at the JSON Pointer at) as a markdown report to verify: entry
// i on line i+1, its string with its blanks collapsed, followed by a
// marker citing the sids its string does not cite already ("The CPU is
// 2.5x faster [3, 5]"). An entry with no string or no sids leaves an HTML
// comment in its line, which cites nothing. It is what verify checks of a
// document that is not ours, whose claims are in the sidecar alone.
func SidecarMarkdown(doc any, at string) string {
	doc = normalize(doc)
	side, _ := pointer(doc, at)
	entries, _ := side.([]any)
	var b strings.Builder
	for i, e := range entries {
		em, _ := e.(map[string]any)
		p, _ := em["path"].(string)
		target, _ := pointer(doc, p)
		text, _ := target.(string)
		raw, _ := em["sids"].([]any)
		var sids []int
		for _, s := range raw {
			if n, ok := intOf(s); ok && n > 0 && !slices.Contains(sids, n) {
				sids = append(sids, n)
			}
		}
		text = strings.Join(strings.Fields(text), " ")
		if text == "" || len(sids) == 0 {
			fmt.Fprintf(&b, "<!-- entry %d: no claim to check -->\n", i)
			continue
		}
		cited := markerNumbers(text)
		var add []string
		for _, n := range sids {
			if !slices.Contains(cited, n) {
				add = append(add, strconv.Itoa(n))
			}
		}
		b.WriteString(text)
		if len(add) > 0 {
			b.WriteString(" [" + strings.Join(add, ", ") + "]")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// CheckYAMLSidecar is CheckSidecar for a YAML document ("deepresearch run
// --format yaml"): the citation sidecar at the JSON Pointer at, checked
// by the same rules against the document YAML decodes to. It returns an
// error when data is not one YAML document of string-keyed mappings.
func CheckYAMLSidecar(data []byte, at string) ([]SidecarProblem, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc, more any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("verify: sidecar: the document is not YAML: %w", err)
	}
	if err := dec.Decode(&more); err != io.EOF {
		return nil, fmt.Errorf("verify: sidecar: more than one YAML document")
	}
	js, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("verify: sidecar: the YAML document has no JSON form: %w", err)
	}
	return CheckSidecar(js, at)
}
