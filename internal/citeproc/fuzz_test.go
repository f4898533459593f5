package citeproc_test

import (
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
