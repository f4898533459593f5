package citeproc_test

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/citeproc/citegen"
)

// FuzzChunking checks the processor's invariants on any input: the output
// does not depend on the chunking, Keep mode returns its input byte for
// byte, valid UTF-8 in means every write out is valid UTF-8, and (for the
// generated part of the input: lists, block quotes, nested fences, every
// dialect and the near misses) no code region changes in any mode.
func FuzzChunking(f *testing.F) {
	for _, tc := range cases {
		f.Add(tc.in, []byte{1, 2, 3, 5, 7}, []byte(nil))
	}
	f.Add("```\n[1]\n``` [2] `[3]` 【4】 [ref: https://example.net/d]", []byte{0, 1, 0, 2}, []byte(nil))
	for _, g := range genSeeds {
		f.Add("", []byte{2, 0, 5}, g)
	}
	f.Fuzz(func(t *testing.T, in string, sizes []byte, gen []byte) {
		doc := citegen.Generate(gen)
		if doc.Text != "" {
			in = doc.Text + "\n\n" + in
		}
		split := func(s string) []string {
			var out []string
			for k := 0; len(s) > 0; k++ {
				n := 1
				if len(sizes) > 0 {
					n = int(sizes[k%len(sizes)]) + 1
					if n > 9 && n < 200 {
						n = n%9 + 1 // mostly small chunks, now and then a large one
					}
				}
				n = min(n, len(s))
				out = append(out, s[:n])
				s = s[n:]
			}
			return out
		}
		for _, m := range modes {
			want, text := run(t, in, m, splitters[0].split)
			got, _ := run(t, in, m, split)
			if got != want {
				t.Fatalf("%s: chunking changed the output\nbulk:\n%s\nchunked:\n%s", m.name, want, got)
			}
			if m.name == "keep" && text != in {
				t.Fatalf("keep mode changed the text:\n got %q\nwant %q", text, in)
			}
			checkCode(t, m.name, doc, text)
		}
		if utf8.ValidString(in) {
			w := &utf8Checker{t: t}
			p := citeproc.New(w, citeproc.Config{Mode: citeproc.Link, Mapping: testMapping(t)})
			for _, c := range split(in) {
				p.WriteString(c)
			}
			p.Close()
		}
	})
}

type utf8Checker struct {
	t  *testing.T
	sb strings.Builder
}

func (w *utf8Checker) Write(p []byte) (int, error) {
	if !utf8.Valid(p) {
		w.t.Fatalf("write of invalid UTF-8 %q after %q", p, w.sb.String())
	}
	w.sb.Write(p)
	return len(p), nil
}

// FuzzRoundTrip: what Renumber and Link (plain) write, read again with the
// new numbers (in Renumber mode, which like the writer counts definition
// labels), cites the same sources in the same order and nothing else. The final report relies on its output meaning what it
// says.
//
// On a generated document it checks more: every marker left in the output
// resolves to the very source its input marker meant, in order, and no
// code region changes.
func FuzzRoundTrip(f *testing.F) {
	for _, tc := range cases {
		f.Add(tc.in, []byte(nil))
	}
	f.Add("x [[99]1] y 【7】(z) [1][9]: w\n[ref: https://example.com/a]: v", []byte(nil))
	f.Add("[12][13] [12, 13] [13, p. 7] [12, p. 9] [1, row 2][2]", []byte(nil))
	for _, g := range genSeeds {
		f.Add("", g)
	}
	f.Fuzz(func(t *testing.T, in string, gen []byte) {
		if len(gen) > 0 {
			checkGenerated(t, citegen.Generate(gen))
		}
		for _, cfg := range []citeproc.Config{
			{Mode: citeproc.Renumber, Numberer: citeproc.FirstCitedNumbers()},
			{Mode: citeproc.Link, Style: citeproc.Plain, Numberer: citeproc.FirstCitedNumbers()},
			// One reference per document (12 and 13 are two pages of one
			// PDF): pinpoints carry each citation's page through.
			{Mode: citeproc.Link, Style: citeproc.Plain, Numberer: citeproc.FirstCited()},
		} {
			cfg.Mapping = testMapping(t)
			var out strings.Builder
			p := citeproc.New(&out, cfg)
			p.WriteString(in)
			p.Close()
			renumbered := citeproc.NewMapping(nil)
			for _, c := range p.Cited() {
				renumbered.Add(c.Display, c.Source)
			}
			// Link mode leaves definitions alone; Renumber relabels them.
			reread := citeproc.Keep
			if cfg.Mode == citeproc.Renumber {
				reread = citeproc.Renumber
			}
			q := citeproc.New(io.Discard, citeproc.Config{Mode: reread, Mapping: renumbered})
			q.WriteString(out.String())
			q.Close()
			if u := q.Unknowns(); len(u) > 0 {
				t.Fatalf("mode %d: output cites %v, which it never resolved\nin:  %q\nout: %q", cfg.Mode, u, in, out.String())
			}
			var want, got []string
			for _, c := range p.Cited() {
				want = append(want, fmt.Sprint(c.Display, c.Source.Location))
			}
			for _, c := range q.Cited() {
				got = append(got, fmt.Sprint(c.Number, c.Source.Location))
			}
			if !slices.Equal(got, want) {
				t.Fatalf("mode %d: output cites %v, want %v\nin:  %q\nout: %q", cfg.Mode, got, want, in, out.String())
			}
		}
	})
}

