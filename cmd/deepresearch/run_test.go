package main

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/extract"
	"github.com/deepresearch/deepresearch/render"
)

const (
	question = "How were transatlantic telegraph cables laid and repaired?"
	corpus   = "../../testdata/corpus"
)

// isolate keeps the machine running the tests out of the command's
// settings: no configuration file, no DEEPRESEARCH_* variable, no cache.
// It returns a fresh index path.
func isolate(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat("deepresearch.yaml"); err == nil {
		t.Fatal("cmd/deepresearch/deepresearch.yaml exists: it would configure these tests")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "config"))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(home, "cache"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, "data"))
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, "DEEPRESEARCH_") {
			t.Setenv(name, "")
		}
	}
	for _, name := range []string{"OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL",
		"GOOGLE_API_KEY", "GEMINI_API_KEY", "OLLAMA_HOST", "SEARXNG_URL", "TAVILY_API_KEY", "BRAVE_API_KEY", "EXA_API_KEY"} {
		t.Setenv(name, "")
	}
	return filepath.Join(t.TempDir(), "i.db")
}

// research runs `run` over the test corpus with a fresh index.
func research(t *testing.T, args ...string) result {
	t.Helper()
	index := isolate(t)
	all := append([]string{"run", "--corpus", corpus, "--index", index, "--progress", "never"}, args...)
	return cli(t, "", append(all, question)...)
}

func wantSuccess(t *testing.T, r result) {
	t.Helper()
	if r.code != 0 {
		t.Fatalf("exit status %d (stderr: %q)", r.code, r.stderr)
	}
}

var (
	mdLink = regexp.MustCompile(`\[\[(\d+)\]\]\(([^)\s]+)\)`)
	mdRef  = regexp.MustCompile(`(?m)^- \[(\d+)\] \[([^\]]+)\]\(([^)\s]+)\)$`)
)

func TestRunMarkdown(t *testing.T) {
	r := research(t)
	wantSuccess(t, r)
	md := r.stdout
	if !strings.HasPrefix(md, "# ") {
		t.Errorf("the report does not start with a title:\n%.200s", md)
	}
	body, refs, ok := strings.Cut(md, "\n## References\n")
	if !ok {
		t.Fatalf("no \"## References\" section:\n%s", md)
	}
	// The reference list: 1..K, in order, each cited in the body with
	// the same URL.
	urls := map[string]string{}
	for i, m := range mdRef.FindAllStringSubmatch(refs, -1) {
		if m[1] != strconv.Itoa(i+1) {
			t.Errorf("reference %d is numbered %s", i+1, m[1])
		}
		if !strings.HasPrefix(m[3], "file://") {
			t.Errorf("reference %s: URL %q is not a file of the corpus", m[1], m[3])
		}
		urls[m[1]] = m[3]
	}
	if len(urls) == 0 {
		t.Fatalf("no references listed:\n%s", refs)
	}
	links := mdLink.FindAllStringSubmatch(body, -1)
	if len(links) == 0 {
		t.Fatalf("no [[n]](…) links in the report:\n%s", body)
	}
	cited := map[string]bool{}
	for _, m := range links {
		cited[m[1]] = true
		if urls[m[1]] != m[2] {
			t.Errorf("link [[%s]](%s) does not match reference %s (%q)", m[1], m[2], m[1], urls[m[1]])
		}
	}
	for n := range urls {
		if !cited[n] {
			t.Errorf("reference %s is listed but never cited", n)
		}
	}
	// Citations are numbered by first citation.
	next := 1
	for _, m := range links {
		if n, _ := strconv.Atoi(m[1]); n > next {
			t.Errorf("[[%d]] is cited before [[%d]]", n, next)
		} else if n == next {
			next++
		}
	}
}

