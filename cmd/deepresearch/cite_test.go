package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// citeMapping is the mapping of the cite tests: two sources, one with a
// title, and a number (99) the texts cite that it does not hold.
var citeMapping = map[string]any{
	"1": map[string]string{"id": "a", "url": "https://a.org/x", "title": "A"},
	"2": map[string]string{"id": "b", "url": "https://b.org/"},
}

// citeChunks is a small text, split into chunks inside a marker.
var citeChunks = []string{"B [", "2", "] a [1][99], ", "ab [1, 2]."}

// citeInput returns a cite request as JSON.
func citeInput(t *testing.T, req map[string]any) string {
	t.Helper()
	b, err := json.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// citeCitation is one entry of the citations of cite's output.
type citeCitation struct {
	Number int    `json:"number"`
	ID     string `json:"id"`
	URL    string `json:"url,omitempty"`
	Title  string `json:"title,omitempty"`
}

// citeOutput is the documented output of cite.
type citeOutput struct {
	Text        string         `json:"text"`
	Citations   []citeCitation `json:"citations"`
	Unknown     []int          `json:"unknown"`
	UnknownURLs []string       `json:"unknown_urls"`
	// UnknownMarkers are brackets of citation-like numbers in no understood
	// form.
	UnknownMarkers []string `json:"unknown_markers"`
}

// strictJSON decodes data, exactly one JSON value with no field v does
// not have, into v.
func strictJSON(t *testing.T, what string, data []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s: %v: %s", what, err, data)
	}
	if _, err := dec.Token(); err != io.EOF {
		t.Fatalf("%s: more than one JSON value: %s", what, data)
	}
}

// citeResult decodes the output of cite, strictly: it must be exactly one
// JSON object with only the documented fields.
func citeResult(t *testing.T, r result) citeOutput {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("exit status %d (stderr: %q)", r.code, r.stderr)
	}
	if r.stderr != "" {
		t.Errorf("stderr: %q", r.stderr)
	}
	var resp citeOutput
	strictJSON(t, "stdout", []byte(r.stdout), &resp)
	return resp
}

func TestCiteModesAndStyles(t *testing.T) {
	// In order of first citation; link and renumber renumber 1..K.
	firstCited := []citeCitation{
		{Number: 1, ID: "b", URL: "https://b.org/"},
		{Number: 2, ID: "a", URL: "https://a.org/x", Title: "A"},
	}
	asWritten := []citeCitation{
		{Number: 2, ID: "b", URL: "https://b.org/"},
		{Number: 1, ID: "a", URL: "https://a.org/x", Title: "A"},
	}
	const input = "B [2] a [1][99], ab [1, 2]."
	tests := []struct {
		mode, style string
		text        string
		cited       []citeCitation
	}{
		{"keep", "markdown", input, asWritten},
		{"keep", "plain", input, asWritten},
		{"keep", "footnote", input, asWritten},
		{"keep", "html", input, asWritten},
		{"", "", input, asWritten}, // the defaults: keep, markdown
		{"link", "markdown", "B [[1]](https://b.org/) a [[2]](https://a.org/x), ab [[2]](https://a.org/x)[[1]](https://b.org/).", firstCited},
		{"link", "", "B [[1]](https://b.org/) a [[2]](https://a.org/x), ab [[2]](https://a.org/x)[[1]](https://b.org/).", firstCited},
		{"link", "plain", "B [1] a [2], ab [2, 1].", firstCited},
		{"link", "footnote", "B [^1] a [^2], ab [^2][^1].", firstCited},
		{"link", "html", `B <sup class="cite" data-sids="1"><a href="https://b.org/">[1]</a></sup> a <sup class="cite" data-sids="2"><a href="https://a.org/x" title="A">[2]</a></sup>, ab <sup class="cite" data-sids="2,1"><a href="https://a.org/x" title="A">[2]</a>,<a href="https://b.org/">[1]</a></sup>.`, firstCited},
		{"remove", "markdown", "B a, ab.", asWritten},
		{"remove", "plain", "B a, ab.", asWritten},
		{"remove", "footnote", "B a, ab.", asWritten},
		{"remove", "html", "B a, ab.", asWritten},
		{"renumber", "markdown", "B [1] a [2], ab [2, 1].", firstCited},
		{"renumber", "plain", "B [1] a [2], ab [2, 1].", firstCited},
		{"renumber", "footnote", "B [1] a [2], ab [2, 1].", firstCited},
		{"renumber", "html", "B [1] a [2], ab [2, 1].", firstCited},
	}
	for _, tt := range tests {
		t.Run(tt.mode+"/"+tt.style, func(t *testing.T) {
			req := map[string]any{"mapping": citeMapping, "chunks": citeChunks}
			if tt.mode != "" {
				req["mode"] = tt.mode
			}
			if tt.style != "" {
				req["style"] = tt.style
			}
			got := citeResult(t, cli(t, citeInput(t, req), "cite"))
			if got.Text != tt.text {
				t.Errorf("text:\n got %q\nwant %q", got.Text, tt.text)
			}
			if !slices.Equal(got.Citations, tt.cited) {
				t.Errorf("citations:\n got %+v\nwant %+v", got.Citations, tt.cited)
			}
			if !slices.Equal(got.Unknown, []int{99}) {
				t.Errorf("unknown: got %v, want [99]", got.Unknown)
			}
			if got.UnknownURLs != nil {
				t.Errorf("unknown_urls: got %q, want none", got.UnknownURLs)
			}
		})
	}
}