// genSeeds drive citegen to each kind of block and marker.
var genSeeds = [][]byte{
	[]byte("\x00\x05\x00\x01\x02\x0b\x0c\x0d\x0e\x0f\x10\x11"),
	[]byte("\x05\x00\x00\x01\x02\x03\x04\x05\x01\x00\x05\x01\x03"),
	[]byte("\x06\x01\x01\x02\x03\x02\x00\x09\x00\x00\x0a\x03\x01\x02\x04"),
	[]byte("\x09\x02\x00\x00\x0a\x05\x02\x01\x03\x00\x01\x07\x00\x08"),
	[]byte("\x03\x04\x01\x00\x1a\x00\x00\x1b\x00\x00\x1c\x00\x00\x1d\x00\x00\x1e\x01"),
	[]byte("\x01\x05\x00\x00\x14\x01\x00\x00\x15\x02\x00\x00\x16\x03\x00\x00\x17\x01\x02"),
	[]byte("\x07\x04\x08\x00\x04\x03\x02\x03\x02\x04\x01\x00"),
}

// checkCode requires each code region of doc in out, in order.
func checkCode(t *testing.T, mode string, doc citegen.Doc, out string) {
	t.Helper()
	rest := out
	for _, c := range doc.Code {
		i := strings.Index(rest, c)
		if i < 0 {
			t.Fatalf("%s: code region %q changed or went missing\nin:  %q\nout: %q", mode, c, doc.Text, out)
		}
		rest = rest[i+len(c):]
	}
}

// checkGenerated: in Renumber and Link modes every marker left in the
// output resolves, read again, to the source its input marker meant, in
// order; near misses and unknown numbers are reported and gone; no code
// region changes.
func checkGenerated(t *testing.T, doc citegen.Doc) {
	t.Helper()
	mp := testMapping(t)
	var want []string
	for _, nums := range doc.Cites {
		for _, n := range nums {
			src, ok := mp.Lookup(n)
			if !ok {
				t.Fatalf("generator cites %d, which the mapping lacks", n)
			}
			want = append(want, src.ID)
		}
	}
	for _, cfg := range []citeproc.Config{
		{Mode: citeproc.Renumber, Numberer: citeproc.FirstCitedNumbers()},
		{Mode: citeproc.Link, Style: citeproc.Plain, Numberer: citeproc.FirstCitedNumbers()},
		{Mode: citeproc.Link, Style: citeproc.Footnote, Numberer: citeproc.FirstCitedNumbers()},
	} {
		cfg.Mapping = testMapping(t)
		var out strings.Builder
		p := citeproc.New(&out, cfg)
		p.WriteString(doc.Text)
		p.Close()
		checkCode(t, fmt.Sprintf("mode %d style %s", cfg.Mode, cfg.Style), doc, out.String())
		if (len(p.Unknowns()) > 0) != (doc.Neutral > 0) {
			t.Fatalf("mode %d: %d near misses and unknown numbers in, unknowns reported %v\nin: %q", cfg.Mode, doc.Neutral, p.Unknowns(), doc.Text)
		}
		renumbered := citeproc.NewMapping(nil)
		for _, c := range p.Cited() {
			renumbered.Add(c.Display, c.Source)
		}
		var got []string
		q := citeproc.New(io.Discard, citeproc.Config{Mode: citeproc.Renumber, Mapping: renumbered,
			Numberer: citeproc.NumbererFunc(func(n int, src citeproc.Source) int {
				got = append(got, src.ID)
				return n
			})})
		q.WriteString(out.String())
		q.Close()
		if u := q.Unknowns(); len(u) > 0 {
			t.Fatalf("mode %d style %s: output holds %v, which resolve to nothing\nin:  %q\nout: %q", cfg.Mode, cfg.Style, u, doc.Text, out.String())
		}
		if !slices.Equal(got, want) {
			t.Fatalf("mode %d style %s: output cites\n%v\nwant\n%v\nin:  %q\nout: %q", cfg.Mode, cfg.Style, got, want, doc.Text, out.String())
		}
	}
}
