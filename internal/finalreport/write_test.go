package finalreport

import (
	"context"
	"errors"
	"io"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/internal/usage"
)

// fixtureTexts is fixtureBody rendered in each style.
var fixtureTexts = map[citeproc.Style]string{
	citeproc.Markdown: "# Café prices\n" +
		"\n" +
		"Prices rose in 2024 [[1]](https://example.org/seven). Wages lagged—see [[2]](https://example.org/three?b=2&a=1)[[1]](https://example.org/seven).\n" +
		"\n" +
		"A claim with a bad number stays, and é[[3]](https://example.org/five) too.\n" +
		"\n" +
		"## Détails\n" +
		"\n" +
		"Two agree [[4]](https://example.org/two) [[4]](https://example.org/two)[[1]](https://example.org/seven); the notes [5] say so.\n" +
		"\n" +
		"```\n" +
		"literal [9]\n" +
		"```\n",
	citeproc.Plain: fixtureBody,
	citeproc.Footnote: "# Café prices\n" +
		"\n" +
		"Prices rose in 2024 [^1]. Wages lagged—see [^2][^1].\n" +
		"\n" +
		"A claim with a bad number stays, and é[^3] too.\n" +
		"\n" +
		"## Détails\n" +
		"\n" +
		"Two agree [^4] [^4][^1]; the notes [^5] say so.\n" +
		"\n" +
		"```\n" +
		"literal [9]\n" +
		"```\n",
	citeproc.HTML: "# Café prices\n" +
		"\n" +
		`Prices rose in 2024 <sup class="cite" data-sids="1"><a href="https://example.org/seven" title="Seven">[1]</a></sup>. ` +
		`Wages lagged—see <sup class="cite" data-sids="2"><a href="https://example.org/three?b=2&amp;a=1" title="Three &amp; &lt;Co&gt;">[2]</a></sup><sup class="cite" data-sids="1"><a href="https://example.org/seven" title="Seven">[1]</a></sup>.` + "\n" +
		"\n" +
		`A claim with a bad number stays, and é<sup class="cite" data-sids="3"><a href="https://example.org/five" title="Five [draft]">[3]</a></sup> too.` + "\n" +
		"\n" +
		"## Détails\n" +
		"\n" +
		`Two agree <sup class="cite" data-sids="4"><a href="https://example.org/two" title="Two">[4]</a></sup> ` +
		`<sup class="cite" data-sids="4,1"><a href="https://example.org/two" title="Two">[4]</a>,<a href="https://example.org/seven" title="Seven">[1]</a></sup>; ` +
		`the notes <sup class="cite" data-sids="5">[5]</sup> say so.` + "\n" +
		"\n" +
		"```\n" +
		"literal [9]\n" +
		"```\n",
}

func fixtureInput() Input {
	return Input{
		Question: "How did café prices change?",
		Sections: []collapse.MergedReport{{Section: "Prices", Text: "Prices rose [7]."}},
		Sources:  fixtureSources(),
	}
}

func writeReport(t *testing.T, m llms.Model, style citeproc.Style, in Input) (*Report, *recorder) {
	t.Helper()
	rec := &recorder{}
	rep, err := Write(context.Background(), Config{Model: m, Style: style, Hooks: rec.hooks()}, in)
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	return rep, rec
}

