// Package excerpt finds the parts of a document that bear on a question:
// it splits extracted text into units — a paragraph, a list item, a code
// block, a table, each under its heading — scores each unit by the
// question's key terms it holds (weighted by how rare each term is among
// the document's units), and cuts a long document down to its head and
// its best units, in document order, with the context that holds a fact
// (the sentence that introduces a command, the command that follows it).
//
// It is pure: no I/O, no goroutines; the cost is linear in the text.
package excerpt

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/deepresearch/deepresearch/internal/terms"
)

// Kind is what a unit is.
type Kind int

// The kinds of unit.
const (
	Prose Kind = iota // a paragraph
	Item              // a list item
	Code              // a fenced, indented or command block
	Table             // consecutive table lines
)

// Unit is a part of a document: one paragraph, list item, code block or
// table, with the heading it stands under.
type Unit struct {
	Kind Kind
	// Text is the unit as the document has it (code keeps its lines and
	// fences; prose its line breaks).
	Text string
	// Heading is the nearest heading above the unit; "" before the
	// first.
	Heading string
	// Start and End are the unit's byte offsets in the text.
	Start, End int
	// directive is the reStructuredText code directive (".. code-block::
	// c") between the unit and the code block after it under its heading,
	// which Units leaves out: the unit leads into the block.
	directive string
}

// Directive returns the reStructuredText code directive that stands
// between u and the code block after it, which Units leaves out of the
// units (u then leads into the block); "" when there is none. A text
// rebuilt from units writes it back after u, so that u stays the block's
// lead when the text is split again.
func (u Unit) Directive() string { return u.directive }

// Lead reports whether u introduces what follows it: prose or an item
// that ends with a colon ("To trigger a scan:", "Example:") or that a
// reStructuredText code directive follows, or prose
// that ends with a comma ("As an example,": a Go doc comment's code
// follows so).
func (u Unit) Lead() bool {
	t := strings.TrimSpace(u.Text)
	return u.Kind != Code && u.Kind != Table && (strings.HasSuffix(t, ":") || u.directive != "") || u.Kind == Prose && strings.HasSuffix(t, ",")
}

// rstMarkup reports whether a paragraph is reStructuredText markup with
// no text of its own: a directive with at most one argument and its
// options (".. code-block:: c", ".. kernel-doc:: security/landlock/
// syscalls.c" over ":identifiers: …") but one whose argument is text
// (".. versionadded:: 3.2", ".. warning:: Deprecated"), or a target label
// (".. _label:").
// It is no passage to quote, and it stands between a paragraph and the
// code block the paragraph introduces.
func rstMarkup(text string) bool {
	lines := strings.Split(text, "\n")
	first := strings.TrimSpace(lines[0])
	if rstLabelRe.MatchString(first) {
		return len(lines) == 1
	}
	m := rstDirectiveRe.FindStringSubmatch(first)
	if m == nil || rstTextDirectives[strings.ToLower(m[1])] {
		return false
	}
	for _, l := range lines[1:] {
		if !rstOptionRe.MatchString(strings.TrimSpace(l)) {
			return false
		}
	}
	return true
}

var (
	rstDirectiveRe = regexp.MustCompile(`^\.\. ([A-Za-z][\w-]*)::[ \t]*\S*[ \t]*$`)
	rstOptionRe    = regexp.MustCompile(`^:[\w-]+:`)
	rstLabelRe     = regexp.MustCompile(`^\.\. _[^:]*:$`)
	// rstTextDirectives are directives whose argument is text of the
	// document: a version, an admonition's first words.
	rstTextDirectives = map[string]bool{"versionadded": true, "versionchanged": true, "deprecated": true,
		"note": true, "warning": true, "important": true, "tip": true, "caution": true, "danger": true,
		"attention": true, "hint": true, "error": true, "seealso": true, "admonition": true}
	// rstCodeRe matches the directives that introduce a code block.
	rstCodeRe = regexp.MustCompile(`^\.\. (?:code-block|code|sourcecode)::`)
)

// maxUnit caps a unit's length in bytes: a longer paragraph or block is
// split at line ends.
const maxUnit = 1600

