package citeproc_test

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/citeproc/citegen"
	"github.com/yuin/goldmark"
)

// TestGeneratorAgreesWithCommonMark checks citegen's premise: a CommonMark
// renderer (goldmark) finds exactly the code blocks the generator says it
// wrote (indented blocks separated only by blank lines make one), so the
// fuzz tests' "nothing inside code changes" is judged against CommonMark.
func TestGeneratorAgreesWithCommonMark(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	bad := 0
	for k := 0; k < 500 && bad < 3; k++ {
		g := make([]byte, 30+r.IntN(300))
		for i := range g {
			g[i] = byte(r.IntN(256))
		}
		doc := citegen.Generate(g)
		want := 0
		pos, prevEnd, prevInd := 0, -1, false
		for _, c := range doc.Code {
			i := pos + strings.Index(doc.Text[pos:], c)
			ind := strings.HasPrefix(c, "    ")
			if strings.Contains(c, "\n") && !strings.HasPrefix(c, "<!--") || ind {
				if !(ind && prevInd && strings.TrimSpace(doc.Text[prevEnd:i]) == "") {
					want++
				}
			}
			prevInd, prevEnd = ind, i+len(c)
			pos = i + len(c)
		}
		var h bytes.Buffer
		goldmark.Convert([]byte(doc.Text), &h)
		if got := strings.Count(h.String(), "<pre><code"); got != want {
			bad++
			t.Errorf("goldmark sees %d code blocks, generator %d:\n%s\n----\n%s", got, want, doc.Text, h.String())
		}
	}
}
