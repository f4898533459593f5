package citeproc_test

import (
	"io"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/deepresearch/deepresearch/internal/citeproc"
)

// FuzzChunking checks the processor's invariants on any input: the output
// does not depend on the chunking, Keep mode returns its input byte for
// byte, and valid UTF-8 in means every write out is valid UTF-8.
func FuzzChunking(f *testing.F) {
	for _, tc := range cases {
		f.Add(tc.in, []byte{1, 2, 3, 5, 7})
	}
	f.Add("```\n[1]\n``` [2] `[3]` 【4】 [ref: https://example.net/d]", []byte{0, 1, 0, 2})
	f.Fuzz(func(t *testing.T, in string, sizes []byte) {
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
func FuzzRoundTrip(f *testing.F) {
	for _, tc := range cases {
		f.Add(tc.in)
	}
	f.Add("x [[99]1] y 【7】(z) [1][9]: w\n[ref: https://example.com/a]: v")
	f.Fuzz(func(t *testing.T, in string) {
		for _, cfg := range []citeproc.Config{
			{Mode: citeproc.Renumber, Numberer: citeproc.FirstCitedNumbers()},
			{Mode: citeproc.Link, Style: citeproc.Plain, Numberer: citeproc.FirstCitedNumbers()},
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
			var want, got []int
			for _, c := range p.Cited() {
				want = append(want, c.Display)
			}
			for _, c := range q.Cited() {
				got = append(got, c.Number)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("mode %d: output cites %v, want %v\nin:  %q\nout: %q", cfg.Mode, got, want, in, out.String())
			}
		}
	})
}
