// Package citegen generates LLM-style markdown documents for fuzzing the
// citation core, together with what a correct processor must find in them:
// the sources each citation marker in prose means, and the code regions
// that must come out byte for byte. It is for tests only.
//
// A document is a sequence of blocks separated by blank lines: paragraphs,
// list items (bulleted, ordered, nested), block quotes, fenced code at the
// top level and inside list items and block quotes (with nested fence runs
// and over-indented would-be closers inside), indented code, HTML comments;
// prose carries markers in every dialect the processor understands, near
// misses it must neutralise, unknown numbers, markers right after a '!'
// ("grew![1][2]", which no definition makes an image), negative numbers in
// brackets (prose, never a citation), inline code, links and autolinks. The generator only writes constructs whose CommonMark reading
// it is sure of.
package citegen

import (
	"fmt"
	"strings"
)

// Doc is a generated document.
type Doc struct {
	Text string
	// Cites holds, for each citation marker in prose, in order, the numbers
	// it cites (ranges expanded, no number twice).
	Cites [][]int
	// Adjacent says, for each entry of Cites, whether its marker directly
	// follows the previous one ("[1][2]"): a processor shows it once if it
	// cites nothing new.
	Adjacent []bool
	// Code holds the regions that must come out byte for byte, in order of
	// appearance: code, and brackets that are prose and never a citation
	// ("[-3]").
	Code []string
	// Neutral counts the near misses and markers of unknown numbers: each
	// is reported, and in the modes that change numbers never passed
	// through.
	Neutral int
}

// Known are the numbers a generated document cites; its mapping must bind
// them. Unknown is a number it cites that no mapping binds.
var (
	Known   = []int{1, 2, 3, 4}
	Unknown = 9
)

type gen struct {
	data []byte
	i    int
	b    strings.Builder
	doc  Doc
}

// pick returns a choice in [0, n), from the data; false when it runs out.
func (g *gen) pick(n int) (int, bool) {
	if g.i >= len(g.data) {
		return 0, false
	}
	c := int(g.data[g.i]) % n
	g.i++
	return c, true
}

func (g *gen) num() int {
	c, _ := g.pick(len(Known))
	return Known[c]
}

// two returns two distinct known numbers, the first smaller.
func (g *gen) two() (int, int) {
	a := g.num()
	b := g.num()
	if a == b {
		b = Known[(indexOf(a)+1)%len(Known)]
	}
	return min(a, b), max(a, b)
}

func indexOf(n int) int {
	for i, k := range Known {
		if k == n {
			return i
		}
	}
	return 0
}

var words = []string{"cable", "signal", "ocean", "repeater", "fibre", "latency", "route", "ship"}

// Generate builds a document from data, deterministically: the same data
// always gives the same document.
func Generate(data []byte) Doc {
	g := &gen{data: data}
	afterList := false
	for blocks := 0; blocks < 24; blocks++ {
		k, ok := g.pick(11)
		if !ok {
			break
		}
		if blocks > 0 {
			g.b.WriteString("\n\n")
		}
		if afterList && k == 7 {
			k = 0 // indented code right after a list item would continue it
		}
		afterList = false
		switch k {
		case 0:
			g.prose("")
			if c, _ := g.pick(2); c == 1 {
				g.b.WriteString("\n")
				g.prose("")
			}
		case 1:
			g.b.WriteString("- ")
			g.prose("")
			if c, _ := g.pick(2); c == 1 {
				g.b.WriteString("\n  ")
				g.prose("")
			}
			afterList = true
		case 2:
			g.b.WriteString("1. ")
			g.prose("")
			afterList = true
		case 3:
			g.b.WriteString("> ")
			g.prose("")
			if c, _ := g.pick(2); c == 1 {
				g.b.WriteString("\n> ")
				g.prose("")
			}
		case 4:
			g.fence("", "")
		case 5:
			if c, _ := g.pick(2); c == 0 {
				g.fence("- ", "  ")
			} else {
				g.fence("1. ", "   ")
			}
			afterList = true
		case 6:
			g.fence("> ", "> ")
		case 7:
			code := fmt.Sprintf("    x = a[%d] + b[%d]\n    [%d]", g.num(), g.num(), g.num())
			g.code(code)
		case 8:
			g.code(fmt.Sprintf("<!-- see [%d]\n[%d] -->", g.num(), g.num()))
		case 9:
			// A nested list item holding a fence.
			g.b.WriteString("- ")
			g.prose("")
			g.b.WriteString("\n\n")
			g.fence("  - ", "    ")
			afterList = true
		case 10:
			g.b.WriteString("> - ")
			g.prose("")
			g.b.WriteString("\n")
			g.fence("> - ", ">   ")
		}
	}
	g.doc.Text = g.b.String()
	return g.doc
}

// code writes a code region and records it.
func (g *gen) code(s string) {
	g.b.WriteString(s)
	g.doc.Code = append(g.doc.Code, s)
}