// Units splits text into units, in order. Blank lines end a unit; a
// heading line (Markdown "#", a line underlined with = - ~ ^ or *, a
// manual page's upper-case section name) starts a new heading and is no
// unit itself; a fence (``` or ~~~) makes one code unit of everything up
// to its close; a list item starts a unit of its own; table lines ("|")
// make a table unit; an indented block after a unit that leads into it,
// or one that reads like code, is a code unit. reStructuredText markup is
// no unit (rstMarkup); a code directive makes the unit before it lead
// into the block (Directive).
func Units(text string) []Unit {
	var out []Unit
	heading := ""
	lines := splitLines(text)
	var cur *Unit // &building while a unit is being built, else nil
	var building Unit
	inTable := false // between a simple table's first border and its last
	tableIndent := 0 // its border's indentation: where its first column starts
	flush := func() {
		if cur != nil {
			cur.Text = strings.TrimRight(text[cur.Start:cur.End], "\n ")
			if cur.Kind == Prose && codeBlock(cur.Text) {
				cur.Kind = Code // code whose fences the index did not keep
			}
			if k := len(out) - 1; k >= 0 && cur.Kind == Code && out[k].Kind == Code && out[k].Heading == cur.Heading && strings.TrimSpace(text[out[k].End:cur.Start]) == "" &&
				fenceOf(cur.Text) == "" && fenceOf(out[k].Text) == "" {
				// Code blocks with only blank lines between are one block
				// (an example's package clause, imports and func, their
				// fences gone from a search's passage).
				merged := out[k]
				merged.End = cur.End
				merged.Text = strings.TrimRight(text[merged.Start:merged.End], "\n ")
				out = appendSplit(out[:k], merged)
			} else if cur.Kind == Prose && rstMarkup(cur.Text) {
				// Markup, not text; a code directive makes the paragraph
				// before it the code's lead, as "::" would.
				if k := len(out) - 1; k >= 0 && out[k].Kind != Code && out[k].Heading == cur.Heading && rstCodeRe.MatchString(cur.Text) {
					out[k].directive = strings.TrimSpace(cur.Text)
				}
			} else if strings.TrimSpace(cur.Text) != "" {
				out = appendSplit(out, *cur)
			}
			cur = nil
		}
	}
	start := func(k Kind, l line) {
		flush()
		building = Unit{Kind: k, Heading: heading, Start: l.start, End: l.end}
		cur = &building
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		t := strings.TrimSpace(l.text)
		switch {
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fence := t[:3]
			start(Code, l)
			for i+1 < len(lines) {
				i++
				cur.End = lines[i].end
				if strings.HasPrefix(strings.TrimSpace(lines[i].text), fence) {
					break
				}
			}
			flush()
		case t == "":
			if cur != nil && cur.Kind == Code && continuesCode(text, out, *cur, lines, i) {
				cur.End = l.end // an indented block goes on past a blank line
				break
			}
			flush()
			inTable = false
		case tableBorder(t):
			// A reStructuredText simple table: its borders are no text,
			// and each row is a unit of its own, as a list's item is.
			flush()
			inTable, tableIndent = true, indent(l.text)
		case inTable:
			// A line whose first column is empty continues the row above.
			if cur != nil && indent(l.text) > tableIndent {
				cur.End = l.end
				break
			}
			start(Item, l)
		case isHeading(lines, i):
			flush()
			heading = headingText(t)
			if i+1 < len(lines) && underline(lines[i+1].text) {
				i++
			}
		case strings.HasPrefix(t, "|"):
			if cur == nil || cur.Kind != Table {
				start(Table, l)
			}
			cur.End = l.end
		case bullet(t):
			start(Item, l)
		case cur == nil:
			k := Prose
			if indented(l.text) && (codeLine(t) || leadsInto(text, out, l.text)) {
				k = Code
			}
			start(k, l)
		default:
			cur.End = l.end
		}
	}
	flush()
	// A directive leads only into the code block right after its unit.
	for k := range out {
		if out[k].directive != "" && (k+1 == len(out) || out[k+1].Kind != Code || out[k+1].Heading != out[k].Heading) {
			out[k].directive = ""
		}
	}
	return out
}

type line struct {
	text       string
	start, end int // end includes the newline
}

func splitLines(text string) []line {
	out := make([]line, 0, strings.Count(text, "\n")+1)
	for off := 0; off < len(text); {
		i := strings.IndexByte(text[off:], '\n')
		end := len(text)
		if i >= 0 {
			end = off + i + 1
		}
		out = append(out, line{text: strings.TrimRight(text[off:end], "\r\n"), start: off, end: end})
		off = end
	}
	return out
}