// TestCiteChunking: the output does not depend on how the text is split
// into chunks: whole, one character at a time, two at a time on even and
// on odd boundaries.
func TestCiteChunking(t *testing.T) {
	text := "Intro【2】 then [1, 2] and `[1]` code, [[1]] and [2-1]; [ref: https://b.org/] [7] end."
	for _, mode := range []string{"keep", "link", "remove", "renumber"} {
		for _, style := range []string{"markdown", "plain", "footnote", "html"} {
			t.Run(mode+"/"+style, func(t *testing.T) {
				req := map[string]any{"mode": mode, "style": style, "mapping": citeMapping, "text": text}
				want := citeResult(t, cli(t, citeInput(t, req), "cite"))
				for name, chunks := range chunkings(text) {
					req := map[string]any{"mode": mode, "style": style, "mapping": citeMapping, "chunks": chunks}
					got := citeResult(t, cli(t, citeInput(t, req), "cite"))
					if got.Text != want.Text || !slices.Equal(got.Citations, want.Citations) ||
						!slices.Equal(got.Unknown, want.Unknown) || !slices.Equal(got.UnknownURLs, want.UnknownURLs) ||
						!slices.Equal(got.UnknownMarkers, want.UnknownMarkers) {
						t.Errorf("%s: got %+v\nwant %+v (as one text)", name, got, want)
					}
				}
			})
		}
	}
}

// chunkings splits s on character boundaries in several ways.
func chunkings(s string) map[string][]string {
	rs := []rune(s)
	split := func(first, n int) []string {
		var out []string
		if first > 0 {
			out = append(out, string(rs[:first]))
		}
		for i := first; i < len(rs); i += n {
			out = append(out, string(rs[i:min(i+n, len(rs))]))
		}
		return out
	}
	return map[string][]string{
		"whole":     {s},
		"by one":    split(0, 1),
		"by two":    split(0, 2),
		"by two+1":  split(1, 2),
		"by three":  split(0, 3),
		"with void": append([]string{"", s[:5], ""}, s[5:], ""),
	}
}

func TestCiteRefURL(t *testing.T) {
	mapping := map[string]any{
		"1": map[string]string{"id": "a", "url": "https://www.example.com/a?utm_source=x", "title": "A"},
		"2": map[string]string{"id": "b", "url": "https://b.org/"},
	}
	tests := []struct {
		name     string
		mode     string
		chunks   []string
		text     string
		cited    []citeCitation
		unknown  []int
		unknownU []string
	}{
		{
			name:   "resolved through the canonical URL",
			mode:   "link",
			chunks: []string{"See [ref: http://exa", "mple.com/a] here."},
			text:   "See [[1]](https://www.example.com/a?utm_source=x) here.",
			cited:  []citeCitation{{Number: 1, ID: "a", URL: "https://www.example.com/a?utm_source=x", Title: "A"}},
		},
		{
			name:   "renumbered to the source's display number",
			mode:   "renumber",
			chunks: []string{"One [2]. Two [ref: http://example.com/a]."},
			text:   "One [1]. Two [2].",
			cited: []citeCitation{
				{Number: 1, ID: "b", URL: "https://b.org/"},
				{Number: 2, ID: "a", URL: "https://www.example.com/a?utm_source=x", Title: "A"},
			},
		},
		{
			name:     "unresolved",
			mode:     "link",
			chunks:   []string{"See [ref: https://nowhere.example/x] and [5]."},
			text:     "See and.",
			cited:    []citeCitation{},
			unknown:  []int{5},
			unknownU: []string{"https://nowhere.example/x"},
		},
		{
			name:   "both",
			mode:   "link",
			chunks: []string{"[ref: https://nowhere.example/x] [ref: https://EXAMPLE.com/a#frag]"},
			text:   "[[1]](https://www.example.com/a?utm_source=x)",
			cited:  []citeCitation{{Number: 1, ID: "a", URL: "https://www.example.com/a?utm_source=x", Title: "A"}},
			unknownU: []string{
				"https://nowhere.example/x",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := map[string]any{"mode": tt.mode, "mapping": mapping, "chunks": tt.chunks}
			got := citeResult(t, cli(t, citeInput(t, req), "cite"))
			if got.Text != tt.text {
				t.Errorf("text:\n got %q\nwant %q", got.Text, tt.text)
			}
			if !slices.Equal(got.Citations, tt.cited) {
				t.Errorf("citations:\n got %+v\nwant %+v", got.Citations, tt.cited)
			}
			if !slices.Equal(got.Unknown, tt.unknown) {
				t.Errorf("unknown: got %v, want %v", got.Unknown, tt.unknown)
			}
			if !slices.Equal(got.UnknownURLs, tt.unknownU) {
				t.Errorf("unknown_urls: got %q, want %q", got.UnknownURLs, tt.unknownU)
			}
		})
	}
}

