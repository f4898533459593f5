package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/tmc/langchaingo/llms"
	"go.uber.org/goleak"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/search"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// connect runs the server over in-memory transports and returns a client
// session (the SDK's own client) that is closed when the test ends.
func connect(t *testing.T, opts Options) *mcp.ClientSession {
	t.Helper()
	return connectWith(t, opts, nil)
}

// connectWith is connect with a client of the options copts.
func connectWith(t *testing.T, opts Options, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	st, ct := mcp.NewInMemoryTransports()
	srv := New(opts)
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, copts)
	cs, err := c.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
		cancel()
	})
	return cs
}

// call calls a tool and decodes its structured result into out; it fails
// the test on a tool error unless wantErr.
func call(t *testing.T, cs *mcp.ClientSession, name string, args any, out any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if res.IsError {
		t.Fatalf("%s: tool error: %s", name, contentText(res))
	}
	if out != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: %v in %s", name, err, b)
		}
	}
	return res
}

func toolError(t *testing.T, cs *mcp.ClientSession, name string, args any) string {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		return err.Error()
	}
	if !res.IsError {
		t.Fatalf("%s(%v): no error", name, args)
	}
	return contentText(res)
}

func contentText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func TestListTools(t *testing.T) {
	cs := connect(t, Options{Research: newResearcher(t, nil)})
	var names []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
		if tool.Description == "" || tool.InputSchema == nil {
			t.Errorf("%s: no description or input schema", tool.Name)
		}
	}
	slices.Sort(names)
	want := []string{"citation_add", "citation_create", "citation_export", "citation_list", "citation_merge", "research", "verify"}
	if !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
	// Without a research function there is no research tool.
	cs = connect(t, Options{})
	for tool := range cs.Tools(context.Background(), nil) {
		if tool.Name == "research" {
			t.Error("research offered without a research function")
		}
	}
}

// TestResearchSchema: the research tool publishes the Request's JSON
// form as its input schema: the typed words (style, review) as strings
// whose descriptions name their words, and not the former review_plan.
func TestResearchSchema(t *testing.T) {
	cs := connect(t, Options{Research: newResearcher(t, nil)})
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		if tool.Name != "research" {
			continue
		}
		b, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var schema struct {
			Properties map[string]struct {
				Type        any    `json:"type"`
				Description string `json:"description"`
			} `json:"properties"`
			AdditionalProperties any `json:"additionalProperties"`
		}
		if err := json.Unmarshal(b, &schema); err != nil {
			t.Fatal(err)
		}
		for name, words := range map[string][]string{"style": {"markdown", "plain", "footnote", "html"}, "review": {"first_plan", "every_cycle", "never"}} {
			p, ok := schema.Properties[name]
			if !ok || p.Type != "string" {
				t.Errorf("%s: %+v, want a string", name, p)
			}
			for _, w := range words {
				if !strings.Contains(p.Description, w) {
					t.Errorf("%s's description %q does not name %s", name, p.Description, w)
				}
			}
		}
		if _, ok := schema.Properties["review_plan"]; ok {
			t.Error("the schema still has review_plan")
		}
		if schema.AdditionalProperties != false {
			t.Errorf("additionalProperties %v: the schema admits members the request does not have", schema.AdditionalProperties)
		}
		return
	}
	t.Fatal("no research tool")
}