func TestWriteRenumbers(t *testing.T) {
	for _, st := range allStyles {
		t.Run(st.name, func(t *testing.T) {
			m := &scripted{Text: fixtureText, Split: bytesOf(len(fixtureText))}
			rep, rec := writeReport(t, m, st.style, fixtureInput())
			if rep.Body != fixtureBody {
				t.Errorf("Body:\n got %q\nwant %q", rep.Body, fixtureBody)
			}
			if want := fixtureTexts[st.style]; rep.Text != want {
				t.Errorf("Text:\n got %q\nwant %q", rep.Text, want)
			}
			if !reflect.DeepEqual(rep.References, fixtureRefs()) {
				t.Errorf("References:\n got %+v\nwant %+v", rep.References, fixtureRefs())
			}
			if want := []citeproc.Unknown{{Number: 99}}; !reflect.DeepEqual(rep.Unknown, want) || !reflect.DeepEqual(rec.unknown, want) {
				t.Errorf("Unknown = %+v, hook saw %+v, want %+v", rep.Unknown, rec.unknown, want)
			}
			if got := rec.text(); got != rep.Text {
				t.Errorf("Delta texts joined:\n got %q\nwant Text %q", got, rep.Text)
			}
			var cites []int
			for _, e := range rec.events {
				if e.Cite != 0 {
					cites = append(cites, e.Cite)
					if want := rep.References[e.Cite-1].Source; e.Src != want {
						t.Errorf("Citation(%d) source %+v, want %+v", e.Cite, e.Src, want)
					}
				}
			}
			if want := []int{1, 2, 3, 4, 5}; !reflect.DeepEqual(cites, want) {
				t.Errorf("Citation hooks for %v, want %v", cites, want)
			}
			checkCiteBeforeDelta(t, rec)
		})
	}
}

// TestWriteUnknownNeverResolved: a number that is not a merged source is
// dropped, even when the other sources would make a plausible target
// (the number of sources, its position among the cited ones, 0).
func TestWriteUnknownNeverResolved(t *testing.T) {
	in := fixtureInput()
	in.Sources = in.Sources[:3] // 1, 2, 3
	text := "A [4]. B [0]. C [3]. D [99][2]. E [ref: https://example.org/seven].\n"
	rep, rec := writeReport(t, &scripted{Text: text, Split: bytesOf(2)}, citeproc.Markdown, in)
	// [0] is a number (some prompts number sources from 0) but no merged
	// source: dropped like the others.
	if want := "A. B. C [1]. D [2]. E.\n"; rep.Body != want {
		t.Errorf("Body = %q, want %q", rep.Body, want)
	}
	if got := markersIn(rep.Body); !reflect.DeepEqual(got, []int{1, 2}) {
		t.Errorf("Body %q cites %v, want [1 2]", rep.Body, got)
	}
	want := []Reference{
		{Number: 1, Source: in.Sources[2].Source, CanonicalURL: in.Sources[2].CanonicalURL},
		{Number: 2, Source: in.Sources[1].Source, CanonicalURL: in.Sources[1].CanonicalURL},
	}
	if !reflect.DeepEqual(rep.References, want) {
		t.Errorf("References = %+v, want %+v", rep.References, want)
	}
	for _, u := range rep.Unknown {
		if u.Number >= 1 && u.Number <= 3 {
			t.Errorf("Unknown lists %d, which is a merged source", u.Number)
		}
	}
	for _, n := range []int{4, 99} {
		if !containsUnknown(rep.Unknown, citeproc.Unknown{Number: n}) {
			t.Errorf("Unknown = %+v, want it to list %d", rep.Unknown, n)
		}
	}
	if !containsUnknown(rep.Unknown, citeproc.Unknown{URL: "https://example.org/seven"}) {
		t.Errorf("Unknown = %+v, want it to list the URL of a source that was not merged", rep.Unknown)
	}
	for _, e := range rec.events {
		if e.Cite > 2 {
			t.Errorf("Citation hook for %d", e.Cite)
		}
	}
}

func containsUnknown(us []citeproc.Unknown, u citeproc.Unknown) bool {
	for _, x := range us {
		if x == u {
			return true
		}
	}
	return false
}

// markersIn returns the numbers of the citation markers in a published
// body, in order of first citation, as a reader's tool would find them.
func markersIn(body string) []int {
	mp := citeproc.NewMapping(nil)
	for n := 1; n <= 1000; n++ {
		mp.Add(n, citeproc.Source{ID: strconv.Itoa(n)})
	}
	p := citeproc.New(io.Discard, citeproc.Config{Mode: citeproc.Keep, Mapping: mp})
	p.WriteString(body)
	p.Close()
	var out []int
	for _, c := range p.Cited() {
		out = append(out, c.Number)
	}
	return out
}

