package main

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/search"
)

// corpusDocs reads the test corpus's markdown documents, for the web
// stand-in to serve as pages.
func corpusDocs(t testing.TB) []search.Document {
	t.Helper()
	var docs []search.Document
	err := filepath.WalkDir(corpus, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".md" {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text := string(b)
		title, body, _ := strings.Cut(text, "\n")
		docs = append(docs, search.Document{DocID: strings.TrimSuffix(d.Name(), ".md"), Title: strings.TrimPrefix(title, "# "), Text: body})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

var markerRe = regexp.MustCompile(`\[(\d+)\]`)

// awkward makes the model write citations as real models do: a full-width
// marker, a list, a number it never retrieved, and a marker inside code
// that is no citation.
func awkward(text string) string {
	if !markerRe.MatchString(text) {
		return text
	}
	i := 0
	text = markerRe.ReplaceAllStringFunc(text, func(m string) string {
		n := markerRe.FindStringSubmatch(m)[1]
		i++
		switch i {
		case 1:
			return "【" + n + "】"
		case 2:
			return "[" + n + ", " + n + "]"
		}
		return m
	})
	return text + "\n\nA claim the sources never made [99].\n\n```go\nx := arr[1] // not a citation\n```\n"
}

// TestRunWithOpenAIAndSearXNG runs the whole pipeline as a user with a
// real provider would — `run --provider openai --search searxng
// --fetch-allow … --format json` — against a local server speaking
// OpenAI's chat-completions protocol (the offline model answering through
// it, with awkward citations split across stream chunks) and a local
// SearXNG-format search API whose results are pages the fetcher reads.
// Every citation of the report must resolve to a page that was really
// retrieved, once each.
func TestRunWithOpenAIAndSearXNG(t *testing.T) {
	index := isolate(t)
	web, err := deepresearchtest.NewWebServer(corpusDocs(t)...)
	if err != nil {
		t.Fatal(err)
	}
	defer web.Close()
	r, model := runOverWeb(t, web, index, deepresearchtest.OpenAIOptions{Rewrite: awkward})
	var doc struct {
		Text       string   `json:"text"`
		Blocks     []string `json:"blocks"`
		References []struct {
			Number  int    `json:"number"`
			URL     string `json:"url"`
			Channel string `json:"channel"`
		} `json:"references"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, r.stdout)
	}
	if model.Calls() < 4 || len(doc.References) == 0 {
		t.Fatalf("%d model calls, %d references", model.Calls(), len(doc.References))
	}
	// Every reference is a page the web stand-in served, under one number.
	served := map[string]bool{}
	for _, u := range web.Fetched() {
		served[u] = true
	}
	searched := web.URL + "/pages/"
	var urls []string
	fetched := 0
	for i, ref := range doc.References {
		if ref.Number != i+1 || ref.Channel != "web" || !strings.HasPrefix(ref.URL, searched) {
			t.Errorf("reference %+v: want number %d, channel web, a page of the search results", ref, i+1)
		}
		if slices.Contains(urls, ref.URL) {
			t.Errorf("%s cited under two numbers", ref.URL)
		}
		urls = append(urls, ref.URL)
		if served[ref.URL] {
			fetched++ // opened and read whole; the others were read as search snippets
		}
	}
	if fetched == 0 {
		t.Errorf("no reference is a page the agents opened: %v", urls)
	}
	// Every marker resolves; the number never retrieved is gone; code is
	// untouched.
	body := regexp.MustCompile("(?s)```.*?```").ReplaceAllString(doc.Text, "")
	for _, m := range regexp.MustCompile(`\[([\d, ]+)\]`).FindAllStringSubmatch(body, -1) {
		for _, n := range strings.Split(m[1], ",") {
			n = strings.TrimSpace(n)
			if n == "" {
				continue
			}
			if k := atoi(n); k < 1 || k > len(doc.References) {
				t.Errorf("marker %s cites %d, not a reference", m[0], k)
			}
		}
	}
	if strings.Contains(doc.Text, "[99]") || strings.Contains(doc.Text, "【") {
		t.Errorf("the unretrieved [99] or a raw 【n】 marker survived:\n%s", doc.Text)
	}
	if !strings.Contains(doc.Text, "x := arr[1] // not a citation") {
		t.Errorf("the code block was changed:\n%s", doc.Text)
	}
	for _, u := range urls {
		if _, err := url.Parse(u); err != nil {
			t.Error(err)
		}
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// TestDoctor: doctor shows each part without secrets and checks that each
// answers; one that does not fails it.
func TestDoctor(t *testing.T) {
	index := isolate(t)
	web, err := deepresearchtest.NewWebServer(corpusDocs(t)...)
	if err != nil {
		t.Fatal(err)
	}
	defer web.Close()
	model := deepresearchtest.NewOpenAIServer(extractive.New(extractive.Options{}), deepresearchtest.OpenAIOptions{})
	defer model.Close()
	t.Setenv("SEARXNG_URL", web.URL)
	t.Setenv("OPENAI_API_KEY", "sk-do-not-print-me")
	r := cli(t, "", "doctor", "--provider", "openai", "--model", "extractive", "--base-url", model.URL+"/v1",
		"--search", "searxng,corpus", "--corpus", corpus, "--index", index)
	if r.code != 0 || strings.Count(r.stdout, " ok\n") != 5 || !strings.Contains(r.stdout, "OPENAI_API_KEY") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stdout+r.stderr, "do-not-print-me") {
		t.Errorf("doctor printed the key")
	}
	model.Close()
	r = cli(t, "", "doctor", "--provider", "openai", "--model", "extractive", "--base-url", model.URL+"/v1", "--corpus", corpus, "--index", index)
	if r.code != 1 || !strings.Contains(r.stdout, "FAIL") {
		t.Errorf("a model that does not answer: exit %d\n%s", r.code, r.stdout)
	}
}

// refusal is a provider's refusal (400: not retried).
type refusal struct{}

func (refusal) Error() string   { return "the writer's request was refused" }
func (refusal) StatusCode() int { return http.StatusBadRequest }

// TestRunWriterFails: when the writer fails after the research, run writes
// the agents' merged findings where the report would have gone (here a
// file, in the chosen format), says so and exits 1; the run store keeps
// the run failed, with the findings for show to print.
func TestRunWriterFails(t *testing.T) {
	index := isolate(t)
	model := deepresearchtest.NewOpenAIServer(deepresearchtest.FailingWriter(extractive.New(extractive.Options{}), refusal{}), deepresearchtest.OpenAIOptions{})
	defer model.Close()
	out := filepath.Join(t.TempDir(), "report.md")
	r := cli(t, "", "run", "--provider", "openai", "--model", "extractive", "--base-url", model.URL+"/v1",
		"--corpus", corpus, "--index", index, "--progress", "never", "-o", out, question)
	if r.code != 1 || !strings.Contains(r.stderr, "refused") || !strings.Contains(r.stderr, "findings were written instead") {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	findings := string(b)
	if !strings.Contains(findings, "## References") || !strings.Contains(findings, "[1]") || strings.Count(findings, "\n## ") < 2 {
		t.Errorf("the file does not hold the findings with their references:\n%s", findings)
	}

	runs := cli(t, "", "runs", "--json")
	var list []struct {
		ID     string `json:"id"`
		Status string `json:"status"`
	}
	if err := json.Unmarshal([]byte(runs.stdout), &list); err != nil || len(list) != 1 || list[0].Status != "failed" {
		t.Fatalf("runs: %v %+v\n%s", err, list, runs.stdout)
	}
	show := cli(t, "", "show", list[0].ID)
	if show.code != 0 || show.stdout != findings {
		t.Errorf("show: exit %d, %s\nstdout differs from the findings written:\n%s", show.code, show.stderr, show.stdout)
	}
}
