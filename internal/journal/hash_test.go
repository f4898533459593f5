package journal

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/golden"
)

func opts(o ...llms.CallOption) llms.CallOptions {
	var c llms.CallOptions
	for _, f := range o {
		f(&c)
	}
	return c
}

var (
	sys  = llms.TextParts(llms.ChatMessageTypeSystem, "You research.")
	task = llms.TextParts(llms.ChatMessageTypeHuman, "Task: the Go memory model")
	tool = llms.Tool{Type: "function", Function: &llms.FunctionDefinition{Name: "search", Description: "Search.",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"query": map[string]any{"type": "string"}}}}}
	noop = func(context.Context, []byte) error { return nil }
)

// keyCases are requests whose keys are kept in testdata/keys.golden: a
// change to how requests are keyed changes them, and would make every
// journal already written unreadable by key. Such a change needs a new
// format version.
var keyCases = []struct {
	name string
	msgs []llms.MessageContent
	o    llms.CallOptions
}{
	{"plain", []llms.MessageContent{sys, task}, opts()},
	{"streamed", []llms.MessageContent{sys, task}, opts(llms.WithStreamingFunc(noop))},
	{"tools", []llms.MessageContent{sys, task}, opts(llms.WithTools([]llms.Tool{tool}))},
	{"max tokens", []llms.MessageContent{sys, task}, opts(llms.WithMaxTokens(512))},
	{"temperature", []llms.MessageContent{sys, task}, opts(llms.WithTemperature(0.2))},
	{"tool turn", []llms.MessageContent{sys, task,
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.TextPart("Searching."), llms.ToolCall{ID: "call_1", Type: "function",
			FunctionCall: &llms.FunctionCall{Name: "search", Arguments: `{"query":"happens before"}`}}}},
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "call_1", Name: "search", Content: "[1] …"}}},
	}, opts(llms.WithTools([]llms.Tool{tool}))},
	{"binary and image", []llms.MessageContent{{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{
		llms.BinaryPart("image/png", []byte{0x89, 'P', 'N', 'G'}), llms.ImageURLPart("https://example.com/a.png")}}}, opts()},
	{"invalid UTF-8", []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "\xff\xfe")}, opts()},
	{"json mode and metadata", []llms.MessageContent{task}, opts(llms.WithJSONMode(), llms.WithMetadata(map[string]any{"b": 2, "a": []int{1}}))},
}

func TestModelKeyGolden(t *testing.T) {
	var b strings.Builder
	seen := map[string]string{}
	for _, c := range keyCases {
		k, err := ModelKey(c.msgs, c.o)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if prev, dup := seen[k]; dup {
			t.Errorf("%s and %s share a key", c.name, prev)
		}
		seen[k] = c.name
		fmt.Fprintf(&b, "%s\t%s\n", k, c.name)
	}
	fmt.Fprintf(&b, "%s\tsearch\n%s\tdocument\n%s\tpage\n", SearchKey("go memory model", 5), DocumentKey("doc-1"), PageKey("https://go.dev/ref/mem"))
	golden.Check(t, "keys.golden", b.String())
}

func TestModelKeyProperties(t *testing.T) {
	base, _ := ModelKey([]llms.MessageContent{sys, task}, opts())
	same := []struct {
		name string
		msgs []llms.MessageContent
		o    llms.CallOptions
	}{
		// The streaming func itself is not part of the request: only that
		// there is one.
		{"nil parts slice vs built", []llms.MessageContent{{Role: sys.Role, Parts: []llms.ContentPart{llms.TextContent{Text: "You research."}}}, task}, opts()},
		{"zero options set explicitly", []llms.MessageContent{sys, task}, opts(llms.WithTemperature(0), llms.WithMaxTokens(0))},
	}
	for _, c := range same {
		if k, _ := ModelKey(c.msgs, c.o); k != base {
			t.Errorf("%s: key changed", c.name)
		}
	}
	s1, _ := ModelKey([]llms.MessageContent{task}, opts(llms.WithStreamingFunc(noop)))
	s2, _ := ModelKey([]llms.MessageContent{task}, opts(llms.WithStreamingFunc(func(context.Context, []byte) error { return nil })))
	if s1 != s2 {
		t.Error("two streaming funcs give two keys")
	}
	m1, _ := ModelKey([]llms.MessageContent{task}, opts(llms.WithMetadata(map[string]any{"a": 1, "b": 2, "c": 3})))
	m2, _ := ModelKey([]llms.MessageContent{task}, opts(llms.WithMetadata(map[string]any{"c": 3, "a": 1, "b": 2})))
	if m1 != m2 {
		t.Error("map order changed the key")
	}
	differ := []struct {
		name string
		msgs []llms.MessageContent
		o    llms.CallOptions
	}{
		{"role", []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "You research."), task}, opts()},
		{"split text", []llms.MessageContent{{Role: sys.Role, Parts: []llms.ContentPart{llms.TextPart("You "), llms.TextPart("research.")}}, task}, opts()},
		{"streamed", []llms.MessageContent{sys, task}, opts(llms.WithStreamingFunc(noop))},
		{"model", []llms.MessageContent{sys, task}, opts(llms.WithModel("gpt-4.1"))},
		{"stop words", []llms.MessageContent{sys, task}, opts(llms.WithStopWords([]string{"\n"}))},
	}
	for _, c := range differ {
		if k, _ := ModelKey(c.msgs, c.o); k == base {
			t.Errorf("%s: key unchanged", c.name)
		}
	}
	if _, err := ModelKey([]llms.MessageContent{task}, opts(llms.WithMetadata(map[string]any{"c": make(chan int)}))); err == nil {
		t.Error("a channel in the metadata keyed")
	}
	if SearchKey("a", 5) == SearchKey("a", 6) || SearchKey("a", 5) == SearchKey("b", 5) || DocumentKey("x") == PageKey("x") {
		t.Error("keys of different requests meet")
	}
}

// BenchmarkModelKey keys an agent's late turn: a conversation of 12 tool
// results of 2 KB each.
func BenchmarkModelKey(b *testing.B) {
	msgs := []llms.MessageContent{sys, task}
	for i := range 12 {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs, llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.ToolCall{ID: id, Type: "function",
			FunctionCall: &llms.FunctionCall{Name: "search", Arguments: `{"query":"q"}`}}}},
			llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: id, Name: "search",
				Content: strings.Repeat("Source text of a page, fenced. ", 64)}}})
	}
	o := opts(llms.WithTools([]llms.Tool{tool}))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ModelKey(msgs, o); err != nil {
			b.Fatal(err)
		}
	}
}