func TestRunFormats(t *testing.T) {
	t.Run("json", func(t *testing.T) {
		r := research(t, "--format", "json")
		wantSuccess(t, r)
		var doc struct {
			Question   string   `json:"question"`
			Text       string   `json:"text"`
			Blocks     []string `json:"blocks"`
			References []struct {
				Number int    `json:"number"`
				ID     string `json:"id"`
				URL    string `json:"url"`
			} `json:"references"`
			Citations []struct {
				Path string `json:"path"`
				SIDs []int  `json:"sids"`
			} `json:"_citations"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatalf("%v\n%s", err, r.stdout)
		}
		var fields map[string]json.RawMessage
		if err := json.Unmarshal([]byte(r.stdout), &fields); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"question", "text", "blocks", "references", "_citations"} {
			if _, ok := fields[f]; !ok {
				t.Errorf("no %q field", f)
			}
		}
		if doc.Question != question || len(doc.Blocks) == 0 || len(doc.References) == 0 || len(doc.Citations) == 0 {
			t.Fatalf("incomplete document: question %q, %d blocks, %d references, %d citations",
				doc.Question, len(doc.Blocks), len(doc.References), len(doc.Citations))
		}
		for i, ref := range doc.References {
			if ref.Number != i+1 || ref.ID == "" || ref.URL == "" {
				t.Errorf("reference %d: %+v", i+1, ref)
			}
		}
		for _, c := range doc.Citations {
			i, err := strconv.Atoi(strings.TrimPrefix(c.Path, "/blocks/"))
			if err != nil || !strings.HasPrefix(c.Path, "/blocks/") || i >= len(doc.Blocks) {
				t.Errorf("citation path %q points to no block", c.Path)
				continue
			}
			for _, n := range c.SIDs {
				if n < 1 || n > len(doc.References) {
					t.Errorf("%s cites [%d], not a reference", c.Path, n)
				} else if !strings.Contains(doc.Blocks[i], "["+strconv.Itoa(n)+"]") {
					t.Errorf("%s cites [%d], which its text %q does not", c.Path, n, doc.Blocks[i])
				}
			}
		}
	})
	t.Run("html", func(t *testing.T) {
		r := research(t, "--format", "html")
		wantSuccess(t, r)
		page := strings.TrimSpace(r.stdout)
		for _, want := range []string{"<html", "<head>", "<title>", "<body>", `href="file://`} {
			if !strings.Contains(page, want) {
				t.Errorf("the page lacks %s", want)
			}
		}
		if !strings.HasPrefix(strings.ToLower(page), "<!doctype html>") || !strings.HasSuffix(page, "</html>") {
			t.Errorf("not a full page:\n%.100s\n…\n%s", page, page[max(0, len(page)-100):])
		}
	})
	t.Run("xml", func(t *testing.T) {
		r := research(t, "--format", "xml")
		wantSuccess(t, r)
		var doc struct {
			XMLName    xml.Name
			OK         bool     `xml:"ok,attr"`
			Question   string   `xml:"question"`
			Blocks     []string `xml:"blocks>block"`
			References []struct {
				Number int    `xml:"number,attr"`
				URL    string `xml:"url,attr"`
			} `xml:"references>reference"`
		}
		if err := xml.Unmarshal([]byte(r.stdout), &doc); err != nil {
			t.Fatalf("%v\n%s", err, r.stdout)
		}
		if doc.XMLName.Local != "report" || !doc.OK || doc.Question != question || len(doc.Blocks) == 0 || len(doc.References) == 0 {
			t.Errorf("incomplete XML report: %+v", doc)
		}
	})
	t.Run("mermaid", func(t *testing.T) {
		r := research(t, "--format", "mermaid")
		wantSuccess(t, r)
		if !strings.HasPrefix(r.stdout, "flowchart LR\n  Q[\"") || !strings.Contains(r.stdout, " --> R1\n") {
			t.Errorf("not a citation graph:\n%s", r.stdout)
		}
	})
	t.Run("style", func(t *testing.T) {
		r := research(t, "--style", "footnote")
		wantSuccess(t, r)
		if !regexp.MustCompile(`\[\^\d+\]`).MatchString(r.stdout) || mdLink.MatchString(r.stdout) {
			t.Errorf("footnote style: no [^n] markers, or markdown links:\n%s", r.stdout)
		}
	})
}