// citedRe matches a rendered citation of number n in any style: [n], [^n],
// or n inside a plain group [a, n, b].
func citedRe(n int) *regexp.Regexp {
	d := strconv.Itoa(n)
	return regexp.MustCompile(`\[\^?(?:\d+, )*` + d + `(?:, \d+)*\]`)
}

// checkCiteBeforeDelta checks that no Delta passes on the citation of n
// before the Citation hook for n was called, and that every cited number
// does appear in the text.
func checkCiteBeforeDelta(t *testing.T, rec *recorder) {
	t.Helper()
	var sofar strings.Builder
	seen := map[int]bool{}
	for _, e := range rec.events {
		if e.Cite != 0 {
			if seen[e.Cite] {
				t.Errorf("Citation hook for %d called twice", e.Cite)
			}
			seen[e.Cite] = true
			if citedRe(e.Cite).MatchString(sofar.String()) {
				t.Errorf("Citation hook for %d came after the text citing it: %q", e.Cite, sofar.String())
			}
			continue
		}
		sofar.WriteString(e.Text)
	}
	for n := range seen {
		if !citedRe(n).MatchString(sofar.String()) {
			t.Errorf("Citation hook for %d, but the text never cites it", n)
		}
	}
}

// TestWriteChunking replays the writer's output whole, one, two and three
// bytes at a time, split inside a marker and inside a multi-byte
// character, and not streamed at all: the report and the hook sequence
// (Deltas joined) are always the same.
func TestWriteChunking(t *testing.T) {
	marker := strings.Index(fixtureText, "[99]") + 2
	ref := strings.Index(fixtureText, "[ref: https") + 7
	fullwidth := strings.Index(fixtureText, "【") + 1
	e := strings.Index(fixtureText, "é【") + 1
	dash := strings.Index(fixtureText, "—") + 2
	seven := strings.Index(fixtureText, "[7]") + 1
	group := strings.Index(fixtureText, "[3][7]") + 3
	splits := []struct {
		name  string
		split func(string) []string
	}{
		{"none", nil},
		{"whole", bytesOf(len(fixtureText))},
		{"1", bytesOf(1)},
		{"2", bytesOf(2)},
		{"3", bytesOf(3)},
		{"odd2", func(s string) []string { return append([]string{s[:1]}, bytesOf(2)(s[1:])...) }},
		{"in-markers", splitAt(seven, group, marker, ref)},
		{"in-utf8", splitAt(e, fullwidth, dash)},
		{"empty-chunks", func(s string) []string {
			var out []string
			for _, c := range bytesOf(5)(s) {
				out = append(out, "", c)
			}
			return append(out, "")
		}},
	}
	in := fixtureInput()
	in.Missing = []Missing{{Section: "Wages", Reason: "timeout"}}
	for _, st := range allStyles {
		t.Run(st.name, func(t *testing.T) {
			want, wantRec := writeReport(t, &scripted{Text: fixtureText, Split: bytesOf(len(fixtureText))}, st.style, in)
			for _, sp := range splits {
				t.Run(sp.name, func(t *testing.T) {
					got, rec := writeReport(t, &scripted{Text: fixtureText, Split: sp.split}, st.style, in)
					if !reflect.DeepEqual(exported(got), exported(want)) {
						t.Errorf("report differs from the whole-chunk one:\n got %+v\nwant %+v", got, want)
					}
					if g, w := rec.merged(), wantRec.merged(); !reflect.DeepEqual(g, w) {
						t.Errorf("hook sequence differs from the whole-chunk one:\n got %+v\nwant %+v", g, w)
					}
					if rec.text() != got.Text {
						t.Errorf("Delta texts joined:\n got %q\nwant Text %q", rec.text(), got.Text)
					}
					checkCiteBeforeDelta(t, rec)
				})
			}
		})
	}
}

func TestWriteNoHooks(t *testing.T) {
	rep, err := Write(context.Background(), Config{Model: &scripted{Text: fixtureText, Split: bytesOf(3)}}, fixtureInput())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Body != fixtureBody || rep.Text != fixtureTexts[citeproc.Markdown] {
		t.Errorf("without hooks: Body %q, Text %q", rep.Body, rep.Text)
	}
}