func TestCitationIndex(t *testing.T) {
	cs := connect(t, Options{})
	var a, b createOut
	call(t, cs, "citation_create", map[string]any{}, &a)
	call(t, cs, "citation_create", map[string]any{}, &b)
	if a.IndexID == "" || a.IndexID == b.IndexID {
		t.Fatalf("index ids %q, %q", a.IndexID, b.IndexID)
	}
	add := func(id, url, title, src, section string) addOut {
		var out addOut
		call(t, cs, "citation_add", map[string]any{"index_id": id, "url": url, "title": title, "source": src, "section": section}, &out)
		return out
	}
	tests := []struct {
		url     string
		number  int
		isNew   bool
		section string
	}{
		{"https://arxiv.org/abs/2401.12345v2", 1, true, "intro"},
		{"https://github.com/foo/bar/issues/42", 2, true, "notes"},
		{"http://www.arxiv.org/abs/2401.12345?utm_source=x", 1, false, "method"},
		{"https://arxiv.org/abs/2401.12345v1#section-2", 1, false, "intro"},
		{"https://example.com/other", 3, true, ""},
	}
	for _, tt := range tests {
		got := add(a.IndexID, tt.url, "T "+tt.url, "web", tt.section)
		if got.CitationNumber != tt.number || got.New != tt.isNew {
			t.Errorf("add %s: %+v, want number %d new %v", tt.url, got, tt.number, tt.isNew)
		}
	}
	// Index b: one source a has, one it has not.
	add(b.IndexID, "https://example.org/new", "New", "web", "b-sec")
	add(b.IndexID, "https://github.com/foo/bar/issues/42", "Issue", "github", "b-sec")
	var m mergeOut
	call(t, cs, "citation_merge", map[string]any{"target_id": a.IndexID, "source_id": b.IndexID}, &m)
	if m.Added != 1 || fmt.Sprint(m.Renumber) != "[{1 4} {2 2}]" {
		t.Errorf("merge: %+v", m)
	}
	var ex exportOut
	call(t, cs, "citation_export", map[string]any{"index_id": a.IndexID}, &ex)
	// The export's own line form (the one renderer of reference lines):
	// titles escaped, the first channel kept.
	wantMD := "[1] T https\\://arxiv.org/abs/2401.12345v2 — web (https://arxiv.org/abs/2401.12345v2)\n" +
		"[2] T https\\://github.com/foo/bar/issues/42 — web (https://github.com/foo/bar/issues/42)\n" +
		"[3] T https\\://example.com/other — web (https://example.com/other)\n" +
		"[4] New — web (https://example.org/new)\n"
	if ex.Markdown != wantMD {
		t.Errorf("markdown:\n%s\nwant:\n%s", ex.Markdown, wantMD)
	}
	if e := ex.Entries[0]; e.FirstSeenSection != "intro" || fmt.Sprint(e.UsedInSections) != "[intro method]" {
		t.Errorf("entry 1 sections: %+v", e)
	}
	if e := ex.Entries[1]; fmt.Sprint(e.UsedInSections) != "[notes b-sec]" {
		t.Errorf("entry 2 sections after merge: %+v", e)
	}
	call(t, cs, "citation_export", map[string]any{"index_id": a.IndexID, "format": "csl-json"}, &ex)
	var items []map[string]any
	if err := json.Unmarshal([]byte(ex.CSLJSON), &items); err != nil || len(items) != 4 || items[3]["id"] != "ref-4" || items[3]["type"] != "webpage" {
		t.Errorf("csl-json: %v %s", err, ex.CSLJSON)
	}
	call(t, cs, "citation_export", map[string]any{"index_id": a.IndexID, "format": "bibtex"}, &ex)
	if strings.Count(ex.BibTeX, "@misc{") != 4 || !strings.Contains(ex.BibTeX, "url = {https://example.org/new}") {
		t.Errorf("bibtex:\n%s", ex.BibTeX)
	}

	// Errors come back as tool errors that say what is wrong.
	for _, tt := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"citation_add", map[string]any{"index_id": "idx-99", "url": "https://a.example/"}, "no such citation index"},
		{"citation_add", map[string]any{"index_id": a.IndexID, "url": "not a url"}, "malformed URL"},
		{"citation_add", map[string]any{"index_id": a.IndexID}, `missing properties: ["url"]`},
		{"citation_merge", map[string]any{"target_id": a.IndexID, "source_id": a.IndexID}, "into itself"},
		{"citation_export", map[string]any{"index_id": a.IndexID, "format": "docx"}, "docx"},
		{"citation_export", map[string]any{}, `missing properties: ["index_id"]`},
		{"citation_add", map[string]any{"index_id": a.IndexID, "url": "javascript:alert(1)"}, "malformed URL"},
	} {
		if got := toolError(t, cs, tt.tool, tt.args); !strings.Contains(got, tt.want) {
			t.Errorf("%s(%v): %q does not say %q", tt.tool, tt.args, got, tt.want)
		}
	}
}

func TestLimits(t *testing.T) {
	cs := connect(t, Options{MaxIndexes: 1, MaxEntries: 1})
	var a createOut
	call(t, cs, "citation_create", map[string]any{}, &a)
	if got := toolError(t, cs, "citation_create", map[string]any{}); !strings.Contains(got, "at most 1") {
		t.Errorf("second index: %q", got)
	}
	call(t, cs, "citation_add", map[string]any{"index_id": a.IndexID, "url": "https://a.example/1"}, nil)
	if got := toolError(t, cs, "citation_add", map[string]any{"index_id": a.IndexID, "url": "https://a.example/2"}); !strings.Contains(got, "at most 1") {
		t.Errorf("second source: %q", got)
	}
}