// TestRunPrintsSchemas: run --json-schema and --xml-schema print the
// library's schemas and run nothing; with a question, or both at once,
// they are a usage error.
func TestRunPrintsSchemas(t *testing.T) {
	r := cli(t, "", "run", "--json-schema")
	wantSuccess(t, r)
	if want, _ := render.Schema(); r.stdout != string(want) || !strings.Contains(r.stdout, `"$schema": "https://json-schema.org/draft/2020-12/schema"`) {
		t.Errorf("--json-schema printed:\n%.300s", r.stdout)
	}
	r = cli(t, "", "run", "--xml-schema")
	wantSuccess(t, r)
	if r.stdout != string(render.XMLSchema()) {
		t.Errorf("--xml-schema printed:\n%.300s", r.stdout)
	}
	wantBadInput(t, cli(t, "", "run", "--json-schema", question), "take no question")
	wantBadInput(t, cli(t, "", "run", "--json-schema", "--xml-schema"), "one at a time")
}

func TestRunOutputFile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "report.md")
	if err := os.WriteFile(out, []byte("an older report"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := research(t, "--output", out)
	wantSuccess(t, r)
	if r.stdout != "" {
		t.Errorf("stdout is not empty with --output: %.200q", r.stdout)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "## References") || !mdLink.Match(data) {
		t.Errorf("the file does not hold the report:\n%s", data)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"report.md"}) {
		t.Errorf("the folder holds %q, want only report.md (no temporary file)", names)
	}
}

// TestRunOutputFileMode: the report file gets the permissions any file
// the user creates gets (as with a shell redirection), not those of a
// private temporary file.
func TestRunOutputFileMode(t *testing.T) {
	dir := t.TempDir()
	ref, err := os.Create(filepath.Join(dir, "reference"))
	if err != nil {
		t.Fatal(err)
	}
	ref.Close()
	out := filepath.Join(dir, "report.html")
	wantSuccess(t, research(t, "--format", "html", "--output", out))
	want, err := os.Stat(ref.Name())
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if got.Mode().Perm() != want.Mode().Perm() {
		t.Errorf("report mode %v, want %v (that of os.Create)", got.Mode().Perm(), want.Mode().Perm())
	}
}

// wireEvent is an event as --events writes it.
type wireEvent struct {
	RunID   string          `json:"run_id"`
	Seq     uint64          `json:"seq"`
	Time    string          `json:"time"`
	Type    string          `json:"type"`
	Agent   int             `json:"agent"`
	Section string          `json:"section"`
	Cycle   int             `json:"cycle"`
	Data    json.RawMessage `json:"data"`
}

// parseEvents decodes NDJSON events and checks what every run's events
// share: one run ID, seq from 1 without gaps.
func parseEvents(t *testing.T, ndjson string) []wireEvent {
	t.Helper()
	var evs []wireEvent
	sc := bufio.NewScanner(strings.NewReader(ndjson))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var e wireEvent
		dec := json.NewDecoder(strings.NewReader(sc.Text()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("event %d: %v: %q", len(evs)+1, err, sc.Text())
		}
		if e.Seq != uint64(len(evs)+1) {
			t.Errorf("event %d (%s) has seq %d", len(evs)+1, e.Type, e.Seq)
		}
		if len(evs) > 0 && e.RunID != evs[0].RunID {
			t.Errorf("event %d has run ID %q, the first %q", e.Seq, e.RunID, evs[0].RunID)
		}
		evs = append(evs, e)
	}
	if len(evs) == 0 {
		t.Fatal("no events")
	}
	return evs
}