// fence writes a fenced code block: first is the container prefix of its
// opening line, cont that of the lines inside and of the closing line.
func (g *gen) fence(first, cont string) {
	c, _ := g.pick(4)
	fence := []string{"```", "~~~", "````", "~~~~"}[c]
	info := ""
	if c, _ := g.pick(3); c == 1 {
		info = "go"
	}
	var b strings.Builder
	b.WriteString(first + fence + info + "\n")
	n, _ := g.pick(4)
	for k := 0; k <= n; k++ {
		var line string
		switch c, _ := g.pick(6); c {
		case 0:
			line = fmt.Sprintf("x := arr[%d] // [%d]", g.num(), g.num())
		case 1:
			line = fmt.Sprintf("[%d] 【%d】 [[%d]]", g.num(), g.num(), g.num())
		case 2:
			line = "    " + fence + " not a closer [1]" // four more columns: does not close
		case 3:
			if len(fence) == 4 {
				line = fence[:3] + " [2]" // shorter run inside a longer fence
			} else {
				line = "<!-- [3] -->"
			}
		case 4:
			line = strings.Repeat(string(fence[0]^('`'^'~')), 3) + " [4]" // the other fence character
		default:
			line = ""
		}
		if line == "" && strings.HasPrefix(cont, ">") {
			b.WriteString(strings.TrimRight(cont, " ") + "\n") // a quote's blank line keeps its '>'
			continue
		}
		b.WriteString(cont + line + "\n")
	}
	b.WriteString(cont + fence)
	g.code(b.String())
}

// prose writes one line of prose with citation markers.
func (g *gen) prose(string) {
	n, _ := g.pick(6)
	c, _ := g.pick(len(words))
	g.b.WriteString(strings.ToUpper(words[c][:1]) + words[c][1:])
	for k := 0; k <= n; k++ {
		c, ok := g.pick(len(words))
		if !ok {
			break
		}
		g.b.WriteString(" " + words[c])
		if m, _ := g.pick(3); m == 0 {
			// Mostly after a blank; now and then right after a '!'.
			if c, _ := g.pick(4); c == 0 {
				g.b.WriteString("!")
			} else {
				g.b.WriteString(" ")
			}
			g.marker()
		}
	}
	g.b.WriteString(".")
}

// marker writes a marker in one of the dialects, or a near miss, or an
// unknown number, or a bracket that is no citation, and records it.
func (g *gen) marker() {
	c, _ := g.pick(36)
	a, b := g.two()
	x := g.num()
	adjacent := false
	cite := func(s string, nums ...int) {
		g.b.WriteString(s)
		g.doc.Cites = append(g.doc.Cites, nums)
		g.doc.Adjacent = append(g.doc.Adjacent, adjacent)
		adjacent = true
	}
	span := func(lo, hi int) []int {
		var out []int
		for v := lo; v <= hi; v++ {
			out = append(out, v)
		}
		return out
	}
	switch c {
	case 0:
		cite(fmt.Sprintf("[%d]", x), x)
	case 1:
		cite(fmt.Sprintf("[%d, %d]", b, a), b, a)
	case 2:
		cite(fmt.Sprintf("[%d,%d]", a, b), a, b)
	case 3:
		cite(fmt.Sprintf("[%d]", a), a)
		cite(fmt.Sprintf("[%d]", b), b)
	case 4:
		cite(fmt.Sprintf("[[%d]]", x), x)
	case 5:
		cite(fmt.Sprintf("【%d】", x), x)
	case 6:
		cite(fmt.Sprintf("［%d］", x), x)
	case 7:
		cite(fmt.Sprintf("[%d-%d]", a, b), span(a, b)...)
	case 8:
		cite(fmt.Sprintf("[%d–%d]", a, b), span(a, b)...)
	case 9:
		cite(fmt.Sprintf("[[S:%d,%d]]", a, b), a, b)
	case 10:
		cite(fmt.Sprintf("[^%d]", x), x)
	case 11:
		cite(fmt.Sprintf("【%d†source】", x), x)
	case 12:
		cite(fmt.Sprintf("【%d:%d†source】", x, a), x)
	case 13:
		cite(fmt.Sprintf("[%d†]", x), x)
	case 14:
		cite(fmt.Sprintf("[%d,]", x), x)
	case 15:
		cite(fmt.Sprintf("[%d, %d,]", a, b), a, b)
	case 16:
		cite(fmt.Sprintf("[,%d]", x), x)
	case 17:
		cite(fmt.Sprintf("[%d & %d]", a, b), a, b)
	case 18:
		cite(fmt.Sprintf("[%d and %d]", a, b), a, b)
	case 19:
		cite(fmt.Sprintf("[S%d]", x), x)
	case 20:
		cite(fmt.Sprintf("[Source %d]", x), x)
	case 21:
		cite(fmt.Sprintf("[^%d, %d]", a, b), a, b)
	case 22:
		cite(fmt.Sprintf("[^%d,^%d]", a, b), a, b)
	case 23:
		cite(fmt.Sprintf("[%d‐%d]", a, b), span(a, b)...)
	case 24:
		cite(fmt.Sprintf("[[s:%d]]", x), x)
	case 25:
		cite(fmt.Sprintf("【【%d】】", x), x)
	case 26:
		g.b.WriteString(fmt.Sprintf("[%d-%d]", b, a)) // reversed range
		g.doc.Neutral++
	case 27:
		cite(fmt.Sprintf("[0%d]", x), x) // a leading zero means nothing
	case 28:
		g.b.WriteString(fmt.Sprintf("[%d-%d]", a, a+70)) // too wide
		g.doc.Neutral++
	case 29:
		g.b.WriteString(fmt.Sprintf("[%d]", Unknown))
		g.doc.Neutral++
	case 30:
		g.code(fmt.Sprintf("`a[%d]`", x)) // inline code
	case 31:
		g.b.WriteString(fmt.Sprintf("[see %d](https://example.com/%d)", x, x)) // a link, not a citation
	case 32:
		g.code(fmt.Sprintf("<https://example.com/[%d]>", x)) // an autolink
	case 33:
		g.code(fmt.Sprintf("[-%d]", x)) // a negative number: prose
	case 34:
		g.code(fmt.Sprintf("[%d, -%d]", a, b)) // likewise
	default:
		g.b.WriteString("[1.5]") // not a citation
	}
}