// leadsInto reports whether the last unit leads into a block whose first
// line is l: it ends with a colon and l is indented deeper than it.
func leadsInto(text string, units []Unit, l string) bool {
	if len(units) == 0 || !units[len(units)-1].Lead() && !(brokenOff(units[len(units)-1]) && declaration(strings.TrimSpace(l))) {
		return false
	}
	return indent(l) > indent(firstLine(text, units[len(units)-1]))
}

// continuesCode reports whether the indented code block cur goes on past
// the blank line i: the next line that is not blank is indented at least
// as deep as the block, and the block is nested, deeper than the unit
// before it (a Go doc comment's example, "package main", its imports and
// its func, each after a blank line). A block as shallow as the text
// around it (a manual page indents all its text) ends at a blank line.
func continuesCode(text string, units []Unit, cur Unit, lines []line, i int) bool {
	j := i + 1
	for j < len(lines) && strings.TrimSpace(lines[j].text) == "" {
		j++
	}
	if j == len(lines) || !indented(lines[j].text) {
		return false
	}
	first := firstLine(text, cur)
	if indent(lines[j].text) < indent(first) {
		return false
	}
	if len(units) == 0 {
		return indent(first) > 0
	}
	return indent(first) > indent(firstLine(text, units[len(units)-1]))
}

// firstLine returns the first line of u in text.
func firstLine(text string, u Unit) string {
	l, _, _ := strings.Cut(text[u.Start:u.End], "\n")
	return l
}

