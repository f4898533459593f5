package extractive

import (
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/terms"
)

func TestAnswerNames(t *testing.T) {
	q := strings.ToLower("How do I make an HTTP request with a timeout using -race?")
	for _, c := range []struct {
		s    string
		want int
	}{
		{"To make a request with a specified context.Context, use NewRequestWithContext and DefaultClient.Do.", 3},
		{"Set overcommit_memory to 2, or write to /proc/sys/vm/overcommit_ratio.", 2},
		{"Copy stable@vger.kernel.org; GNU make 3.82 is the least; print it with %p.", 3},
		{"Call clock_gettime() with CLOCK_MONOTONIC, not with TIME.", 2}, // an upper-case word alone is no name
		{"Run the tests with -race, e.g. in CI, as HTTP clients do.", 0}, // the question's own, an abbreviation, an acronym
		{"The Reader converts all line endings; URLs and IDs are kept.", 0},
	} {
		if got := answerNames(c.s, q, terms.Tokens(q)); got != c.want {
			t.Errorf("answerNames(%q) = %d, want %d", c.s, got, c.want)
		}
	}
}

// TestWriterLeadsWithTheSentencesThatAnswer: a report opens with the
// sentences that give the answer's names, above the passage that
// introduces them, and does not quote them again below; a label, and a
// paragraph that introduces a block, stay with what they introduce.
func TestWriterLeadsWithTheSentencesThatAnswer(t *testing.T) {
	prompt := `Question: How do I make an HTTP request with a timeout?

## Findings

### Overview
Response represents the response from an HTTP request. [1] The Client and Transport return Responses from servers once the response headers have been received. [1]

Get issues a GET to the specified URL and follows redirects, up to ten of them, before it returns the response of the request. [1]

To make a request with a specified context.Context, use NewRequestWithContext and DefaultClient.Do. [1]

Example Client.Timeout [2]:

` + "```" + `
c := &http.Client{Timeout: 5 * time.Second}
` + "```" + `

To make an HTTP request with a timeout, give the http.Client a Timeout, as this code does. [2]

` + "```" + `
resp, err := (&http.Client{Timeout: time.Second}).Get(url)
` + "```" + `

A Client's Timeout field limits the time of each request it makes, including reading the body; set it with http.Client{Timeout: d} before the request. [2]

## Sources
[1] Package http (net/http) — https://pkg.go.dev/net/http
[2] Package http client examples — https://pkg.go.dev/net/http#Client
`
	out := generate(t, New(Options{}), []llms.MessageContent{sys("writer"), human(prompt)}).Content
	_, body, _ := strings.Cut(out, "\n\n")
	first, _, _ := strings.Cut(body, "\n\n")
	for _, s := range []string{"use NewRequestWithContext and DefaultClient.Do. [1]", "set it with http.Client{Timeout: d} before the request. [2]"} {
		if !strings.Contains(first, s) {
			t.Errorf("the first paragraph lacks %q:\n%s", s, out)
		}
		if strings.Count(out, s) != 1 {
			t.Errorf("%q is quoted %d times:\n%s", s, strings.Count(out, s), out)
		}
	}
	if strings.Contains(first, "Example Client.Timeout") || !strings.Contains(out, "Example Client.Timeout [2]:\n\n```\nc := &http.Client{Timeout: 5 * time.Second}\n```") {
		t.Errorf("the example's label left its block:\n%s", out)
	}
	if !strings.Contains(out, "as this code does. [2]\n\n```\nresp, err := (&http.Client{Timeout: time.Second}).Get(url)\n```") {
		t.Errorf("the paragraph that introduces a block left it:\n%s", out)
	}
	if !strings.Contains(out, "Response represents the response from an HTTP request. [1]") {
		t.Errorf("the introduction is lost:\n%s", out)
	}
}

// TestLeadLeavesSectionsTheirOwn: a section whose one passage of a cited
// source went into the lead still quotes its own best passage, of a fifth
// source, rather than vanishing behind the passage the lead took.
func TestLeadLeavesSectionsTheirOwn(t *testing.T) {
	prompt := processThreadPrompt("scheduler", "share its memory through CLONE_VM")
	out := write([]llms.MessageContent{human(prompt)})
	_, body, _ := strings.Cut(out, "\n\n")
	if first, _, _ := strings.Cut(body, "\n\n"); !strings.Contains(first, "CLONE_VM") {
		t.Errorf("the named sentence does not lead:\n%s", out)
	}
	if !strings.Contains(out, "## Thread") || !strings.Contains(out, "A thread is the unit of execution a process schedules") {
		t.Errorf("the Thread section vanished behind the lead:\n%s", out)
	}
}

// TestLeadSkipsRows: a table's row is a record, quoted with its table's
// other rows, never a lead sentence on its own — in either form a corpus
// writes one.
func TestLeadSkipsRows(t *testing.T) {
	for _, row := range []string{
		"product_id: SKU001 | name: TechBook Pro | category: laptop | price: 1499.0 | stock: 12.",
		"product_id: SKU001; name: TechBook Pro; category: laptop; price: 1499.0; stock: 12",
	} {
		if !rowLike(row) {
			t.Errorf("rowLike(%q) = false", row)
		}
	}
	if rowLike("The price of the TechBook Air is 999.0 dollars: it is the cheaper laptop.") {
		t.Error("a sentence of prose is taken for a row")
	}
	prompt := `Question: What is the price of the TechBook Air, and how long does its battery last?

## Findings

### Overview
External review of the TechBook Air: its battery lasts fourteen hours. [2]

product_id: SKU001 | name: TechBook Pro | category: laptop | price: 1499.0 | stock: 12. [1]

## Sources
[1] Product Catalog — techmart_catalog.csv
[2] External Review — https://example.com/air
`
	out := write([]llms.MessageContent{human(prompt)})
	_, body, _ := strings.Cut(out, "\n\n")
	if first, _, _ := strings.Cut(body, "\n\n"); strings.Contains(first, "SKU001") {
		t.Errorf("a row leads the report:\n%s", out)
	}
}