// Control characters and line breaks in a client's title never reach the
// exported list.
func TestHostileTitle(t *testing.T) {
	cs := connect(t, Options{})
	var a createOut
	call(t, cs, "citation_create", map[string]any{}, &a)
	call(t, cs, "citation_add", map[string]any{"index_id": a.IndexID, "url": "https://a.example/", "title": "Evil\n[2] Fake\x1b[31m title"}, nil)
	call(t, cs, "citation_add", map[string]any{"index_id": a.IndexID, "url": "https://b.example/", "title": "Evil\n[2] Fake\u001b[31m\r\ntitle"}, nil)
	var ex exportOut
	call(t, cs, "citation_export", map[string]any{"index_id": a.IndexID}, &ex)
	if strings.Count(ex.Markdown, "\n") != 2 || strings.ContainsRune(ex.Markdown, 0x1b) || strings.ContainsRune(ex.Markdown, '\r') {
		t.Errorf("markdown %q", ex.Markdown)
	}
}

// Concurrent adds of the same resource get one number.
func TestConcurrentAdds(t *testing.T) {
	cs := connect(t, Options{})
	var a createOut
	call(t, cs, "citation_create", map[string]any{}, &a)
	var wg sync.WaitGroup
	nums := make([]int, 16)
	for i := range nums {
		wg.Go(func() {
			var out addOut
			url := fmt.Sprintf("https://www.example.com/page?utm_campaign=%d", i)
			if i%2 == 1 {
				url = fmt.Sprintf("https://example.com/other-%d", i%4)
			}
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "citation_add",
				Arguments: map[string]any{"index_id": a.IndexID, "url": url}})
			if err == nil && !res.IsError {
				b, _ := json.Marshal(res.StructuredContent)
				_ = json.Unmarshal(b, &out)
			}
			nums[i] = out.CitationNumber
		})
	}
	wg.Wait()
	var ex exportOut
	call(t, cs, "citation_export", map[string]any{"index_id": a.IndexID}, &ex)
	if len(ex.Entries) != 3 {
		t.Errorf("%d entries, want 3: %+v", len(ex.Entries), ex.Entries)
	}
	for i := 2; i < len(nums); i += 2 {
		if nums[i] != nums[0] || nums[i] == 0 {
			t.Errorf("one page got numbers %v", nums)
			break
		}
	}
}

func TestVerifyTool(t *testing.T) {
	cs := connect(t, Options{})
	sources := []map[string]any{
		{"number": 1, "title": "Spec", "url": "https://go.dev/ref/spec", "text": "The value of an uninitialized channel is nil."},
		{"number": 2, "title": "Never read", "url": "https://go.dev/doc/effective_go"},
	}
	report := "# R\n\nThe value of an uninitialized channel is nil [1].\nChannels are great [2].\nGoroutines are green threads [7].\n"
	var out verifyOut
	res := call(t, cs, "verify", map[string]any{"text": report, "sources": sources, "fix": true}, &out)
	if out.Verdict != "FAIL" || out.Summary.Supported != 1 || out.Summary.Fabricated != 2 || len(out.Problems) != 2 {
		t.Errorf("verify: %+v", out)
	}
	if out.Problems[0].Line != 4 || out.Problems[1].Line != 5 || out.Problems[1].Kind != "no-source" {
		t.Errorf("problems: %+v", out.Problems)
	}
	if want := "# R\n\nThe value of an uninitialized channel is nil [1].\n" +
		"Channels are great<!-- verify: removed [2]: source 2 was never retrieved -->.\n" +
		"Goroutines are green threads<!-- verify: removed [7]: no source 7 among the sources -->.\n"; out.Fixed != want {
		t.Errorf("fixed %q", out.Fixed)
	}
	if txt := contentText(res); !strings.Contains(txt, "line 5: error no-source") || !strings.Contains(txt, "FAIL") {
		t.Errorf("text content:\n%s", txt)
	}
	call(t, cs, "verify", map[string]any{"text": "The value of an uninitialized channel is nil [1].", "sources": sources[:1]}, &out)
	if out.Verdict != "PASS" {
		t.Errorf("verdict %s", out.Verdict)
	}
	if got := toolError(t, cs, "verify", map[string]any{"text": "x", "sources": []map[string]any{{"number": 0}}}); !strings.Contains(got, "must be 1 or more") {
		t.Errorf("bad sources: %q", got)
	}
	if got := toolError(t, cs, "verify", map[string]any{"text": "x", "scope": "everything"}); !strings.Contains(got, "everything") {
		t.Errorf("bad scope: %q", got)
	}
}

