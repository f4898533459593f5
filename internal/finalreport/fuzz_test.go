package finalreport

import (
	"context"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/collapse"
)

// FuzzWrite checks the publication invariants for any writer output and a
// fixed set of merged sources: every marker left in Body resolves to a
// reference; references are numbered 1..K and first cited in that order;
// each is a distinct merged source; unknown numbers are not merged
// sources; and the report and the hook sequence do not depend on how the
// output was streamed.
func FuzzWrite(f *testing.F) {
	for _, s := range []string{
		fixtureText,
		"A [7]. B [3][7]. C [99]. D 【5】 ［2］ [2, 7] [2-4] [[S:1,3]] [^3] [[6]].\n",
		"[ref: https://example.org/two] [ref: https://EXAMPLE.org/two/] [ref: https://nowhere.example/x]",
		"```\n[1]\n```\n`[2]` [3](x) ![4](y) \\[5] [5]: https://example.org/five\n",
		"x [[99]1] y",
		"x [7][99](u) y",
		"x \\【7】 y",
		"x 【7】(y) z",
		"x!【7】 y",
		"【7】: https://example.org/z\n",
		"x [[7]](y) z",
		"A [7]. x [[99]1] y",
		"x [5[99]] y",
		"x [7]【99】(u)",
		"x [99][7] [7]] [[7] [",
		"é[3]é 【5",
		"",
	} {
		f.Add(s, []byte{0, 1, 2})
	}
	sources := fixtureSources()
	merged := map[int]bool{}
	for _, s := range sources {
		merged[s.Number] = true
	}
	in := Input{Question: "Q", Sources: sources}

	f.Fuzz(func(t *testing.T, text string, sizes []byte) {
		split := func(s string) []string {
			var out []string
			for k := 0; len(s) > 0; k++ {
				n := 1
				if len(sizes) > 0 {
					n = int(sizes[k%len(sizes)]) + 1
					if n > 9 && n < 200 {
						n = n%9 + 1
					}
				}
				n = min(n, len(s))
				out = append(out, s[:n])
				s = s[n:]
			}
			return out
		}
		for _, st := range []citeproc.Style{citeproc.Markdown, citeproc.HTML} {
			whole, wholeRec := fuzzWrite(t, &scripted{Text: text, Split: bytesOf(len(text))}, st, in)
			got, rec := fuzzWrite(t, &scripted{Text: text, Split: split}, st, in)
			if !reflect.DeepEqual(exported(got), exported(whole)) {
				t.Fatalf("chunking changed the report:\n got %+v\nwant %+v", got, whole)
			}
			if !reflect.DeepEqual(rec.merged(), wholeRec.merged()) {
				t.Fatalf("chunking changed the hook sequence:\n got %+v\nwant %+v", rec.merged(), wholeRec.merged())
			}
			if rec.text() != got.Text {
				t.Fatalf("Delta texts joined %q, Text %q", rec.text(), got.Text)
			}
		}

		rep, _ := fuzzWrite(t, &scripted{Text: text, Split: split}, citeproc.Plain, in)
		checkPublished(t, text, rep, sources)

		// Two passes (renumber, then style) show what one pass would.
		md, _ := fuzzWrite(t, &scripted{Text: text, Split: split}, citeproc.Markdown, in)
		if want := onePass(t, text, sources); md.Text != want {
			t.Errorf("Text differs from one-pass rendering\ntext: %q\n got %q\nwant %q", text, md.Text, want)
		}
	})
}

func fuzzWrite(t *testing.T, m *scripted, style citeproc.Style, in Input) (*Report, *recorder) {
	t.Helper()
	rec := &recorder{}
	rep, err := Write(context.Background(), Config{Model: m, Style: style, Hooks: rec.hooks()}, in)
	if err != nil {
		t.Fatalf("Write: %v", err)
	}
	return rep, rec
}

// onePass renders text in Markdown style through a single citation
// processor that resolves the global numbers and numbers them 1..K.
func onePass(t *testing.T, text string, sources []collapse.Source) string {
	t.Helper()
	global, err := collapse.Mapping(sources)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	p := citeproc.New(&b, citeproc.Config{Mode: citeproc.Link, Style: citeproc.Markdown, Mapping: global, Numberer: citeproc.FirstCited()})
	p.WriteString(text)
	p.Close()
	return b.String()
}

// checkPublished checks the invariants of a report written from text with
// the given merged sources.
func checkPublished(t *testing.T, text string, rep *Report, sources []collapse.Source) {
	t.Helper()
	merged := map[int]bool{}
	for _, s := range sources {
		merged[s.Number] = true
	}
	refs := citeproc.NewMapping(nil)
	var seen []citeproc.Source
	for i, ref := range rep.References {
		if ref.Number != i+1 {
			t.Errorf("reference %d numbered %d", i+1, ref.Number)
		}
		if slices.Contains(seen, ref.Source) {
			t.Errorf("source %+v listed twice", ref.Source)
		}
		seen = append(seen, ref.Source)
		if !slices.ContainsFunc(sources, func(s collapse.Source) bool {
			return s.Source == ref.Source && s.CanonicalURL == ref.CanonicalURL
		}) {
			t.Errorf("reference %+v is not a merged source", ref)
		}
		refs.Add(ref.Number, ref.Source)
	}
	p := citeproc.New(io.Discard, citeproc.Config{Mode: citeproc.Keep, Mapping: refs})
	p.WriteString(rep.Body)
	p.Close()
	if u := p.Unknowns(); len(u) > 0 {
		t.Errorf("Body has markers %+v that resolve to no reference\ntext: %q\nbody: %q", u, text, rep.Body)
	}
	var order []int
	for _, c := range p.Cited() {
		order = append(order, c.Number)
	}
	if want := oneToK(len(rep.References)); !slices.Equal(order, want) && !(len(order) == 0 && len(want) == 0) {
		t.Errorf("Body first cites %v, want %v\ntext: %q\nbody: %q", order, want, text, rep.Body)
	}
	for _, u := range rep.Unknown {
		if u.URL == "" && merged[u.Number] {
			t.Errorf("Unknown lists %d, a merged source", u.Number)
		}
	}
	if _, err := HTML("Q", rep); err != nil {
		t.Errorf("HTML: %v", err)
	}
	if _, err := JSON("Q", rep, Extra{}); err != nil {
		t.Errorf("JSON: %v", err)
	}
}
