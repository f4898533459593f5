package finalreport

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/deepresearch/deepresearch/internal/sourcetext"
)

// Mermaid renders doc's citation graph as a Mermaid flowchart: the
// question (node Q), the report's sections (S1, S2, …: its "#" headings,
// or "Report" for text before the first one) and its references (R1…RK,
// by number), with an edge from the question to each section and from a
// section to each reference its blocks cite (the citation sidecar), once
// per pair, in order. Labels are untrusted text: white space is folded,
// each is cut to labelMax runes, and every character but ASCII letters,
// digits, spaces and ".,-" is written as a Mermaid entity code ("#60;"),
// so no label can end its quotes, open a link, carry markup or start a
// directive.
func Mermaid(doc *Document) string {
	var b strings.Builder
	b.WriteString("flowchart LR\n")
	fmt.Fprintf(&b, "  Q[\"%s\"]\n", mermaidLabel(doc.Question))
	claims := map[string][]int{}
	for _, c := range doc.Citations {
		claims[c.Path] = c.SIDs
	}
	type section struct {
		title string
		cites []int
	}
	var secs []section
	for i, blk := range doc.Blocks {
		if h := strings.TrimLeft(blk, "#"); len(h) < len(blk) && (h == "" || h[0] == ' ') {
			secs = append(secs, section{title: strings.TrimSpace(h)})
		} else if len(secs) == 0 {
			secs = append(secs, section{title: "Report"})
		}
		s := &secs[len(secs)-1]
		for _, n := range claims[fmt.Sprintf("/blocks/%d", i)] {
			if !slices.Contains(s.cites, n) {
				s.cites = append(s.cites, n)
			}
		}
	}
	for i, s := range secs {
		fmt.Fprintf(&b, "  S%d[\"%s\"]\n", i+1, mermaidLabel(s.title))
	}
	for _, ref := range doc.References {
		fmt.Fprintf(&b, "  R%d[\"%d. %s\"]\n", ref.Number, ref.Number, mermaidLabel(ref.Label()))
	}
	for i := range secs {
		fmt.Fprintf(&b, "  Q --> S%d\n", i+1)
	}
	for i, s := range secs {
		for _, n := range s.cites {
			fmt.Fprintf(&b, "  S%d --> R%d\n", i+1, n)
		}
	}
	return b.String()
}

// labelMax bounds a Mermaid label, in runes.
const labelMax = 80

// mermaidLabel is s as the text of a quoted Mermaid label (see Mermaid).
func mermaidLabel(s string) string {
	s = sourcetext.Clean(s)
	if utf8.RuneCountInString(s) > labelMax {
		s = string([]rune(s)[:labelMax-1]) + "…"
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == ' ', r == '.', r == ',', r == '-':
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, "#%d;", r)
		}
	}
	return b.String()
}
