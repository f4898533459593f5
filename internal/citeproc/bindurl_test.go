package citeproc_test

import (
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/internal/citeproc"
)

// TestBindURL: a source bound by URL only is reached by [ref: URL]
// markers naming the same resource, never by a number; Add's bindings
// win over it.
func TestBindURL(t *testing.T) {
	mp := citeproc.NewMapping(canon.Key)
	if err := mp.Add(1, citeproc.Source{ID: "a", URL: "https://a.example/"}); err != nil {
		t.Fatal(err)
	}
	if err := mp.BindURL(-1, citeproc.Source{ID: "r", URL: "https://r.example/x"}); err != nil {
		t.Fatal(err)
	}
	if err := mp.BindURL(-2, citeproc.Source{ID: "a2", URL: "http://www.a.example"}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		n   int
		src citeproc.Source
	}{{0, citeproc.Source{URL: "https://z.example/"}}, {3, citeproc.Source{URL: "https://z.example/"}}, {-3, citeproc.Source{ID: "no url"}}, {-1, citeproc.Source{URL: "https://y.example/"}}} {
		if err := mp.BindURL(bad.n, bad.src); err == nil {
			t.Errorf("BindURL(%d, %+v) took it", bad.n, bad.src)
		}
	}
	if mp.Len() != 1 {
		t.Errorf("Len = %d, want 1: BindURL binds no number", mp.Len())
	}
	var b strings.Builder
	var unknown []citeproc.Unknown
	p := citeproc.New(&b, citeproc.Config{Mode: citeproc.Renumber, Mapping: mp,
		Numberer: citeproc.NumbererFunc(func(n int, s citeproc.Source) int {
			if n < 0 {
				return 10 - n
			}
			return n
		}),
		Hooks: citeproc.Hooks{Unknown: func(u citeproc.Unknown) { unknown = append(unknown, u) }}})
	p.WriteString("r [ref: https://r.example/x#top] a [ref: https://a.example] n [1] none [2]")
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := b.String(), "r [11] a [1] n [1] none"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if len(unknown) != 1 || unknown[0].Number != 2 {
		t.Errorf("unknown = %+v, want only 2", unknown)
	}
}