var errModel = errors.New("provider unavailable")

func TestWriteModelError(t *testing.T) {
	for _, tc := range []struct {
		name  string
		model *scripted
	}{
		{"before streaming", &scripted{Err: errModel}},
		{"not streaming", &scripted{Text: fixtureText, Err: errModel}},
		{"after some chunks", &scripted{Text: fixtureText, Split: bytesOf(7), Err: errModel, ErrAfter: 6}},
		{"after every chunk", &scripted{Text: fixtureText, Split: bytesOf(7), Err: errModel, ErrAfter: 1 << 30}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{}
			atError := -1
			tc.model.OnError = func() { atError = len(rec.events) }
			rep, err := Write(context.Background(), Config{Model: tc.model, Hooks: rec.hooks()}, fixtureInput())
			if !errors.Is(err, errModel) {
				t.Fatalf("err = %v, want it to wrap %v", err, errModel)
			}
			if !strings.HasPrefix(err.Error(), "finalreport: model: ") {
				t.Errorf("err = %q, want the finalreport: model: prefix", err)
			}
			if rep != nil {
				t.Errorf("report %+v returned with the error", rep)
			}
			if len(rec.events) != atError {
				t.Errorf("%d hook calls after the model failed: %+v", len(rec.events)-atError, rec.events[atError:])
			}
		})
	}
}

func TestWriteContextCanceled(t *testing.T) {
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("user gave up")
	cancel(cause)
	m := &scripted{Text: fixtureText, Split: bytesOf(3), CheckCtx: true}
	_, err := Write(ctx, Config{Model: m}, fixtureInput())
	if !errors.Is(err, cause) {
		t.Errorf("err = %v, want it to wrap the cancellation cause", err)
	}
}

func TestWriteBadInput(t *testing.T) {
	if _, err := Write(context.Background(), Config{}, fixtureInput()); err == nil {
		t.Error("Write without a model: no error")
	}
	if _, err := Write(context.Background(), Config{Model: &scripted{Text: "x", NoChoice: true}}, fixtureInput()); err == nil {
		t.Error("a response without choices: no error")
	}
	in := fixtureInput()
	in.Sources = append(in.Sources, mergedSrc(3, "other", "https://example.org/other", "Other"))
	m := &scripted{Text: "x"}
	if _, err := Write(context.Background(), Config{Model: m}, in); err == nil {
		t.Error("two sources under one number: no error")
	}
	if m.Calls != 0 {
		t.Errorf("the model was called %d times for an invalid input", m.Calls)
	}
}

func TestWriteUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		info map[string]any
		want usage.Usage
	}{
		{"openai", map[string]any{"PromptTokens": 1200, "CompletionTokens": 345, "TotalTokens": 1545}, usage.Usage{PromptTokens: 1200, CompletionTokens: 345, Calls: 1}},
		{"anthropic", map[string]any{"InputTokens": int64(10), "OutputTokens": float64(20)}, usage.Usage{PromptTokens: 10, CompletionTokens: 20, Calls: 1}},
		{"none", nil, usage.Usage{Calls: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, split := range []func(string) []string{nil, bytesOf(4)} {
				rep, _ := writeReport(t, &scripted{Text: "Hi [1].\n", Split: split, Info: tc.info}, citeproc.Markdown, fixtureInput())
				if rep.Usage != tc.want {
					t.Errorf("Usage = %+v, want %+v", rep.Usage, tc.want)
				}
			}
		})
	}
}