// The verify tool's options: file references and @-mentions against the
// server's files, the scope, uncited sentences, and no sources at all.
func TestVerifyToolOptions(t *testing.T) {
	files := fstest.MapFS{"docs/notes.md": {Data: []byte("# Notes\n")}}
	cs := connect(t, Options{Files: files})
	report := "Leaks cause 40% of outages.\nSee @docs/notes.md and @docs/gone.md, and [docs/notes.md@0123456789abcdef, L1].\n" +
		"Goroutines are multiplexed onto a few threads by the runtime [1].\n"
	var out verifyOut
	call(t, cs, "verify", map[string]any{"text": report, "uncited": true}, &out)
	var kinds []string
	for _, p := range out.Problems {
		kinds = append(kinds, fmt.Sprintf("%d %s", p.Line, p.Kind))
	}
	if want := "[1 statistic 2 file-missing 2 stale 3 unchecked]"; fmt.Sprint(kinds) != want {
		t.Errorf("problems %v, want %s", kinds, want)
	}
	call(t, cs, "verify", map[string]any{"text": report, "scope": "rlm"}, &out)
	if len(out.Problems) != 1 || out.Problems[0].Kind != "stale" || out.Summary.Stale != 1 {
		t.Errorf("rlm: %+v", out.Problems)
	}
}

// newResearcher returns a Researcher over a few in-memory documents, on
// the offline model (wrapped by wrap, if not nil).
func newResearcher(t *testing.T, wrap func(llms.Model) llms.Model) *deepresearch.Researcher {
	t.Helper()
	return newResearcherWith(t, deepresearch.Config{}, wrap)
}