// TestCiteOutputShape: the output is one indented JSON object whose
// citations and unknown are lists, empty rather than null.
func TestCiteOutputShape(t *testing.T) {
	r := cli(t, `{"text": "No citations here."}`, "cite")
	if r.code != 0 {
		t.Fatalf("exit status %d (stderr: %q)", r.code, r.stderr)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"text": `"No citations here."`, "citations": "[]", "unknown": "[]"}
	if len(got) != len(want) {
		t.Errorf("fields %v, want %v", keysOf(got), keysOf(want))
	}
	for k, v := range want {
		if string(got[k]) != v {
			t.Errorf("%s = %s, want %s", k, got[k], v)
		}
	}
	if !strings.HasSuffix(r.stdout, "}\n") {
		t.Errorf("output does not end with a newline: %q", r.stdout)
	}
	// HTML is not escaped: a program reads the text as written.
	r = cli(t, `{"mode":"link","style":"html","mapping":{"1":{"id":"a","url":"https://a.org/?x=1&y=2"}},"text":"<b>x</b> [1]"}`, "cite")
	resp := citeResult(t, r)
	if strings.Contains(r.stdout, `\u003c`) || strings.Contains(r.stdout, `\u0026`) {
		t.Errorf("output escapes HTML: %s", r.stdout)
	}
	if want := `<b>x</b> <sup class="cite" data-sids="1"><a href="https://a.org/?x=1&amp;y=2">[1]</a></sup>`; resp.Text != want {
		t.Errorf("text %q, want %q", resp.Text, want)
	}
}