func TestWriteMissing(t *testing.T) {
	for _, tc := range []struct {
		name    string
		text    string
		missing []Missing
		want    string
	}{
		{
			name:    "none",
			text:    "Body [1].\n",
			missing: nil,
			want:    "Body [1].\n",
		},
		{
			name:    "one",
			text:    "Body [1].\n",
			missing: []Missing{{Section: "Wages", Reason: "agent: context deadline exceeded"}},
			want: "Body [1].\n" +
				"\n> **Incomplete research.** One research task failed, so this report does not cover it: “Wages” (agent: context deadline exceeded).\n",
		},
		{
			name:    "two, text without final newline",
			text:    "Body [1]",
			missing: []Missing{{Section: "Wages", Reason: "timeout"}, {Section: "Rents", Reason: "no sources"}},
			want: "Body [1]\n" +
				"\n> **Incomplete research.** 2 research tasks failed, so this report does not cover them: “Wages” (timeout); “Rents” (no sources).\n",
		},
		{
			name:    "empty report",
			text:    "",
			missing: []Missing{{Section: "Wages", Reason: "timeout"}},
			want:    "\n\n> **Incomplete research.** One research task failed, so this report does not cover it: “Wages” (timeout).\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := fixtureInput()
			in.Missing = tc.missing
			for _, split := range []func(string) []string{nil, bytesOf(1), bytesOf(len(tc.text) + 1)} {
				rep, rec := writeReport(t, &scripted{Text: tc.text, Split: split}, citeproc.Plain, in)
				if rep.Body != tc.want {
					t.Errorf("Body:\n got %q\nwant %q", rep.Body, tc.want)
				}
				if rep.Text != rep.Body || rec.text() != rep.Text {
					t.Errorf("Plain Text %q / Deltas %q differ from Body %q", rep.Text, rec.text(), rep.Body)
				}
			}
		})
	}
}

// TestWriteMissingNoteCitesNothing: the "Incomplete research" note is the
// system's text, not the writer's; brackets in a section title or a
// failure reason (Go's "index out of range [5] with length 3") must not
// become citations of merged sources.
func TestWriteMissingNoteCitesNothing(t *testing.T) {
	in := fixtureInput()
	in.Missing = []Missing{
		{Section: "Prices [2]", Reason: "runtime error: index out of range [5] with length 3"},
		{Section: "Rents 【4】", Reason: "tool ［3］ failed"},
	}
	rep, rec := writeReport(t, &scripted{Text: "Body [1].\n"}, citeproc.Markdown, in)
	if len(rep.References) != 1 {
		t.Errorf("the note added references: %+v", rep.References)
	}
	for _, e := range rec.events {
		if e.Cite > 1 {
			t.Errorf("Citation hook for %d from the note", e.Cite)
		}
	}
	for _, s := range []string{"Prices", "[2]", "index out of range", "[5]", "with length 3", "Rents", "4", "tool", "3", "failed"} {
		if !strings.Contains(strings.ReplaceAll(rep.Body, `\`, ""), s) {
			t.Errorf("Body %q does not name %q", rep.Body, s)
		}
	}
}

// TestWriteUsageTag: a usage tag ([[USAGE:1,3]], seed 001) leaves the report
// and its numbers are kept as merged numbers, also when the stored draft
// is published again.
func TestWriteUsageTag(t *testing.T) {
	text := "Prices rose [7].\n\n[[USAGE:7, 3]]\nWages [[usage:2]] lagged [3].\n"
	for _, split := range []int{len(text), 1, 2} {
		rep, _ := writeReport(t, &scripted{Text: text, Split: bytesOf(split)}, citeproc.Markdown, fixtureInput())
		if strings.Contains(rep.Body, "USAGE") || strings.Contains(strings.ToUpper(rep.Text), "USAGE") {
			t.Errorf("split %d: usage tag left in the report:\nBody %q\nText %q", split, rep.Body, rep.Text)
		}
		if want := "Prices rose [1].\n\n\nWages lagged [2].\n"; rep.Body != want {
			t.Errorf("split %d: Body %q, want %q", split, rep.Body, want)
		}
		if want := []int{7, 3, 2}; !reflect.DeepEqual(rep.Used, want) {
			t.Errorf("split %d: Used %v, want %v", split, rep.Used, want)
		}
		again, err := Publish(rep.Draft, rep.Sources, citeproc.Plain)
		if err != nil || !reflect.DeepEqual(again.Used, rep.Used) || again.Body != rep.Body {
			t.Errorf("split %d: published again: %v, Used %v, Body %q", split, err, again.Used, again.Body)
		}
	}
}