// planTasks returns the number of tasks of the plan event.
func planTasks(t *testing.T, evs []wireEvent) int {
	t.Helper()
	for _, e := range evs {
		if e.Type == "plan" {
			var p struct {
				Tasks []json.RawMessage `json:"tasks"`
			}
			if err := json.Unmarshal(e.Data, &p); err != nil {
				t.Fatal(err)
			}
			return len(p.Tasks)
		}
	}
	t.Fatal("no plan event")
	return 0
}

// maxTasks returns the max_tasks the run.started event reports.
func maxTasks(t *testing.T, evs []wireEvent) int {
	t.Helper()
	if evs[0].Type != "run.started" {
		t.Fatalf("the first event is %s", evs[0].Type)
	}
	var d struct {
		Config struct {
			MaxTasks int `json:"max_tasks"`
		} `json:"config"`
	}
	if err := json.Unmarshal(evs[0].Data, &d); err != nil {
		t.Fatal(err)
	}
	return d.Config.MaxTasks
}

func TestRunEvents(t *testing.T) {
	t.Run("to a file", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "events.ndjson")
		r := research(t, "--events", file)
		wantSuccess(t, r)
		if !strings.Contains(r.stdout, "## References") {
			t.Errorf("no report on stdout with --events FILE:\n%.200s", r.stdout)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		evs := parseEvents(t, string(data))
		if first, last := evs[0].Type, evs[len(evs)-1].Type; first != "run.started" || last != "run.finished" {
			t.Errorf("events from %s to %s, want run.started to run.finished", first, last)
		}
		types := map[string]int{}
		for _, e := range evs {
			types[e.Type]++
		}
		for _, want := range []string{"plan", "agent.started", "agent.search", "agent.finished", "sources.merged", "report.delta", "report.citation", "report.finished"} {
			if types[want] == 0 {
				t.Errorf("no %s event (got %v)", want, types)
			}
		}
		if got := maxTasks(t, evs); got != 4 {
			t.Errorf("run.started says max_tasks %d, want the default 4", got)
		}
		if n := planTasks(t, evs); n < 2 || n > 4 || types["agent.started"] != n || types["agent.finished"] != n {
			t.Errorf("%d tasks, %d agents started, %d finished: want 2 to 4 tasks, each researched",
				n, types["agent.started"], types["agent.finished"])
		}
	})
	t.Run("to stdout", func(t *testing.T) {
		r := research(t, "--events", "-")
		wantSuccess(t, r)
		if strings.Contains(r.stdout, "## References") {
			t.Errorf("the report is on stdout with --events -")
		}
		evs := parseEvents(t, r.stdout) // every line is an event
		if evs[0].Type != "run.started" || evs[len(evs)-1].Type != "run.finished" {
			t.Errorf("events from %s to %s", evs[0].Type, evs[len(evs)-1].Type)
		}
	})
	t.Run("to stdout, report to a file", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "report.json")
		r := research(t, "--events", "-", "--output", out, "--format", "json")
		wantSuccess(t, r)
		parseEvents(t, r.stdout)
		data, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(data) {
			t.Errorf("report file is not JSON: %.200s", data)
		}
	})
}

