package finalreport

import (
	"context"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/canon"
	goldenfile "github.com/deepresearch/deepresearch/internal/golden"
	"github.com/deepresearch/deepresearch/source"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/collapse"
)

func golden(t *testing.T, name, got string) { t.Helper(); goldenfile.Check(t, name, got) }

// scripted is a protocol-level llms.Model double: it answers every call
// with Text, streaming it through CallOptions.StreamingFunc in the chunks
// Split returns (not at all when Split is nil), and reports Info as the
// choice's GenerationInfo. With Err set, it streams the first ErrAfter
// chunks and then fails with Err.
type scripted struct {
	Text     string
	Split    func(string) []string
	Info     map[string]any
	Err      error
	ErrAfter int
	NoChoice bool
	// CheckCtx makes the model fail with the context's cause when ctx is
	// done, as providers do.
	CheckCtx bool

	// OnError, if set, is called just before the model returns Err.
	OnError func()
	// Msgs are the messages of the last call.
	Msgs  []llms.MessageContent
	Calls int
}

var _ llms.Model = (*scripted)(nil)

func (m *scripted) GenerateContent(ctx context.Context, msgs []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	m.Calls++
	m.Msgs = msgs
	if m.CheckCtx && ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	var opts llms.CallOptions
	for _, o := range options {
		o(&opts)
	}
	if m.Split != nil && opts.StreamingFunc != nil {
		for i, c := range m.Split(m.Text) {
			if m.Err != nil && i == m.ErrAfter {
				break
			}
			if err := opts.StreamingFunc(ctx, []byte(c)); err != nil {
				return nil, err
			}
		}
	}
	if m.Err != nil {
		if m.OnError != nil {
			m.OnError()
		}
		return nil, m.Err
	}
	if m.NoChoice {
		return &llms.ContentResponse{}, nil
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{
		Content:        m.Text,
		StopReason:     "stop",
		GenerationInfo: m.Info,
	}}}, nil
}

func (m *scripted) Call(ctx context.Context, prompt string, options ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, options...)
}

// bytesOf splits s into chunks of n bytes, ignoring UTF-8 boundaries.
func bytesOf(n int) func(string) []string {
	return func(s string) []string {
		var out []string
		for len(s) > 0 {
			k := min(n, len(s))
			out = append(out, s[:k])
			s = s[k:]
		}
		return out
	}
}

// at splits s at the given byte offsets (ascending, within s).
func splitAt(offsets ...int) func(string) []string {
	return func(s string) []string {
		var out []string
		prev := 0
		for _, o := range offsets {
			if o <= prev || o >= len(s) {
				continue
			}
			out = append(out, s[prev:o])
			prev = o
		}
		return append(out, s[prev:])
	}
}

// event is one hook call.
type event struct {
	Cite int // 0 for a Delta
	Src  source.Source
	Text string
}

// recorder records hook calls.
type recorder struct {
	events  []event
	unknown []citeproc.Unknown
}

func (r *recorder) hooks() Hooks {
	return Hooks{
		Delta:    func(s string) { r.events = append(r.events, event{Text: s}) },
		Citation: func(n int, src source.Source) { r.events = append(r.events, event{Cite: n, Src: src}) },
		Unknown:  func(u citeproc.Unknown) { r.unknown = append(r.unknown, u) },
	}
}

// merged returns the events with consecutive Deltas joined: the part of
// the hook sequence that does not depend on how the text was chunked.
func (r *recorder) merged() []event {
	var out []event
	for _, e := range r.events {
		if e.Cite == 0 && len(out) > 0 && out[len(out)-1].Cite == 0 {
			out[len(out)-1].Text += e.Text
			continue
		}
		out = append(out, e)
	}
	return out
}

func (r *recorder) text() string {
	var b strings.Builder
	for _, e := range r.events {
		b.WriteString(e.Text)
	}
	return b.String()
}

// src returns the merged source numbered n, built from short names.
func mergedSrc(n int, id, url, title string) collapse.Source {
	return collapse.Source{
		Number:       n,
		Source:       source.Source{ID: id, URL: url, Title: title, Channel: "web"},
		CanonicalURL: canon.Key(url),
	}
}

// fixtureSources are eight merged sources; 6 is a local document without
// a URL; 7 has a publication date, 3 a modification date only, 6 its
// file's modification time (not shown in reference lists).
func fixtureSources() []collapse.Source {
	three := mergedSrc(3, "w3", "https://example.org/three?b=2&a=1", "Three & <Co>")
	three.Modified = "2024-05-01T08:00:00Z"
	seven := mergedSrc(7, "w7", "https://example.org/seven", "Seven")
	seven.Published = "2024-03-15"
	return []collapse.Source{
		mergedSrc(1, "w1", "https://example.org/one", "One"),
		mergedSrc(2, "w2", "https://example.org/two", "Two"),
		three,
		mergedSrc(4, "w4", "https://example.org/four", "Four"),
		mergedSrc(5, "w5", "https://example.org/five", "Five [draft]"),
		{Number: 6, Source: source.Source{ID: "corpus/six.md", Title: "Six", Channel: "corpus", Modified: "2026-11-20T08:00:00Z"}},
		seven,
		mergedSrc(8, "w8", "https://example.org/eight", "Eight"),
	}
}

// fixtureText is what the scripted writer returns: global numbers 7, 3, 5,
// 2 (by URL) and 6 cited in that order, 99 unknown, a code block whose
// marker is literal, and multi-byte characters next to markers.
const fixtureText = "# Café prices\n" +
	"\n" +
	"Prices rose in 2024 [7]. Wages lagged—see [3][7].\n" +
	"\n" +
	"A claim with a bad number [99] stays, and é【5】 too.\n" +
	"\n" +
	"## Détails\n" +
	"\n" +
	"Two agree [ref: https://example.org/two] [2, 7]; the notes [6] say so.\n" +
	"\n" +
	"```\n" +
	"literal [9]\n" +
	"```\n"

// fixtureBody is fixtureText renumbered 7→1, 3→2, 5→3, 2→4, 6→5.
const fixtureBody = "# Café prices\n" +
	"\n" +
	"Prices rose in 2024 [1]. Wages lagged—see [2][1].\n" +
	"\n" +
	"A claim with a bad number stays, and é[3] too.\n" +
	"\n" +
	"## Détails\n" +
	"\n" +
	"Two agree [4] [4, 1]; the notes [5] say so.\n" +
	"\n" +
	"```\n" +
	"literal [9]\n" +
	"```\n"

// fixtureRefs are the references fixtureBody cites: global 7, 3, 5, 2, 6.
func fixtureRefs() []Reference {
	byNum := map[int]collapse.Source{}
	for _, s := range fixtureSources() {
		byNum[s.Number] = s
	}
	var refs []Reference
	for i, g := range []int{7, 3, 5, 2, 6} {
		s := byNum[g]
		refs = append(refs, Reference{Number: i + 1, Source: s.Source, CanonicalURL: s.CanonicalURL})
	}
	return refs
}

var allStyles = []struct {
	name  string
	style citeproc.Style
}{
	{"markdown", citeproc.Markdown},
	{"plain", citeproc.Plain},
	{"footnote", citeproc.Footnote},
	{"html", citeproc.HTML},
}

// exported is the part of a report its users see: the unexported fields
// hold the writer's text and a mapping with a canonicaliser func, which
// reflect.DeepEqual cannot compare.
func exported(r *Report) Report {
	return Report{Body: r.Body, Text: r.Text, References: r.References, Unknown: r.Unknown, Usage: r.Usage}
}
