package citeproc_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/citeproc"
)

func rvProc(t testing.TB, mode citeproc.Mode, style citeproc.Style, in string, chunk int) (string, []string) {
	m := testMapping(t)
	var facts []string
	var sb strings.Builder
	p := citeproc.New(&sb, citeproc.Config{Mode: mode, Style: style, Mapping: m, Hooks: citeproc.Hooks{
		Citation: func(c citeproc.Citation) { facts = append(facts, fmt.Sprintf("cite %d->%d", c.Number, c.Display)) },
		Unknown:  func(u citeproc.Unknown) { facts = append(facts, fmt.Sprintf("unk %d %s", u.Number, u.URL)) },
	}})
	if chunk <= 0 {
		p.WriteString(in)
	} else {
		for s := in; len(s) > 0; {
			k := min(chunk, len(s))
			p.WriteString(s[:k])
			s = s[k:]
		}
	}
	p.Close()
	return sb.String(), facts
}

func TestReviewExplore(t *testing.T) {
	ins := []string{
		"as shown [1], [2], [3].",
		"(see [1])",
		"([1], [2])",
		"**claim [1]**.",
		"“quote [1]”.",
		"He said \"x [1]\".",
		"It works![1] next",
		"```\r\nx[1]\r\n```\r\nSee [1].\r\n",
		"```x``` [1] then\nmore [2]",
		"> ```\n> a[1]\n> ```\n",
		"【1】(2019) x",
		"[ref: https://example.com/a]: note",
		"[[1]]: note",
		"_claim [1]_ ok",
	}
	for _, in := range ins {
		for _, md := range []citeproc.Mode{citeproc.Link, citeproc.Remove, citeproc.Renumber} {
			out, f := rvProc(t, md, citeproc.Plain, in, 0)
			t.Logf("mode %d in %q\n  out %q %v", md, in, out, f)
		}
	}
}