// TestRunSettings: settings come from the environment and from flags,
// flags first.
func TestRunSettings(t *testing.T) {
	tests := []struct {
		name  string
		env   string
		flags []string
		tasks int
	}{
		{"environment", "1", nil, 1},
		{"flag", "", []string{"--max-tasks", "2"}, 2},
		{"flag over environment", "1", []string{"--max-tasks", "3"}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			index := isolate(t)
			t.Setenv("DEEPRESEARCH_RESEARCH_MAX_TASKS", tt.env)
			file := filepath.Join(t.TempDir(), "events.ndjson")
			args := append([]string{"run", "--corpus", corpus, "--index", index, "--events", file}, tt.flags...)
			wantSuccess(t, cli(t, "", append(args, question)...))
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			evs := parseEvents(t, string(data))
			if got := maxTasks(t, evs); got != tt.tasks {
				t.Errorf("run.started says max_tasks %d, want %d", got, tt.tasks)
			}
			if n := planTasks(t, evs); n < 1 || n > tt.tasks {
				t.Errorf("the plan has %d tasks, want 1 to %d", n, tt.tasks)
			}
		})
	}
	t.Run("config file", func(t *testing.T) {
		index := isolate(t)
		cfg := filepath.Join(t.TempDir(), "c.yaml")
		if err := os.WriteFile(cfg, []byte("research:\n  max_tasks: 1\noutput:\n  format: json\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(t.TempDir(), "events.ndjson")
		r := cli(t, "", "run", "--config", cfg, "--corpus", corpus, "--index", index, "--events", file, question)
		wantSuccess(t, r)
		if !json.Valid([]byte(r.stdout)) {
			t.Errorf("output.format from the file not honoured: %.200s", r.stdout)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		evs := parseEvents(t, string(data))
		if got, n := maxTasks(t, evs), planTasks(t, evs); got != 1 || n != 1 {
			t.Errorf("max_tasks %d, %d tasks planned: want 1 and 1", got, n)
		}
	})
}

func TestRunBadSettings(t *testing.T) {
	tests := []struct {
		name string
		env  [2]string
		args []string
		want []string
	}{
		{"format", [2]string{}, []string{"--format", "odt"}, []string{"output.format", "odt", "--format", "md, html, json"}},
		{"max tasks", [2]string{}, []string{"--max-tasks", "0"}, []string{"research.max_tasks", "--max-tasks", "at least 1"}},
		{"style", [2]string{}, []string{"--style", "bogus"}, []string{"output.style", "bogus", "--style"}},
		{"agent timeout", [2]string{}, []string{"--agent-timeout", "-1s"}, []string{"research.agent_timeout", "--agent-timeout"}},
		{"provider without a key", [2]string{}, []string{"--provider", "anthropic"}, []string{"ANTHROPIC_API_KEY", "model.api_key"}},
		{"unknown provider", [2]string{}, []string{"--provider", "gpt"}, []string{"model.provider", "gpt"}},
		{"unknown search provider", [2]string{}, []string{"--search", "bing"}, []string{"search.providers", "bing"}},
		{"web search without its address", [2]string{}, []string{"--search", "searxng"}, []string{"SEARXNG_URL"}},
		{"environment", [2]string{"DEEPRESEARCH_RESEARCH_MAX_TASKS", "zero"}, nil, []string{"research.max_tasks", "DEEPRESEARCH_RESEARCH_MAX_TASKS", "whole number"}},
		{"two at once", [2]string{}, []string{"--format", "odt", "--max-tasks", "0"}, []string{"output.format", "research.max_tasks"}},
		{"missing config file", [2]string{}, []string{"--config", "/nonexistent/deepresearch.yaml"}, []string{"/nonexistent/deepresearch.yaml"}},
		{"events file in no folder", [2]string{}, []string{"--events", "/nonexistent/dir/e.ndjson"}, []string{"--events", "/nonexistent/dir"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			index := isolate(t)
			if tt.env[0] != "" {
				t.Setenv(tt.env[0], tt.env[1])
			}
			args := append([]string{"run", "--corpus", corpus, "--index", index}, tt.args...)
			wantBadInput(t, cli(t, "", append(args, question)...), tt.want...)
			if _, err := os.Stat(index); err == nil {
				t.Errorf("bad settings, yet the index was built")
			}
		})
	}
}

// TestRunMissingCorpus (issue 32): a corpus folder that does not exist is
// bad input (status 2), refused before the run starts.
func TestRunMissingCorpus(t *testing.T) {
	index := isolate(t)
	missing := filepath.Join(t.TempDir(), "no-such-folder")
	r := cli(t, "", "run", "--corpus", missing, "--index", index, "--log-level", "disabled", question)
	wantBadInput(t, r, missing+": no such folder")
}

var indexLine = regexp.MustCompile(`^indexed (.+) into (.+): (\d+) files scanned, (\d+) added, (\d+) updated, (\d+) removed, (\d+) unchanged, (\d+) skipped; (\d+) passages\n(  skipped .+\n)*$`)

type indexCounts struct{ scanned, added, updated, removed, unchanged, skipped, passages int }

func parseIndex(t *testing.T, r result, dir, index string) indexCounts {
	t.Helper()
	wantSuccess(t, r)
	m := indexLine.FindStringSubmatch(r.stdout)
	if m == nil {
		t.Fatalf("unexpected output: %q", r.stdout)
	}
	if m[1] != dir || m[2] != index {
		t.Errorf("indexed %s into %s, want %s into %s", m[1], m[2], dir, index)
	}
	var n [7]int
	for i := range n {
		n[i], _ = strconv.Atoi(m[3+i])
	}
	return indexCounts{n[0], n[1], n[2], n[3], n[4], n[5], n[6]}
}

func TestIndex(t *testing.T) {
	index := isolate(t)
	first := parseIndex(t, cli(t, "", "index", corpus, "--index", index), corpus, index)
	if first.added == 0 || first.added+first.skipped != first.scanned || first.passages == 0 ||
		first.updated+first.removed+first.unchanged != 0 {
		t.Errorf("first run: %+v", first)
	}
	again := parseIndex(t, cli(t, "", "index", corpus, "--index", index), corpus, index)
	want := indexCounts{scanned: first.scanned, unchanged: first.added, skipped: first.skipped}
	if again != want {
		t.Errorf("second run: %+v, want %+v (everything unchanged)", again, want)
	}
	// The folder may come from --corpus too.
	flag := parseIndex(t, cli(t, "", "index", "--corpus", corpus, "--index", index), corpus, index)
	if flag != want {
		t.Errorf("with --corpus: %+v, want %+v", flag, want)
	}
	// And run uses the index as it is.
	wantSuccess(t, cli(t, "", "run", "--corpus", corpus, "--index", index, question))
}

// TestIndexMissingFolder (issue 32): a folder that does not exist is bad
// input (status 2), named in the message.
func TestIndexMissingFolder(t *testing.T) {
	index := isolate(t)
	missing := filepath.Join(t.TempDir(), "no-such-folder")
	wantBadInput(t, cli(t, "", "index", missing, "--index", index), missing+": no such folder")
}

// TestIndexHelpListsFormats (issue 29): index --help names every file
// extension the corpus reads, and none it does not.
func TestIndexHelpListsFormats(t *testing.T) {
	r := cli(t, "", "index", "--help")
	formats := r.stdout[strings.Index(r.stdout, "Formats:"):]
	formats = formats[:strings.Index(formats, "\n\n")] // the paragraph
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile(`\.[a-z]+\b`).FindAllString(formats, -1) {
		listed[m] = true
	}
	for _, ext := range []string{".md", ".markdown", ".mdx", ".txt", ".text", ".rst", ".adoc", ".asciidoc", ".org", ".tex",
		".html", ".htm", ".xhtml", ".pdf", ".docx", ".pptx", ".epub", ".xlsx", ".xlsm", ".ods", ".csv", ".tsv", ".tab",
		".doc", ".xls", ".ppt", ".odt", ".rtf", ".json", ".xml", ".go", ".png"} {
		if reads := extract.FormatOf("x"+ext) != extract.FormatNone; reads != listed[ext] {
			t.Errorf("%s: the corpus reads it: %v; index --help lists it: %v", ext, reads, listed[ext])
		}
	}
	// Gzip-compressed documents too.
	if _, ok := extract.Gzipped("x.pdf.gz"); !ok || !listed[".gz"] {
		t.Errorf("index --help does not say that gzip-compressed documents are read:\n%s", formats)
	}
}