func keysOf[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

func TestCiteTextOrChunks(t *testing.T) {
	t.Run("text", func(t *testing.T) {
		got := citeResult(t, cli(t, `{"mode":"link","style":"plain","mapping":{"2":{"id":"b"}},"text":"x [2]"}`, "cite"))
		if got.Text != "x [1]" || !slices.Equal(got.Citations, []citeCitation{{Number: 1, ID: "b"}}) {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("empty text", func(t *testing.T) {
		got := citeResult(t, cli(t, `{"text":""}`, "cite"))
		if got.Text != "" || len(got.Citations) != 0 {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("neither", func(t *testing.T) {
		got := citeResult(t, cli(t, `{"mode":"link"}`, "cite"))
		if got.Text != "" || len(got.Citations) != 0 {
			t.Errorf("got %+v", got)
		}
	})
	t.Run("both", func(t *testing.T) {
		wantBadInput(t, cli(t, `{"text":"a","chunks":["b"]}`, "cite"), `"chunks"`, `"text"`)
	})
	t.Run("both, empty", func(t *testing.T) {
		wantBadInput(t, cli(t, `{"text":"","chunks":[]}`, "cite"), `"chunks"`, `"text"`)
	})
}

// badInputs are inputs both cite and cite --stream (as its first line)
// must reject, with what the message must mention.
var badCiteInputs = []struct {
	name  string
	input string
	want  []string
}{
	{"invalid JSON", `{"mode" "link"}`, []string{"line 1, column", "invalid JSON"}},
	{"truncated JSON", `{"mode": "link",`, []string{"line 1, column", "unexpected end of input"}},
	{"mode of the wrong type", `{"mode": 3}`, []string{"line 1, column", `field "mode"`, "string", "number"}},
	{"style of the wrong type", `{"style": true}`, []string{"line 1, column", `field "style"`, "string", "bool"}},
	{"chunks of the wrong type", `{"chunks": "x"}`, []string{"line 1, column", `field "chunks"`, "string"}},
	{"mapping of the wrong type", `{"mapping": ["x"]}`, []string{"line 1, column", `field "mapping"`, "array"}},
	{"source of the wrong type", `{"mapping": {"1": {"id": 7}}}`, []string{"line 1, column", `"mapping.id"`, "number"}},
	{"unknown field", `{"chunks": ["a"], "bogus": 1}`, []string{`unknown field "bogus"`}},
	{"unknown field of a source", `{"mapping": {"1": {"id": "a", "uri": "x"}}}`, []string{`unknown field "uri"`}},
	{"mapping key not a number", `{"mapping": {"x": {"id": "a"}}}`, []string{`field "mapping"`, `key "x"`, "not a citation number"}},
	{"mapping key of seven digits", `{"mapping": {"1234567": {"id": "a"}}}`, []string{`field "mapping"`, `key "1234567"`, "not a citation number", "from 0 to 999999"}},
	{"not JSON at all", "hello", []string{"line 1, column 1", "want a JSON object", `text that is not JSON ("hello")`}},
	{"invalid UTF-8", "{\"text\": \"caf\xe9 [1]\"}", []string{"line 1, column 14", "invalid UTF-8", "0xE9"}},
	{"mapping key negative", `{"mapping": {"-1": {"id": "a"}}}`, []string{`field "mapping"`, `key "-1"`, "not a citation number"}},
	{"mapping key fractional", `{"mapping": {"1.5": {"id": "a"}}}`, []string{`key "1.5"`}},
	{"mapping number given twice", `{"mapping": {"1": {"id": "a"}, " 1": {"id": "b"}}}`, []string{`field "mapping"`, "1"}},
	{"unknown mode", `{"mode": "bold"}`, []string{`field "mode"`, `"bold"`, "keep, link, remove, renumber"}},
	{"unknown style", `{"style": "bogus"}`, []string{`field "style"`, `"bogus"`, "markdown, plain, footnote or html"}},
	{"an array", `[]`, []string{"line 1, column", "array"}},
	{"trailing garbage", `{"text": "a"} x`, []string{"line 1, column 15", "after the JSON object"}},
	{"two objects", `{"text": "a"} {"text": "b"}`, []string{"line 1, column 15", "after the JSON object"}},
}

func TestCiteBadInput(t *testing.T) {
	tests := append(slices.Clone(badCiteInputs), []struct {
		name  string
		input string
		want  []string
	}{
		{"empty stdin", "", []string{"empty input"}},
		{"blank stdin", " \n\t\n", []string{"empty input"}},
		{"error on a later line", "{\n  \"mode\": \"link\",\n  \"chunks\": [\"a\", 1]\n}\n", []string{"line 3, column", `field "chunks"`, "number"}},
		{"garbage after a multi-line object", "{\n  \"text\": \"a\"\n}\n\n x", []string{"line 5, column 2", "after the JSON object"}},
	}...)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantBadInput(t, cli(t, tt.input, "cite"), append([]string{"stdin"}, tt.want...)...)
		})
	}
}

// TestBadInputNotAnObject: the input must be a JSON object; null is not
// one, and the message is worded in JSON's terms, not Go's.
func TestBadInputNotAnObject(t *testing.T) {
	for _, cmd := range []string{"cite", "collapse"} {
		for _, input := range []string{"null", "[]", `"text"`, "3"} {
			t.Run(cmd+" "+input, func(t *testing.T) {
				r := cli(t, input, cmd)
				wantBadInput(t, r, "line 1, column", "object")
				if strings.Contains(r.stderr, "main.") || strings.Contains(r.stderr, "struct") {
					t.Errorf("the message names Go types: %q", r.stderr)
				}
			})
		}
	}
}

// TestBadInputSyntaxColumn: a syntax error's column is that of the
// offending character.
func TestBadInputSyntaxColumn(t *testing.T) {
	tests := []struct {
		cmd, input, where string
	}{
		{"cite", `{"mode" "link"}`, "line 1, column 9:"},       // the second '"'
		{"cite", "{\n  \"mode\": link}", "line 2, column 11:"}, // the l
		{"collapse", `{"reports": [}`, "line 1, column 14:"},   // the '}'
	}
	for _, tt := range tests {
		t.Run(tt.cmd+" "+tt.input, func(t *testing.T) {
			wantBadInput(t, cli(t, tt.input, tt.cmd), "invalid JSON", tt.where)
		})
	}
}

// TestBadInputTrailingCloser: a closing bracket or brace after the
// object is trailing data like any other.
func TestBadInputTrailingCloser(t *testing.T) {
	tests := []struct {
		cmd, input, where string
	}{
		{"cite", "{\n  \"text\": \"a\"\n}\n}", "line 4, column 1:"},
		{"cite", `{"text": "a"}]`, "line 1, column 14:"},
		{"collapse", `{"reports": []}}`, "line 1, column 16:"},
	}
	for _, tt := range tests {
		t.Run(tt.cmd+" "+tt.input, func(t *testing.T) {
			wantBadInput(t, cli(t, tt.input, tt.cmd), "after the JSON object", tt.where)
		})
	}
}

// TestBadInputWhere: every rejection of a JSON document says where, as a
// line and a column, including unknown fields.
func TestBadInputWhere(t *testing.T) {
	tests := []struct {
		cmd, input, where string
	}{
		{"cite", "{\n  \"chunks\": [\"a\"],\n  \"bogus\": 1\n}", "line 3, column"},
		{"cite", "{\"mapping\": {\"1\": {\"id\": \"a\",\n \"uri\": \"x\"}}}", "line 2, column"},
		{"collapse", "{\"reports\": [\n{\"text\": \"a\", \"bogus\": 1}]}", "line 2, column"},
	}
	for _, tt := range tests {
		t.Run(tt.cmd+" "+tt.where, func(t *testing.T) {
			wantBadInput(t, cli(t, tt.input, tt.cmd), tt.where, "unknown field")
		})
	}
}

// streamLine is one line of cite --stream output, decoded strictly.
type streamLine struct {
	Type        string         `json:"type"`
	Text        string         `json:"text"`
	Number      int            `json:"number"`
	ID          string         `json:"id"`
	URL         string         `json:"url"`
	Title       string         `json:"title"`
	Citations   []citeCitation `json:"citations"`
	Unknown     []int          `json:"unknown"`
	UnknownURLs []string       `json:"unknown_urls"`
	Marker      string         `json:"marker"`
	Markers     []string       `json:"unknown_markers"`
}

// streamInput returns the NDJSON input of cite --stream: the header, then
// each chunk as {"chunk": …}, or as a bare JSON string every other line
// when bare is set.
func streamInput(t *testing.T, header map[string]any, chunks []string, bare bool) string {
	t.Helper()
	var b strings.Builder
	b.WriteString(citeInput(t, header) + "\n")
	for i, c := range chunks {
		var v any = map[string]string{"chunk": c}
		if bare && i%2 == 1 {
			v = c
		}
		line, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// parseStream decodes every line of out, each strictly.
func parseStream(t *testing.T, out string) []streamLine {
	t.Helper()
	var lines []streamLine
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		var l streamLine
		strictJSON(t, "output line "+strconv.Itoa(n), sc.Bytes(), &l)
		switch l.Type {
		case "text", "citation", "unknown", "done":
		default:
			t.Fatalf("output line %d: unknown type %q", n, l.Type)
		}
		lines = append(lines, l)
	}
	if !strings.HasSuffix(out, "\n") && out != "" {
		t.Errorf("output does not end with a newline")
	}
	return lines
}

// linkNumbers finds the citation numbers rendered as links in text.
var linkNumbers = map[string]*regexp.Regexp{
	"markdown": regexp.MustCompile(`\[\[(\d+)\]\]\(`),
	"footnote": regexp.MustCompile(`\[\^(\d+)\]`),
	"html":     regexp.MustCompile(`>\[(\d+)\]</a>`),
}

func TestCiteStream(t *testing.T) {
	text := "B [2] a [1][99], ab [1, 2] and [ref: https://nowhere.example/] then 【2】 [5]."
	for _, mode := range []string{"keep", "link", "remove", "renumber"} {
		for _, style := range []string{"markdown", "plain", "footnote", "html"} {
			t.Run(mode+"/"+style, func(t *testing.T) {
				header := map[string]any{"mode": mode, "style": style, "mapping": citeMapping}
				once := citeResult(t, cli(t, citeInput(t, map[string]any{
					"mode": mode, "style": style, "mapping": citeMapping, "text": text,
				}), "cite"))
				for name, chunks := range chunkings(text) {
					for _, bare := range []bool{false, true} {
						r := cli(t, streamInput(t, header, chunks, bare), "cite", "--stream")
						if r.code != 0 || r.stderr != "" {
							t.Fatalf("%s: exit status %d, stderr %q", name, r.code, r.stderr)
						}
						checkStream(t, fmt.Sprintf("%s, bare %v", name, bare), style, parseStream(t, r.stdout), once)
					}
				}
			})
		}
	}
}

// checkStream checks a stream's lines against the output of cite for
// the same input.
func checkStream(t *testing.T, name, style string, lines []streamLine, once citeOutput) {
	t.Helper()
	if len(lines) == 0 || lines[len(lines)-1].Type != "done" {
		t.Fatalf("%s: the last line is not done: %+v", name, lines)
	}
	var text strings.Builder
	var cited []citeCitation
	var unknown []int
	var unknownURLs []string
	announced := map[string]bool{}
	for i, l := range lines {
		switch l.Type {
		case "text":
			if l.Text == "" {
				t.Errorf("%s: line %d: empty text line", name, i+1)
			}
			text.WriteString(l.Text)
			if re := linkNumbers[style]; re != nil {
				for _, m := range re.FindAllStringSubmatch(l.Text, -1) {
					if !announced[m[1]] {
						t.Errorf("%s: line %d links citation %s before its citation line", name, i+1, m[1])
					}
				}
			}
		case "citation":
			c := citeCitation{Number: l.Number, ID: l.ID, URL: l.URL, Title: l.Title}
			cited = append(cited, c)
			announced[strconv.Itoa(l.Number)] = true
			if l.Text != "" || l.Citations != nil || l.Unknown != nil {
				t.Errorf("%s: line %d: citation line with other fields: %+v", name, i+1, l)
			}
		case "unknown":
			if l.URL != "" {
				unknownURLs = append(unknownURLs, l.URL)
			} else {
				unknown = append(unknown, l.Number)
			}
		case "done":
			if i != len(lines)-1 {
				t.Errorf("%s: done on line %d of %d", name, i+1, len(lines))
			}
			if !slices.Equal(l.Citations, once.Citations) {
				t.Errorf("%s: done citations %+v, want %+v", name, l.Citations, once.Citations)
			}
			if !slices.Equal(l.Unknown, once.Unknown) {
				t.Errorf("%s: done unknown %v, want %v", name, l.Unknown, once.Unknown)
			}
			if !slices.Equal(l.UnknownURLs, once.UnknownURLs) {
				t.Errorf("%s: done unknown_urls %q, want %q", name, l.UnknownURLs, once.UnknownURLs)
			}
		}
	}
	if text.String() != once.Text {
		t.Errorf("%s: text lines:\n got %q\nwant %q (cite without --stream)", name, text.String(), once.Text)
	}
	if !slices.Equal(cited, once.Citations) {
		t.Errorf("%s: citation lines %+v, want %+v", name, cited, once.Citations)
	}
	if !slices.Equal(unknown, once.Unknown) {
		t.Errorf("%s: unknown lines %v, want %v", name, unknown, once.Unknown)
	}
	if !slices.Equal(unknownURLs, once.UnknownURLs) {
		t.Errorf("%s: unknown url lines %q, want %q", name, unknownURLs, once.UnknownURLs)
	}
}

// TestCiteStreamOrder pins the lines of a small stream: a citation line
// comes before the text line that holds its link.
func TestCiteStreamOrder(t *testing.T) {
	in := `{"mode":"link","style":"markdown","mapping":{"1":{"id":"a","url":"https://a.org/x","title":"A"},"2":{"id":"b","url":"https://b.org/"}}}
{"chunk":"B ["}
"2"

{"chunk":"] a [1][99], "}
{"chunk":"ab [1, 2]."}
`
	r := cli(t, in, "cite", "--stream")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("exit status %d, stderr %q", r.code, r.stderr)
	}
	// How the text is split into lines is the processor's business; the
	// other lines, byte for byte, and where they fall in the text are not.
	want := []string{
		"B",
		`{"type":"citation","number":1,"id":"b","url":"https://b.org/"}`,
		" [[1]](https://b.org/) a",
		`{"type":"citation","number":2,"id":"a","url":"https://a.org/x","title":"A"}`,
		" [[2]](https://a.org/x)",
		`{"type":"unknown","number":99}`,
		", ab [[2]](https://a.org/x)[[1]](https://b.org/).",
		`{"type":"done","citations":[{"number":1,"id":"b","url":"https://b.org/"},{"number":2,"id":"a","url":"https://a.org/x","title":"A"}],"unknown":[99]}`,
	}
	var got []string
	text := false // whether the last of got is text
	for raw := range strings.Lines(r.stdout) {
		var l streamLine
		strictJSON(t, "output", []byte(raw), &l)
		if l.Type != "text" {
			got, text = append(got, strings.TrimSuffix(raw, "\n")), false
			continue
		}
		if text {
			got[len(got)-1] += l.Text
		} else {
			got, text = append(got, l.Text), true
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("got (text lines joined):\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Independently of the exact split into text lines: each link comes
	// after the citation line of its number.
	seen := map[int]bool{}
	for i, l := range parseStream(t, r.stdout) {
		switch l.Type {
		case "citation":
			seen[l.Number] = true
		case "text":
			for _, m := range linkNumbers["markdown"].FindAllStringSubmatch(l.Text, -1) {
				if n, _ := strconv.Atoi(m[1]); !seen[n] {
					t.Errorf("line %d links [%d] before its citation line", i+1, n)
				}
			}
		}
	}
}

// TestCiteStreamDoneLists: the done line always carries "citations" and
// "unknown", as lists, even when they are empty (as cite without --stream
// does, and as the help documents).
func TestCiteStreamDoneLists(t *testing.T) {
	r := cli(t, "{\"mode\":\"link\"}\n{\"chunk\":\"No citations.\"}\n", "cite", "--stream")
	if r.code != 0 {
		t.Fatalf("exit status %d (stderr %q)", r.code, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	var done map[string]json.RawMessage
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &done); err != nil {
		t.Fatal(err)
	}
	if string(done["type"]) != `"done"` {
		t.Fatalf("last line is not done: %s", lines[len(lines)-1])
	}
	for _, k := range []string{"citations", "unknown"} {
		if string(done[k]) != "[]" {
			t.Errorf("done %s = %s, want []", k, done[k])
		}
	}
}

func TestCiteStreamBadInput(t *testing.T) {
	const header = `{"mode":"link","mapping":{"1":{"id":"a","url":"https://a.org/"}}}`
	tests := []struct {
		name  string
		input string
		want  []string
		text  bool // whether text lines came out before the bad line
	}{
		{"empty stdin", "", []string{"empty input"}, false},
		{"blank lines only", "\n \n\n", []string{"empty input"}, false},
		{"chunk of the wrong type", header + "\n{\"chunk\":\"A [1] b\"}\n{\"chunk\": 3}\n{\"chunk\":\"c\"}\n", []string{"stdin line 3", `field "chunk"`, "number"}, true},
		{"invalid JSON", header + "\n{\"chunk\":\"A [1] b\"}\n{\"chunk\": \"x\n{\"chunk\":\"c\"}\n", []string{"stdin line 3", "invalid JSON"}, true},
		{"unknown field", header + "\n{\"chunk\":\"A [1] b\"}\n{\"chunk\": \"x\", \"n\": 1}\n", []string{"stdin line 3", `"n"`}, true},
		{"no chunk", header + "\n{\"chunk\":\"A [1] b\"}\n{}\n", []string{"stdin line 3", `"chunk"`}, true},
		{"null chunk", header + "\n{\"chunk\":\"A [1] b\"}\n{\"chunk\": null}\n", []string{"stdin line 3", `"chunk"`}, true},
		{"a number", header + "\n{\"chunk\":\"A [1] b\"}\n42\n", []string{"stdin line 3"}, true},
		{"trailing garbage", header + "\n{\"chunk\":\"A [1] b\"}\n{\"chunk\": \"x\"} x\n", []string{"stdin line 3", "after the JSON object"}, true},
		{"blank lines count", header + "\n\n{\"chunk\":\"A [1] b\"}\n\n{\"chunk\": 3}\n", []string{"stdin line 5"}, true},
	}
	for _, bad := range badCiteInputs {
		tests = append(tests, struct {
			name  string
			input string
			want  []string
			text  bool
		}{"header: " + bad.name, bad.input + "\n{\"chunk\":\"x\"}\n", append([]string{"stdin line 1"}, bad.want...), false})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := cli(t, tt.input, "cite", "--stream")
			if r.code != 2 {
				t.Errorf("exit status %d, want 2 (stderr: %q)", r.code, r.stderr)
			}
			for _, w := range tt.want {
				if !strings.Contains(r.stderr, w) {
					t.Errorf("stderr %q does not mention %q", r.stderr, w)
				}
			}
			if !tt.text {
				if r.stdout != "" {
					t.Errorf("stdout is not empty: %q", r.stdout)
				}
				return
			}
			// What came out before the bad line is well-formed, and not done.
			lines := parseStream(t, r.stdout)
			if len(lines) == 0 {
				t.Errorf("no output before the bad line")
			}
			for _, l := range lines {
				if l.Type == "done" {
					t.Errorf("a done line after bad input: %+v", l)
				}
			}
		})
	}
}

// TestCiteStreamBoth: the stream's first line, like cite's input, may not
// give both "chunks" and "text".
func TestCiteStreamBoth(t *testing.T) {
	r := cli(t, "{\"text\":\"a\",\"chunks\":[\"b\"]}\n{\"chunk\":\"c\"}\n", "cite", "--stream")
	wantBadInput(t, r, "stdin line 1", `"chunks"`, `"text"`)
}

// TestCiteStreamHeaderText: the first line may carry text or chunks to
// start with; they come before the chunk lines.
func TestCiteStreamHeaderText(t *testing.T) {
	for _, header := range []string{
		`{"mode":"renumber","mapping":{"4":{"id":"d"}},"text":"A [4]"}`,
		`{"mode":"renumber","mapping":{"4":{"id":"d"}},"chunks":["A ", "[4]"]}`,
	} {
		r := cli(t, header+"\n\"; b [4].\"\n", "cite", "--stream")
		if r.code != 0 {
			t.Fatalf("exit status %d (stderr %q)", r.code, r.stderr)
		}
		var text strings.Builder
		for _, l := range parseStream(t, r.stdout) {
			text.WriteString(l.Text)
		}
		if got, want := text.String(), "A [1]; b [1]."; got != want {
			t.Errorf("%s: text %q, want %q", header, got, want)
		}
	}
}

// TestCiteNumberZero: prompts that number sources from 0 exist, so 0 is a
// citation number like any other.
func TestCiteNumberZero(t *testing.T) {
	req := map[string]any{"mode": "link", "style": "plain", "text": "Zero [0] one [1].",
		"mapping": map[string]any{"0": map[string]string{"id": "z", "url": "https://z.org/"}, "1": map[string]string{"id": "a", "url": "https://a.org/"}}}
	out := citeResult(t, cli(t, citeInput(t, req), "cite"))
	if out.Text != "Zero [1] one [2]." || len(out.Citations) != 2 || out.Citations[0].ID != "z" {
		t.Errorf("got %+v", out)
	}
}

// TestCiteUnknownMarkers: a bracket of citation-like numbers in no
// understood form is dropped in link mode and listed, never left to name
// another source.
func TestCiteUnknownMarkers(t *testing.T) {
	req := map[string]any{"mode": "link", "style": "plain", "mapping": citeMapping, "text": "X [2]. Y 【1†source】 Z [1,]. W [3-1] V [1-70] U [01]."}
	out := citeResult(t, cli(t, citeInput(t, req), "cite"))
	if want := "X [1]. Y [2] Z [2]. W V U [2]."; out.Text != want {
		t.Errorf("text %q, want %q", out.Text, want)
	}
	if !slices.Equal(out.UnknownMarkers, []string{"[3-1]", "[1-70]"}) {
		t.Errorf("unknown markers %q", out.UnknownMarkers)
	}
}

// TestInputLimit: cite and collapse refuse more than 16 MiB with a message
// that says so, instead of holding any amount in memory.
func TestInputLimit(t *testing.T) {
	big := `{"text": "` + strings.Repeat("a", maxInput) + `"}`
	for _, cmd := range []string{"cite", "collapse"} {
		t.Run(cmd, func(t *testing.T) {
			wantBadInput(t, cli(t, big, cmd), "stdin", "more than 16 MiB")
		})
	}
}

// TestCiteStreamSurrogateHalves: JavaScript clients split strings between
// the halves of a UTF-16 surrogate pair; the halves are joined across chunk
// lines. A half without its partner becomes U+FFFD, as in one string.
func TestCiteStreamSurrogateHalves(t *testing.T) {
	const header = `{"mode":"keep"}`
	for _, tc := range []struct{ name, lines, want string }{
		{"split pair", `{"chunk": "a \ud83d"}` + "\n" + `{"chunk": "\ude00 b"}`, "a 😀 b"},
		{"split pair, bare strings", `"\ud83d"` + "\n" + `"\ude00"`, "😀"},
		{"whole pair", `{"chunk": "\ud83d\ude00"}`, "😀"},
		{"lone high at the end", `{"chunk": "x\ud83d"}`, "x\uFFFD"},
		{"high then text", `{"chunk": "\ud83d"}` + "\n" + `{"chunk": "y"}`, "\uFFFDy"},
		{"escaped backslash before u", `{"chunk": "\\\\ud83d"}`, `\\ud83d`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := cli(t, header+"\n"+tc.lines+"\n", "cite", "--stream")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			var text strings.Builder
			for _, l := range parseStream(t, r.stdout) {
				text.WriteString(l.Text)
			}
			if text.String() != tc.want {
				t.Errorf("text %q, want %q", text.String(), tc.want)
			}
		})
	}
}

// TestCiteStreamInvalidUTF8: a chunk line that is not UTF-8 is bad input,
// not text silently changed.
func TestCiteStreamInvalidUTF8(t *testing.T) {
	r := cli(t, "{\"mode\":\"keep\"}\n{\"chunk\": \"ok\"}\n{\"chunk\": \"\xff\"}\n", "cite", "--stream")
	if r.code != 2 || !strings.Contains(r.stderr, "stdin line 3, column 12: invalid UTF-8") {
		t.Errorf("exit %d, stderr %q: want 2 and the line and column of the bad byte", r.code, r.stderr)
	}
}