// newResearcherWith is newResearcher with cfg's other fields (its clock,
// say).
func newResearcherWith(t *testing.T, cfg deepresearch.Config, wrap func(llms.Model) llms.Model) *deepresearch.Researcher {
	t.Helper()
	backend, err := deepresearchtest.NewBackend(
		search.Document{Title: "Cable repair", URL: "https://example.com/repair",
			Text: "A cable ship grapples the broken submarine cable from the sea floor.\n\nThe repaired submarine cable is spliced on deck and lowered again."},
		search.Document{Title: "Cable faults", URL: "https://example.com/faults",
			Text: "Most submarine cable faults are caused by fishing trawlers and ship anchors."},
	)
	if err != nil {
		t.Fatal(err)
	}
	model := deepresearchtest.Model(0)
	if wrap != nil {
		model = wrap(model)
	}
	cfg.Model, cfg.Search, cfg.Limits.MaxTasks, cfg.MaxRetries, cfg.Judges.Lexical = model, backend, 1, -1, true
	r, err := deepresearch.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestResearchTool: the research tool runs a request through the library
// and returns the cited report; a run whose writer failed is a tool error
// that carries the agents' findings; a bad request is a tool error.
func TestResearchTool(t *testing.T) {
	cs := connect(t, Options{Research: newResearcher(t, nil)})
	var rep Report
	res := call(t, cs, "research", map[string]any{"question": "  How are submarine cables repaired?  ", "style": "plain"}, &rep)
	if !strings.HasPrefix(rep.Markdown, "# How are submarine cables repaired") || len(rep.References) == 0 || !rep.Complete || rep.Error != "" || contentText(res) != rep.Markdown {
		t.Errorf("report %+v", rep)
	}
	// Seed 003's account of the sources: web pages only.
	if rep.CitationFormat != "web_urls" || !slices.Equal(rep.CollectionsUsed, []string{"web_search"}) || len(rep.Sources) != len(rep.References) ||
		len(rep.FormattedCitations) != len(rep.Sources) || len(rep.SourceTypes) != len(rep.References) {
		t.Errorf("provenance %+v", rep.Provenance)
	}
	for i, ref := range rep.References {
		if rep.Sources[i] != ref.URL || rep.SourceTypes[i] != "web" || rep.FormattedCitations[i] != "["+ref.Title+"]("+ref.URL+")" {
			t.Errorf("reference %+v: source %q, type %q, formatted %q", ref, rep.Sources[i], rep.SourceTypes[i], rep.FormattedCitations[i])
		}
	}
	if got := toolError(t, cs, "research", map[string]any{"question": " "}); !strings.Contains(got, "empty") {
		t.Errorf("empty question: %q", got)
	}
	if got := toolError(t, cs, "research", map[string]any{"question": "q", "max_tasks": 99}); !strings.Contains(got, "max_tasks") {
		t.Errorf("a limit out of range: %q", got)
	}
	if got := toolError(t, cs, "research", map[string]any{"question": "q", "domains": map[string]any{"deny": []string{"*"}}}); !strings.Contains(got, "domains") {
		t.Errorf("a bad domain pattern: %q", got)
	}
	// The typed words are read once, as the arguments are decoded, and a
	// bad one is named with the words it takes.
	if got := toolError(t, cs, "research", map[string]any{"question": "q", "style": "gothic"}); !strings.Contains(got, `"style" is "gothic"; want markdown, plain, footnote or html`) {
		t.Errorf("an unknown style: %q", got)
	}
	if got := toolError(t, cs, "research", map[string]any{"question": "q", "review": "always"}); !strings.Contains(got, `"review" is "always"; want never, first_plan or every_cycle`) {
		t.Errorf("an unknown review mode: %q", got)
	}

	down := connect(t, Options{Research: newResearcher(t, func(m llms.Model) llms.Model {
		return deepresearchtest.FailingWriter(m, errors.New("the writer is down"))
	})})
	res, err := down.CallTool(context.Background(), &mcp.CallToolParams{Name: "research", Arguments: map[string]any{"question": "How are submarine cables repaired?"}})
	if err != nil || !res.IsError {
		t.Fatalf("a failed writer: %v, %+v", err, res)
	}
	b, _ := json.Marshal(res.StructuredContent)
	var findings Report
	if err := json.Unmarshal(b, &findings); err != nil {
		t.Fatal(err)
	}
	if findings.Complete || !strings.Contains(findings.Error, "the writer is down") || !strings.Contains(findings.Markdown, "## References") ||
		len(findings.References) == 0 || !strings.Contains(contentText(res), findings.Markdown) {
		t.Errorf("a failed writer gave %+v\n%s", findings, contentText(res))
	}
}

// An untitled source is exported under its URL, shown as a URL (no
// "https\://"), once; citation_list and citation_export give the number
// the next new source gets, and that source gets it.
func TestIndexUntitledAndNextNumber(t *testing.T) {
	cs := connect(t, Options{})
	var a createOut
	call(t, cs, "citation_create", map[string]any{}, &a)
	var l listOut
	call(t, cs, "citation_list", map[string]any{"index_id": a.IndexID}, &l)
	if l.NextNumber != 1 || len(l.Entries) != 0 {
		t.Errorf("an empty index lists %+v", l)
	}
	var add addOut
	call(t, cs, "citation_add", map[string]any{"index_id": a.IndexID, "url": "https://arxiv.org/abs/2501.12345v2", "title": "RAG Survey", "source": "arxiv"}, &add)
	call(t, cs, "citation_add", map[string]any{"index_id": a.IndexID, "url": "https://example.com/a_b*c", "title": " \t"}, &add)
	call(t, cs, "citation_list", map[string]any{"index_id": a.IndexID}, &l)
	if l.NextNumber != 3 || len(l.Entries) != 2 || l.Entries[1].Title != "" {
		t.Errorf("list %+v; want two entries, the second untitled, next 3", l)
	}
	var ex exportOut
	res := call(t, cs, "citation_export", map[string]any{"index_id": a.IndexID}, &ex)
	want := "[1] RAG Survey — arxiv (https://arxiv.org/abs/2501.12345v2)\n[2] https://example.com/a_b%2Ac\n"
	if ex.Markdown != want || contentText(res) != want {
		t.Errorf("export:\n%s\nwant:\n%s", ex.Markdown, want)
	}
	if strings.Contains(ex.Markdown, `\:`) || ex.NextNumber != 3 {
		t.Errorf("export next_number %d, markdown %q", ex.NextNumber, ex.Markdown)
	}
	call(t, cs, "citation_add", map[string]any{"index_id": a.IndexID, "url": "https://example.com/new"}, &add)
	if add.CitationNumber != ex.NextNumber || !add.New {
		t.Errorf("the next new source got %+v, want number %d", add, ex.NextNumber)
	}
	if got := toolError(t, cs, "citation_list", map[string]any{"index_id": "idx-99"}); !strings.Contains(got, "no such citation index") {
		t.Errorf("listing a missing index: %q", got)
	}
}