// brokenOff reports whether u is prose whose sentence goes on after the
// block below it: it ends in a word, no punctuation ("Functions of the
// form", then "func TestXxx(*testing.T)", then "are considered tests").
func brokenOff(u Unit) bool {
	if u.Kind != Prose {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(strings.TrimSpace(u.Text))
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

// declaration reports whether t, a line, declares or calls like code: a
// Go, C or Python declaration, or a call ("func TestXxx(*testing.T)",
// "int setrlimit(int resource);", "slog.Info(\"hello\")").
func declaration(t string) bool {
	for _, k := range []string{"func ", "type ", "var ", "const ", "def ", "class ", "struct ", "int ", "void "} {
		if strings.HasPrefix(t, k) {
			return true
		}
	}
	return callRe.MatchString(t)
}

// callRe matches a line that is one call: a dotted name, its arguments in
// parentheses, nothing after them but a semicolon.
var callRe = regexp.MustCompile(`^[A-Za-z_][\w.]*\(.*\);?$`)

// continues reports whether u is prose that goes on a sentence broken off
// above it: it starts with a lower-case word.
func continues(u Unit) bool {
	r, _ := utf8.DecodeRuneInString(strings.TrimSpace(u.Text))
	return u.Kind == Prose && unicode.IsLower(r)
}

// appendSplit appends u to out, cut when it is longer than maxUnit at
// line ends (at spaces when a line is longer still).
func appendSplit(out []Unit, u Unit) []Unit {
	if len(u.Text) <= maxUnit {
		return append(out, u)
	}
	first := len(out) // u's first piece
	rest, off := u.Text, u.Start
	for rest != "" {
		cut := len(rest)
		if cut > maxUnit {
			cut = strings.LastIndexByte(rest[:maxUnit], '\n')
			if cut < maxUnit/3 {
				cut = strings.LastIndexByte(rest[:maxUnit], ' ')
			}
			if cut <= 0 {
				cut = maxUnit
				for cut > 0 && !utf8.RuneStart(rest[cut]) {
					cut--
				}
				if cut == 0 {
					cut = maxUnit // no rune starts in it (not UTF-8): cut anywhere, but cut
				}
			}
		}
		if piece := strings.TrimRight(rest[:cut], " \n"); piece != "" {
			p := u
			p.Text, p.Start, p.End = piece, off, off+len(piece)
			out = append(out, p)
		}
		next := strings.TrimLeft(rest[cut:], " \n")
		off += len(rest) - len(next)
		rest = next
	}
	if fence := fenceOf(u.Text); u.Kind == Code && fence != "" && len(out)-first > 1 {
		// Each piece of a fenced block is fenced: a piece quoted alone
		// must not open a block that swallows the text after it. A last
		// piece that is the closing fence alone goes.
		if k := len(out) - 1; strings.TrimSpace(out[k].Text) == fence {
			out = out[:k]
		}
		for i := first; i < len(out); i++ {
			if i > first {
				out[i].Text = fence + "\n" + out[i].Text
			}
			if !strings.HasSuffix(out[i].Text, "\n"+fence) {
				out[i].Text += "\n" + fence // (a block the text left open is closed too)
			}
		}
	}
	return out
}

// fenceOf returns the fence a code unit opens with (``` or ~~~, as long as
// it is, without its info string); "" for an unfenced unit.
func fenceOf(text string) string {
	t := strings.TrimLeft(text, " ")
	for _, c := range []string{"`", "~"} {
		if strings.HasPrefix(t, c+c+c) {
			return t[:len(t)-len(strings.TrimLeft(t, c))]
		}
	}
	return ""
}

func isHeading(lines []line, i int) bool {
	t := strings.TrimSpace(lines[i].text)
	if indented(lines[i].text) {
		return false
	}
	if strings.HasPrefix(t, "#") {
		n := len(t) - len(strings.TrimLeft(t, "#"))
		return n <= 6 && (len(t) == n || t[n] == ' ')
	}
	if i+1 < len(lines) && underline(lines[i+1].text) && len(t) <= 120 && !underline(t) {
		return true
	}
	// A manual page's section: an upper-case line at the margin.
	return !indented(lines[i].text) && len(t) >= 3 && len(t) <= 40 && upper(t) && strings.IndexFunc(t, unicode.IsLetter) >= 0 &&
		strings.IndexFunc(t, func(r rune) bool { return !unicode.IsLetter(r) && r != ' ' && r != '-' && r != '_' }) < 0
}

// upper reports whether strings.ToUpper(t) == t, without the copy for an
// ASCII t.
func upper(t string) bool {
	for i := 0; i < len(t); i++ {
		if t[i] >= utf8.RuneSelf {
			return strings.ToUpper(t) == t
		}
		if 'a' <= t[i] && t[i] <= 'z' {
			return false
		}
	}
	return true
}

func underline(s string) bool {
	t := strings.TrimSpace(s)
	if len(t) < 3 {
		return false
	}
	c := t[0]
	return strings.IndexByte("=-~^*+#`:'\"_<>", c) >= 0 && strings.Trim(t, string(c)) == ""
}

// tableBorder reports whether t is a border of a reStructuredText simple
// table: two or more runs of "=" parted by spaces.
func tableBorder(t string) bool {
	if t == "" || t[0] != '=' {
		return false // t is trimmed: its first run starts it
	}
	runs := strings.Fields(t)
	if len(runs) < 2 {
		return false
	}
	for _, r := range runs {
		if len(r) < 2 || strings.Trim(r, "=") != "" {
			return false
		}
	}
	return true
}

// headingText is a Markdown heading line's text, without its marks and
// without a trailing attribute block ("## func Open {#Open}" → "func
// Open"): the anchor is the page's, not the heading's words.
func headingText(t string) string {
	h := strings.TrimSpace(strings.Trim(strings.TrimLeft(t, "#"), " "))
	if m := headingAttrRe.FindStringIndex(h); m != nil && m[0] > 0 {
		h = strings.TrimSpace(h[:m[0]])
	}
	return h
}

// headingAttrRe matches a heading's trailing attribute block: "{#id}",
// "{#id .class}".
var headingAttrRe = regexp.MustCompile(`\s*\{#[^{}\s]*(?:\s[^{}]*)?\}\s*$`)

func bullet(t string) bool {
	if len(t) >= 2 && strings.IndexByte("-*+•", t[0]) >= 0 && t[1] == ' ' {
		return true
	}
	if strings.HasPrefix(t, "•") {
		return true
	}
	i := 0
	for i < len(t) && i < 3 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	return i > 0 && i+1 < len(t) && (t[i] == '.' || t[i] == ')') && t[i+1] == ' '
}

func indented(s string) bool { return strings.HasPrefix(s, "    ") || strings.HasPrefix(s, "\t") }

func indent(s string) int { return len(s) - len(strings.TrimLeft(s, " \t")) }

// codeOps appear in code and commands and hardly ever in prose.
var codeOps = []string{"==", "!=", ":=", "=>", "&&", "||", "();", "){", ") {", "$ ", "# echo", "echo ", "/sys/", "/proc/"}

func codeLine(t string) bool {
	if strings.HasPrefix(t, "//") || strings.HasPrefix(t, "/*") || strings.HasPrefix(t, "$ ") || strings.HasPrefix(t, "% ") || strings.HasPrefix(t, ">>> ") || strings.Contains(t, " // ") {
		return true // a comment of code, a shell or Python prompt
	}
	if pyStatementRe.MatchString(t) || assignCallRe.MatchString(t) {
		return true
	}
	for _, op := range codeOps {
		if strings.Contains(t, op) {
			return true
		}
	}
	return strings.HasSuffix(t, ";") || strings.HasSuffix(t, "{") || strings.HasSuffix(t, "}")
}

// pyStatementRe matches a Python compound statement's header, lower case
// and ending in a colon ("with open(path) as f:", "for row
// in reader:"); a sentence starts with a capital. assignCallRe matches an
// assignment of a call ("dialect = csv.Sniffer().sniff(data)"), which
// prose does not write.
var (
	pyStatementRe = regexp.MustCompile(`^(with|for|if|elif|while|def|class|try|except)\b.*\S:$`)
	assignCallRe  = regexp.MustCompile(`^[a-z_][\w.]*(\[[^\]]*\])? = [\w.]+\(.*\)$`)
)

// codeStarts begin a line of Go, C, Python or shell more often than one
// of prose.
var codeStarts = []string{"package ", "import ", "import (", "func ", "def ", "#include", "return ", "}", ")", "$ ", ">>> ", "with ", "for ", "from "}

// codeBlock reports whether a paragraph is code: it starts like code and
// has a line that reads like code, or most of its lines do.
func codeBlock(text string) bool {
	code, lines := 0, 0
	var first, last string // lines, trimmed
	for rest, more := text, true; more; {
		var l string
		l, rest, more = strings.Cut(rest, "\n")
		t := strings.TrimSpace(l)
		if codeLine(t) {
			code++
		}
		if lines == 0 {
			first = t
		}
		last = t
		lines++
	}
	starts := false
	for _, c := range codeStarts {
		if strings.HasPrefix(first, c) {
			starts = true
			break
		}
	}
	single := lines == 1 && (strings.HasSuffix(first, "(") || strings.HasPrefix(first, "package ") || strings.HasPrefix(first, "import "))
	closed := last == ")" || last == "}"
	return starts && (code > 0 || single || closed) || lines >= 2 && 2*code >= lines
}

// Scorer scores units by the key terms they hold: each term's weight times
// its rarity among the units scored together (idf), over the total of
// the terms; a term in a unit's heading counts half.
//
// It asks of a unit only which of its weighted stems the unit holds, and
// keeps no set of the unit's stems: scoring every unit of a long
// document allocates next to nothing. A Scorer is read only once made;
// Score may be called from several goroutines at once.
type Scorer struct {
	stems  []string           // the weighted stems, sorted: sums run in one order, so scores are the same on every run
	weight map[string]float64 // stem → weight
	idf    map[string]float64
	total  float64
	value  []float64         // weight × idf of stems[i]
	index  map[string]int    // a stem of stems (no compound) → its place
	pairs  map[[2]string]int // a compound of stems ("happen+before"), by its two stems → its place
}

// NewScorer returns a Scorer of the weighted stems (terms.StemSet of the
// question's key words, with weights), whose rarities are counted over
// units.
func NewScorer(weight map[string]float64, units []Unit) *Scorer {
	s, _ := newScorer(weight, units, false)
	return s
}

// newScorer is NewScorer; when keep, it returns too the weighted stems
// each unit holds, unit i's at held[i*w:(i+1)*w] (w = s.words()), so
// that scoring the same units does not stem them again.
func newScorer(weight map[string]float64, units []Unit, keep bool) (s *Scorer, held []uint64) {
	s = &Scorer{weight: weight, idf: map[string]float64{}, index: map[string]int{}, pairs: map[[2]string]int{}}
	for st := range weight {
		s.stems = append(s.stems, st)
	}
	slices.Sort(s.stems)
	for i, st := range s.stems {
		// A compound term is two stems joined by "+" (terms.Compound); no
		// stem holds "+".
		if a, b, ok := strings.Cut(st, "+"); ok {
			s.pairs[[2]string{a, b}] = i
		} else {
			s.index[st] = i
		}
	}
	df := make([]int, len(s.stems))
	w := s.words()
	if keep {
		held = make([]uint64, len(units)*w)
	}
	one := s.newBits()
	for j, u := range units {
		h := one
		if keep {
			h = held[j*w : (j+1)*w]
		} else {
			clear(h)
		}
		s.mark(u.Text, h)
		for i, st := range s.stems {
			if has(h, i) && weight[st] > 0 {
				df[i]++
			}
		}
	}
	n := float64(len(units))
	s.value = make([]float64, len(s.stems))
	for i, st := range s.stems {
		s.idf[st] = math.Log(1 + (n+1)/float64(df[i]+1))
		s.value[i] = weight[st] * s.idf[st]
		s.total += s.value[i]
	}
	return s, held
}

// words is the length of a set of places in s.stems, in uint64s.
func (s *Scorer) words() int { return (len(s.stems) + 63) / 64 }

// newBits returns a set of places in s.stems, empty.
func (s *Scorer) newBits() []uint64 { return make([]uint64, s.words()) }

func has(bits []uint64, i int) bool { return bits[i/64]&(1<<(i%64)) != 0 }

// mark adds to held the places of the weighted stems text holds: those
// of terms.StemSetFor(text, weight), without the set.
func (s *Scorer) mark(text string, held []uint64) {
	terms.EachStem(text, func(st string) {
		if i, ok := s.index[st]; ok {
			held[i/64] |= 1 << (i % 64)
		}
	})
	if len(s.pairs) > 0 {
		terms.EachCompound(text, func(a, b string) {
			if i, ok := s.pairs[[2]string{a, b}]; ok {
				held[i/64] |= 1 << (i % 64)
			}
		})
	}
}

// Score is the weighted, rarity-weighted share of the terms that u holds,
// from 0 to 1.
func (s *Scorer) Score(u Unit) float64 {
	if s.total == 0 {
		return 0
	}
	var small [8]uint64 // up to 256 stems each without an allocation
	var body, head []uint64
	if n := s.words(); 2*n <= len(small) {
		body, head = small[:n], small[n:2*n]
	} else {
		body, head = s.newBits(), s.newBits()
	}
	s.mark(u.Text, body)
	s.mark(u.Heading, head)
	return s.scoreHeld(body, head)
}

// scoreHeld is Score of a unit whose text holds the weighted stems body
// and whose heading holds head.
func (s *Scorer) scoreHeld(body, head []uint64) float64 {
	if s.total == 0 {
		return 0
	}
	got := 0.0
	for i, v := range s.value {
		switch {
		case has(body, i):
			got += v
		case has(head, i):
			got += v / 2
		}
	}
	return got / s.total
}

// Weights are key stems with their weights: those of the user's question
// weigh 2, those only of a task's question 1 (a task narrows the user's
// question; its own words matter, the question's more).
func Weights(task, question string) map[string]float64 {
	w := map[string]float64{}
	for st := range terms.QuestionStems(task) {
		w[st] = 1
	}
	for st := range terms.QuestionStems(question) {
		w[st] = 2
	}
	return w
}

// Picked is a unit chosen by Best, with its score and its index in the
// units.
type Picked struct {
	Unit
	Index int
	Score float64
}

// Best returns up to k units by score, best first (ties to the earlier),
// leaving out those that score 0; each one that leads into the next (a
// sentence ending in ":" before a command) brings that one along, and a
// code block or list item brings the unit that leads into it.
func Best(units []Unit, s *Scorer, k int) []Picked {
	scores := make([]float64, len(units))
	for i, u := range units {
		scores[i] = s.Score(u)
	}
	return best(units, scores, k)
}

// best is Best of units scored scores.
func best(units []Unit, scores []float64, k int) []Picked {
	idx := make([]int, len(units))
	scoring := 0 // units that score above 0
	for i := range units {
		idx[i] = i
		if scores[i] != 0 {
			scoring++
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	out := make([]Picked, 0, min(k, scoring))
	for _, i := range idx {
		if len(out) >= k || scores[i] == 0 {
			break
		}
		out = append(out, Picked{Unit: units[i], Index: i, Score: scores[i]})
	}
	return out
}

// WithContext returns the indexes of the units that carry unit i: i
// itself, the unit that leads into it, and what it leads into (a code
// block, the items of a list), in order. A paragraph followed by a short
// line that leads into a code block ("To set no_new_privs, use::") comes
// with both: they are how to do what it describes.
func WithContext(units []Unit, i int) []int {
	out := []int{i}
	if i > 0 && units[i-1].Lead() && units[i].Kind != Prose {
		out = append([]int{i - 1}, out...)
	}
	// A sentence broken by a block ("Functions of the form", the block,
	// "are considered tests") is quoted whole, the block with it.
	if i > 0 && continues(units[i]) && units[i-1].Kind == Code && units[i-1].Heading == units[i].Heading {
		out = append([]int{i - 1}, out...)
		if i > 1 && brokenOff(units[i-2]) && units[i-2].Heading == units[i].Heading {
			out = append([]int{i - 2}, out...)
		}
	}
	// The name a definition describes stands on its own line above it (a
	// function's signature, an option, a setting: "functools.lru_cache(
	// user_function)", "-r, --recursive"): it comes with it, often the
	// fact asked for.
	for j := out[0] - 1; j >= 0 && j >= i-2 && units[i].Kind == Prose && termLine(units[j]) && units[j].Heading == units[i].Heading; j-- {
		out = append([]int{j}, out...)
	}
	lead := i
	if !units[i].Lead() && units[i].Kind == Prose && i+2 < len(units) {
		j := i + 1
		if units[j].Kind == Prose && units[j].Lead() && fieldCount(units[j].Text) <= shortLeadWords &&
			units[j].Heading == units[i].Heading && units[j+1].Kind == Code && units[j+1].Heading == units[i].Heading {
			out, lead = append(out, j), j
		}
	}
	if units[lead].Lead() {
		for j := lead + 1; j < len(units) && j <= lead+4; j++ {
			if units[j].Heading != units[i].Heading || units[j].Kind == Prose {
				break
			}
			out = append(out, j)
			if units[j].Kind == Code || units[j].Kind == Table {
				break
			}
		}
	}
	return out
}

// fieldCount is len(strings.Fields(s)), without the slice.
func fieldCount(s string) int {
	n, in := 0, false
	for _, r := range s {
		space := unicode.IsSpace(r)
		if !space && !in {
			n++
		}
		in = !space
	}
	return n
}

// termLine reports whether u is the name of what the unit after it
// describes, as a definition list or a reference manual sets it: one
// short line, no sentence, that holds a call, an option or an
// identifier ("functools.lru_cache(maxsize=128)", "-n, --numeric-sort",
// "overcommit_memory").
func termLine(u Unit) bool {
	t := strings.TrimSpace(u.Text)
	if u.Kind == Table || u.Kind == Code || strings.Contains(t, "\n") || len(t) > maxTermLine || u.Lead() ||
		strings.HasSuffix(t, ".") || len(strings.Fields(t)) > maxTermWords {
		return false
	}
	return termLineRe.MatchString(t)
}

// termLineRe finds what makes a short line a name: a call, an option,
// an identifier joined by underscores or dots, a setting.
var termLineRe = regexp.MustCompile(`\w\(|(^|[\s,])--?\w|\w_\w|\w=|^\w+$`)

const (
	maxTermLine  = 200
	maxTermWords = 12
)

// shortLeadWords: a line of at most this many words that leads into a
// code block is the command's introduction, not a paragraph of its own.
const shortLeadWords = 16

// Section returns the indexes of the units that carry unit i within
// about budget bytes: the whole of its section (the units under the same
// heading, next to each other) when that fits — a setting's section is
// its description and the commands that set it —, else WithContext's.
func Section(units []Unit, i, budget int) []int {
	first, last := i, i
	for first > 0 && units[first-1].Heading == units[i].Heading && units[i].Heading != "" {
		first--
	}
	for last+1 < len(units) && units[last+1].Heading == units[i].Heading && units[i].Heading != "" {
		last++
	}
	size := 0
	for j := first; j <= last; j++ {
		size += len(units[j].Text)
	}
	if units[i].Heading == "" || size > budget {
		return WithContext(units, i)
	}
	out := make([]int, 0, last-first+1)
	for j := first; j <= last; j++ {
		out = append(out, j)
	}
	return out
}

// maxCutHeading bounds a heading Cut repeats over a passage it keeps: the
// budget counts the passages, and a heading line may be as long as a
// document makes it.
const maxCutHeading = 200

// clipHeading is h cut to maxCutHeading bytes, at a rune, marked "…".
func clipHeading(h string) string {
	if len(h) <= maxCutHeading {
		return h
	}
	cut := maxCutHeading
	for cut > 0 && !utf8.RuneStart(h[cut]) {
		cut--
	}
	return h[:cut] + "…"
}

// The opening Cut keeps besides the first unit: at most maxOpeningUnits
// units, maxOpening bytes and a openingShare-th of the budget, up to and
// including the first paragraph of at least openingWords words.
const (
	maxOpeningUnits = 4
	maxOpening      = 1200
	openingShare    = 5
	openingWords    = 8
)

// opens reports whether u is a paragraph that can open a document: prose
// of at least openingWords words.
func opens(u Unit) bool { return u.Kind == Prose && len(strings.Fields(u.Text)) >= openingWords }

// Cut returns text cut to about budget bytes: all of it when it fits;
// else its first unit (what the document is) and, when that is no
// paragraph, the units up to its first (its opening: a manual page's NAME
// line and SYNOPSIS before its first paragraph), then its best units for the
// key terms of a task and the question it serves (Weights)
// with their context, in document order, each run of them
// under its heading ("## Usage") and separated from the next by "[…]".
// When no unit holds a term it is the text's head, as a plain cut would
// give.
func Cut(text, task, question string, budget int) string {
	if len(text) <= budget {
		return text
	}
	units := Units(text)
	if len(units) == 0 {
		return head(text, budget)
	}
	// Each unit is stemmed once, to count its terms' rarities and to
	// score it; each heading once for all the units under it.
	s, held := newScorer(Weights(task, question), units, true)
	w := s.words()
	scores := make([]float64, len(units))
	heads := map[string][]uint64{}
	for i, u := range units {
		head, ok := heads[u.Heading]
		if !ok {
			head = s.newBits()
			s.mark(u.Heading, head)
			heads[u.Heading] = head
		}
		scores[i] = s.scoreHeld(held[i*w:(i+1)*w], head)
	}
	chosen := map[int]bool{}
	size := 0
	take := func(i int) bool {
		if chosen[i] {
			return true
		}
		if size+len(units[i].Text)+8 > budget {
			return false
		}
		chosen[i] = true
		size += len(units[i].Text) + 8
		return true
	}
	take(0)
	// The document's opening, up to its first paragraph of prose: what
	// it is and offers (a manual page's NAME line, SYNOPSIS and first
	// paragraph, which name the calls its later sections describe
	// without naming them), as much of it as fits its share.
	for i, open := 1, 0; !opens(units[0]) && i < len(units) && i <= maxOpeningUnits; i++ {
		if open += len(units[i].Text) + 8; open > min(budget/openingShare, maxOpening) || !take(i) {
			break
		}
		if opens(units[i]) {
			break
		}
	}
	any := false
	for _, p := range best(units, scores, len(units)) {
		if !chosen[p.Index] && size+len(units[p.Index].Text)+8 > budget {
			continue // it alone would not fit: its context counts it too
		}
		ctx := WithContext(units, p.Index)
		need := 0
		for _, i := range ctx {
			if !chosen[i] {
				need += len(units[i].Text) + 8
			}
		}
		if size+need > budget {
			continue
		}
		for _, i := range ctx {
			take(i)
		}
		any = true
	}
	if !any {
		return head(text, budget)
	}
	var b strings.Builder
	prev, lastHead := -1, ""
	for i, u := range units {
		if !chosen[i] {
			continue
		}
		if prev >= 0 {
			if i != prev+1 {
				b.WriteString("\n\n[…]")
			}
			b.WriteString("\n\n")
		}
		if u.Heading != "" && (u.Heading != lastHead || i != prev+1) && i > 0 {
			b.WriteString("## " + clipHeading(u.Heading) + "\n\n")
		}
		b.WriteString(u.Text)
		if u.directive != "" && chosen[i+1] {
			// The code directive between the paragraph and its block,
			// which makes the one the other's lead for a reader of the cut.
			b.WriteString("\n\n" + u.directive)
		}
		prev, lastHead = i, u.Heading
	}
	if prev < len(units)-1 {
		b.WriteString("\n\n[…]")
	}
	return b.String()
}

// head cuts text to about n bytes at a line or word end.
func head(text string, n int) string {
	if len(text) <= n {
		return text
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	if i := strings.LastIndexAny(text[:cut], "\n "); i > n/2 {
		cut = i
	}
	return strings.TrimRight(text[:cut], " \n") + "\n\n[…]"
}
