package verify

import (
	"html"
	"io"
	"math"
	"path"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/source"
)

// found is one citation marker in the report, before judging.
type found struct {
	kind   Kind
	off    int
	len    int
	marker string
	nums   []int           // KindNumber: the numbers, in order (repeats removed)
	link   string          // a rendered citation's link target
	ref    string          // KindRef: URL; KindDOI: the DOI; KindAuthorYear: "Author YEAR"; KindFile: path
	loc    source.Location // a pinpoint: "[2, p. 7]" cites number 2 at page 7
	// File references.
	hash   string
	lineLo int
	lineHi int
	lines  string // the line range as written: "10-20", "7"
	// Author-year references: the surnames named (one, or two joined by
	// "and") and the year.
	authors    []string
	year       string
	sentence   string
	sentenceAt int  // offset of the sentence in the report
	blockQuote bool // the sentence is in a block quote: a quotation
}

// layout is what the report's markdown structure says about byte ranges:
// code and HTML comments (never hold citations), front matter and
// reference lists (list the sources, do not cite them).
type layout struct {
	skip []span // sorted, disjoint
	// blocks are the skipped ranges that are whole blocks (code blocks,
	// HTML blocks, front matter, reference lists): no prose there.
	blocks []span
}

func (l *layout) skipped(off, end int) bool {
	i := sort.Search(len(l.skip), func(i int) bool { return l.skip[i].end > off })
	return i < len(l.skip) && l.skip[i].start < end
}

// referenceHeadings are the titles of sections that list sources.
var referenceHeadings = map[string]bool{
	"references": true, "sources": true, "bibliography": true, "works cited": true,
	"citations": true, "reference list": true, "notes": true, "footnotes": true,
}

// layoutParser reads a report's blocks, code spans and inline raw HTML
// (comments: a fix's notes are never read again): all the layout needs.
// Links and emphasis are left unparsed: goldmark's link parser is
// quadratic on a paragraph full of brackets (a report is nothing but
// citations), and neither holds code.
var layoutParser = parser.NewParser(
	parser.WithBlockParsers(parser.DefaultBlockParsers()...),
	parser.WithInlineParsers(util.Prioritized(parser.NewCodeSpanParser(), 100),
		util.Prioritized(parser.NewRawHTMLParser(), 400)),
	parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...),
)

func parseLayout(src []byte) *layout {
	l := &layout{}
	doc := layoutParser.Parse(text.NewReader(src))
	type heading struct{ level, start int }
	var refs []heading
	var heads []heading
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.FencedCodeBlock, *ast.CodeBlock, *ast.HTMLBlock:
			lines := n.Lines()
			if lines.Len() > 0 {
				l.blocks = append(l.blocks, span{lines.At(0).Start, lines.At(lines.Len() - 1).Stop})
			}
			return ast.WalkSkipChildren, nil
		case *ast.RawHTML:
			// An HTML comment (a fix's note among them) is no prose.
			if segs := n.Segments; segs.Len() > 0 {
				lo, hi := segs.At(0).Start, segs.At(segs.Len()-1).Stop
				if strings.HasPrefix(string(src[lo:hi]), "<!--") {
					l.skip = append(l.skip, span{lo, hi})
				}
			}
			return ast.WalkSkipChildren, nil
		case *ast.CodeSpan:
			lo, hi := -1, -1
			for c := n.FirstChild(); c != nil; c = c.NextSibling() {
				if t, ok := c.(*ast.Text); ok {
					if lo < 0 {
						lo = t.Segment.Start
					}
					hi = t.Segment.Stop
				}
			}
			if lo >= 0 {
				for lo > 0 && src[lo-1] == '`' {
					lo--
				}
				for hi < len(src) && src[hi] == '`' {
					hi++
				}
				l.skip = append(l.skip, span{lo, hi})
			}
			return ast.WalkSkipChildren, nil
		case *ast.Heading:
			lines := n.Lines()
			if lines.Len() == 0 {
				return ast.WalkContinue, nil
			}
			seg := lines.At(0)
			start := strings.LastIndexByte(string(src[:seg.Start]), '\n') + 1
			h := heading{n.Level, start}
			heads = append(heads, h)
			title := strings.ToLower(strings.Trim(strings.TrimSpace(string(seg.Value(src))), "#:* "))
			if referenceHeadings[title] {
				refs = append(refs, h)
			}
		}
		return ast.WalkContinue, nil
	})
	// Only a trailing reference section lists sources: one that runs to
	// the end of the report, or to another reference section that does,
	// and that is not the whole report ("# Notes" over a report's every
	// sentence is its title, and what follows is prose that cites).
	ends := make([]int, len(refs))
	for i, r := range refs {
		ends[i] = len(src)
		for _, h := range heads {
			if h.start > r.start && h.level <= r.level {
				ends[i] = h.start
				break
			}
		}
	}
	tail := len(src)
	for i := len(refs) - 1; i >= 0; i-- {
		r := refs[i]
		if ends[i] != tail || !hasContentBefore(src, r.start) {
			break
		}
		l.blocks = append(l.blocks, span{r.start, ends[i]})
		tail = r.start
	}
	if end := frontMatterEnd(string(src)); end > 0 {
		l.blocks = append(l.blocks, span{0, end})
	}
	l.blocks = mergeSpans(l.blocks)
	l.skip = mergeSpans(append(l.skip, l.blocks...))
	return l
}

// hasContentBefore reports whether the report holds anything before off
// but blanks, front matter and HTML comments: a heading at off is then
// not the report's first line.
func hasContentBefore(src []byte, off int) bool {
	head := string(src[frontMatterEnd(string(src)):max(off, frontMatterEnd(string(src)))])
	for {
		head = strings.TrimSpace(head)
		if !strings.HasPrefix(head, "<!--") {
			return head != ""
		}
		end := strings.Index(head, "-->")
		if end < 0 {
			return false
		}
		head = head[end+3:]
	}
}

// mergeSpans sorts spans and merges overlaps, so that a binary search over
// them is right.
func mergeSpans(spans []span) []span {
	slices.SortFunc(spans, func(a, b span) int { return a.start - b.start })
	var merged []span
	for _, s := range spans {
		if n := len(merged); n > 0 && s.start <= merged[n-1].end {
			merged[n-1].end = max(merged[n-1].end, s.end)
			continue
		}
		merged = append(merged, s)
	}
	return merged
}

// inBlock reports whether [off, end) overlaps a skipped block.
func (l *layout) inBlock(off, end int) bool {
	i := sort.Search(len(l.blocks), func(i int) bool { return l.blocks[i].end > off })
	return i < len(l.blocks) && l.blocks[i].start < end
}

var (
	// A DOI: "10." registrant (dot-separated subdivisions allowed) "/"
	// suffix, any non-blank suffix character but brackets and quotes.
	// Registrants have four digits or more; a shorter one ("10.12/x") is
	// a DOI only standing on its own (after a blank, a bracket or "doi:")
	// with a suffix that is not all digits ("10.5/3" is a ratio), and is
	// reported malformed unless a source carries it.
	doiRe = regexp.MustCompile(`\b10\.(\d+)(?:\.\d+)*/[^\s"<>\[\]{}]+`)
	// "Smith et al., 2020", "Smith et al. (2020)" (its parentheses whole),
	// "(Smith et al. 2020a)".
	authorYearRe = regexp.MustCompile(`\b(\p{Lu}[\p{L}'’-]+)\s+et\s+al\.?,?\s*(?:\(((?:1[6-9]|20)\d{2})[a-z]?\)|((?:1[6-9]|20)\d{2})[a-z]?\b)`)
	// "Jones and Lee (2018)", "Jones & Lee (2018a)".
	twoAuthorsRe = regexp.MustCompile(`\b(\p{Lu}[\p{L}'’-]+)\s+(?:and|&)\s+(\p{Lu}[\p{L}'’-]+)\s*\(((?:1[6-9]|20)\d{2})[a-z]?\)`)
	// A parenthesis ending in a year: "(Brown, 2017)", "(Jones & Lee,
	// 2018; Brown 2017)"; its entries are read with ayEntryRe.
	yearParenRe = regexp.MustCompile(`\(([^()\n]{1,300}?\b(?:1[6-9]|20)\d{2}[a-z]?)\)`)
	ayEntryRe   = regexp.MustCompile(`^(?:(?:see|e\.g\.|cf\.)[,]?\s+)?(\p{Lu}[\p{L}'’-]+)(?:\s+(?:and|&)\s+(\p{Lu}[\p{L}'’-]+)|\s+et\s+al\.?)?,?\s+((?:1[6-9]|20)\d{2})[a-z]?$`)
	// An @-mention of a file or folder: "@docs/research/x.md",
	// "@README.md", "@.aiwg/research/sources/*". After a blank or an
	// opening bracket only (an e-mail address is no mention); see
	// isMention for what makes it a file.
	mentionRe = regexp.MustCompile(`(?:^|[\s(\[{"'“])@([A-Za-z0-9_.~+*-][A-Za-z0-9_.~+*/-]*)`)
	// A corpus identifier: "REF-123".
	refIDRe = regexp.MustCompile(`\bREF-\d{1,9}\b`)
	// The markdown style our renderer writes: "[[1]](https://…)".
	linkedRe = regexp.MustCompile(`\[\[([1-9][0-9]{0,5})(?:, (?:p\.|row|slide) [0-9]{1,6})?\]\]\(([^()\s]*)\)`)
	// The HTML style: <sup class="cite" data-sids="1"><a href="URL" …>[1]</a></sup>
	// (data-sids since issue 17).
	supRe = regexp.MustCompile(`<sup class="cite"(?: data-sids="[0-9,]*")?><a href="([^"]*)"[^>]*>\[([1-9][0-9]{0,5})(?:, (?:p\.|row|slide) [0-9]{1,6})?\]</a></sup>`)
	// "[path, L10-20]", "[path@hash, L10-20]", "[path@hash]", "[path, L7]",
	// and the path alone, "[src/legacy/auth.py]" (see isFilePath).
	fileRefRe = regexp.MustCompile(`\[([^\s\[\](),@]+)(?:@([0-9A-Fa-f]{6,64}))?(?:,\s*L(\d+)(?:\s*[-–]\s*L?(\d+))?)?\]`)
)

// isSidsValue reports whether the marker at off is the data-sids value of a
// <sup class="cite">: the markers inside the element are its citations,
// counted once.
func isSidsValue(report string, off int) bool {
	return off >= len(`data-sids="`) && strings.EqualFold(report[off-len(`data-sids="`):off-1], "data-sids=")
}

// findCitations returns every citation in the report, in order of
// offset; more than MaxCitations markers are ErrTooLarge, found before the
// report's layout is parsed (layout is called once the count is known).
func findCitations(report string, mapping *citeproc.Mapping, layout func() *layout) ([]found, error) {
	var out []found
	tooMany := false
	p := citeproc.New(io.Discard, citeproc.Config{Mode: citeproc.Keep, Mapping: mapping, Hooks: citeproc.Hooks{
		Marker: func(m citeproc.Marker) {
			if tooMany = tooMany || len(out) >= MaxCitations; tooMany {
				return
			}
			off := int(m.Offset)
			if isSidsValue(report, off) {
				return
			}
			f := found{off: off, len: m.Len, marker: report[off : off+m.Len], loc: m.Locator}
			if m.URL != "" {
				f.kind, f.ref = KindRef, m.URL
			} else {
				f.kind = KindNumber
				for _, n := range m.Numbers {
					if !slices.Contains(f.nums, n) {
						f.nums = append(f.nums, n)
					}
				}
			}
			out = append(out, f)
		},
	}})
	// Keep mode never fails on its own; the destination discards.
	_, _ = p.WriteString(report)
	_ = p.Close()
	if tooMany {
		return nil, tooManyCitations()
	}
	lay := layout()
	out = slices.DeleteFunc(out, func(f found) bool { return lay.skipped(f.off, f.off+f.len) })

	// dropped marks markers a rendered citation holds (compacted at the
	// end: deleting each in place would be quadratic).
	dropped := make([]bool, len(out))
	// taken reports whether [lo, hi) is code, a reference list or overlaps
	// a marker the parser found that is kept (out is in offset order).
	taken := func(lo, hi int) bool {
		if lay.skipped(lo, hi) {
			return true
		}
		for i := sort.Search(len(out), func(i int) bool { return out[i].off+out[i].len > lo }); i < len(out) && out[i].off < hi; i++ {
			if !dropped[i] {
				return true
			}
		}
		return false
	}
	var extra []found
	// Rendered citations: markdown links and HTML superscripts, which the
	// parser leaves alone as links.
	for _, re := range []*regexp.Regexp{linkedRe, supRe} {
		for _, m := range re.FindAllStringSubmatchIndex(report, MaxCitations+1) {
			lo, hi := m[0], m[1]
			if lay.skipped(lo, hi) {
				continue
			}
			// The parser finds the "[1]" inside a superscript: the whole
			// superscript is the citation.
			for i := sort.Search(len(out), func(i int) bool { return out[i].off >= lo }); i < len(out) && out[i].off+out[i].len <= hi; i++ {
				dropped[i] = true
			}
			if taken(lo, hi) {
				continue
			}
			num, link := report[m[2]:m[3]], report[m[4]:m[5]]
			if re == supRe {
				num, link = link, num
				link = html.UnescapeString(link)
			}
			extra = append(extra, found{kind: KindNumber, off: lo, len: hi - lo, marker: report[lo:hi], nums: []int{atoi(num)}, link: link})
		}
	}
	for _, m := range fileRefRe.FindAllStringSubmatchIndex(report, MaxCitations+1) {
		lo, hi := m[0], m[1]
		path := report[m[2]:m[3]]
		hasHash, hasLines := m[4] >= 0, m[6] >= 0
		if !hasHash && !hasLines && !isFilePath(path) || !strings.ContainsAny(path, "./") || taken(lo, hi) {
			continue
		}
		if hi < len(report) && (report[hi] == '(' || report[hi] == ':' || report[hi] == '[') {
			continue // a link or a definition
		}
		f := found{kind: KindFile, off: lo, len: hi - lo, marker: report[lo:hi], ref: path}
		if hasHash {
			f.hash = strings.ToLower(report[m[4]:m[5]])
		}
		if hasLines {
			f.lineLo = atoi(report[m[6]:m[7]])
			f.lineHi, f.lines = f.lineLo, report[m[6]:m[7]]
			if m[8] >= 0 {
				f.lineHi = atoi(report[m[8]:m[9]])
				f.lines += "-" + report[m[8]:m[9]]
			}
		}
		extra = append(extra, f)
	}
	for _, m := range doiRe.FindAllStringSubmatchIndex(report, MaxCitations+1) {
		lo, hi := m[0], m[1]
		for hi > lo && strings.IndexByte(".,;:)'", report[hi-1]) >= 0 {
			hi--
		}
		if lay.skipped(lo, hi) {
			continue
		}
		doi := report[lo:hi]
		if m[3]-m[2] < 4 && (strings.Trim(doi[strings.IndexByte(doi, '/')+1:], "0123456789") == "" ||
			lo > 0 && strings.IndexByte(" \t\n([:\"'", report[lo-1]) < 0) {
			continue // "10.5/3": a ratio; "go1.10.3/x", "/v10.2/docs": versions and paths
		}
		extra = append(extra, found{kind: KindDOI, off: lo, len: hi - lo, marker: doi, ref: doi})
	}
	// Author-year references, most specific form first; a later form never
	// takes what an earlier one found. Each form's finds are in offset
	// order; those of the forms before are kept sorted, so that an overlap
	// is a binary search.
	var ays, pass []found
	ayTaken := func(lo, hi int) bool {
		i := sort.Search(len(ays), func(i int) bool { return ays[i].off+ays[i].len > lo })
		return taken(lo, hi) || i < len(ays) && ays[i].off < hi
	}
	addAY := func(lo, hi int, authors []string, year string) {
		if ayTaken(lo, hi) || notAuthor[authors[0]] {
			return
		}
		pass = append(pass, found{kind: KindAuthorYear, off: lo, len: hi - lo, marker: report[lo:hi],
			ref: strings.Join(authors, " & ") + " " + year, authors: authors, year: year})
	}
	endPass := func() {
		ays = append(ays, pass...)
		pass = pass[:0]
		slices.SortFunc(ays, func(a, b found) int { return a.off - b.off })
	}
	for _, m := range authorYearRe.FindAllStringSubmatchIndex(report, MaxCitations+1) {
		year := m[4:6] // "(2019)"
		if year[0] < 0 {
			year = m[6:8] // ", 2019"
		}
		addAY(m[0], m[1], []string{report[m[2]:m[3]]}, report[year[0]:year[1]])
	}
	endPass()
	for _, m := range twoAuthorsRe.FindAllStringSubmatchIndex(report, MaxCitations+1) {
		addAY(m[0], m[1], []string{report[m[2]:m[3]], report[m[4]:m[5]]}, report[m[6]:m[7]])
	}
	endPass()
	for _, m := range yearParenRe.FindAllStringSubmatchIndex(report, MaxCitations+1) {
		at := m[2]
		for _, entry := range strings.Split(report[m[2]:m[3]], ";") {
			lo := at + len(entry) - len(strings.TrimLeft(entry, " \t\n"))
			hi := at + len(strings.TrimRight(entry, " \t\n"))
			at += len(entry) + 1
			e := ayEntryRe.FindStringSubmatchIndex(report[lo:hi])
			if e == nil {
				continue
			}
			authors := []string{report[lo+e[2] : lo+e[3]]}
			if e[4] >= 0 {
				authors = append(authors, report[lo+e[4]:lo+e[5]])
			}
			addAY(lo+e[2], hi, authors, report[lo+e[6]:lo+e[7]])
		}
	}
	endPass()
	extra = append(extra, ays...)
	for _, m := range mentionRe.FindAllStringSubmatchIndex(report, MaxCitations+1) {
		lo, hi := m[2]-1, m[3] // from the @
		for hi > m[2] && strings.IndexByte(".,;:!?)]}'\"", report[hi-1]) >= 0 {
			hi--
		}
		p := report[lo+1 : hi]
		if !isMention(p) || taken(lo, hi) {
			continue
		}
		extra = append(extra, found{kind: KindMention, off: lo, len: hi - lo, marker: report[lo:hi], ref: p})
	}
	for _, m := range refIDRe.FindAllStringIndex(report, MaxCitations+1) {
		if lay.skipped(m[0], m[1]) || m[0] > 0 && strings.IndexByte("/=#?&.", report[m[0]-1]) >= 0 {
			continue // code, or part of a URL or file name
		}
		id := report[m[0]:m[1]]
		extra = append(extra, found{kind: KindRefID, off: m[0], len: m[1] - m[0], marker: id, ref: id})
	}
	kept := out[:0]
	for i, f := range out {
		if !dropped[i] {
			kept = append(kept, f)
		}
	}
	if len(kept)+len(extra) > MaxCitations {
		return nil, tooManyCitations()
	}
	out = append(kept, extra...)
	slices.SortStableFunc(out, func(a, b found) int { return a.off - b.off })
	return out, nil
}

// notAuthor are capitalised words before a year that name no author:
// "(March 2020)", "(Since 2019)".
var notAuthor = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`January February March April May June July August September October
		November December Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec Spring Summer Autumn Fall Winter
		In Since Before After Until From Circa Early Late Mid End Around About By As Of The See Version Go Q1 Q2 Q3 Q4`) {
		m[w] = true
	}
	return m
}()

// isFilePath reports whether a bracketed word with neither hash nor lines
// is a path-only file reference ("[src/legacy/auth.py]"): a relative path
// of folders and a file name with an extension. One without a folder
// ("[Node.js]") or an extension ("[TCP/IP]") is prose, and a URL no file.
func isFilePath(p string) bool {
	return strings.Contains(p, "/") && !strings.Contains(p, ":") && !strings.HasPrefix(p, "/") &&
		!strings.Contains(p, "//") && mentionExtRe.MatchString(path.Base(p))
}

// mentionExtRe is a file name's extension.
var mentionExtRe = regexp.MustCompile(`\.[A-Za-z][A-Za-z0-9]{0,7}$`)

// isMention reports whether what follows an @ names a file or folder: a
// path whose last part has an extension ("docs/x.md", "README.md"), a
// folder ("docs/research/") or a glob ("sources/*"). "@types/node" (an npm
// scope) and "@alice" (a person) do not; nor does "$ROOT/x.md", which
// names a variable's folder.
func isMention(p string) bool {
	switch {
	case p == "" || strings.HasPrefix(p, "$") || strings.Contains(p, "//"):
		return false
	case strings.HasSuffix(p, "/") || strings.Contains(p, "*"):
		return strings.Trim(p, "/*.") != ""
	}
	return mentionExtRe.MatchString(path.Base(p))
}

// atoi reads the digits s, saturating at math.MaxInt: a number too large
// for an int is larger than any line or source number there is.
func atoi(s string) int {
	n := 0
	for _, c := range s {
		if n > (math.MaxInt-9)/10 {
			return math.MaxInt
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// lineIndex maps offsets to 1-based line numbers.
type lineIndex []int // offsets at which lines start

func newLineIndex(s string) lineIndex {
	li := lineIndex{0}
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			li = append(li, i+1)
		}
	}
	return li
}

func (li lineIndex) line(off int) int {
	return sort.Search(len(li), func(i int) bool { return li[i] > off })
}

// attachSentences sets each citation's sentence: the sentence of its block
// (paragraph, list item, heading, table row) that holds it, or the one
// before when the marker starts its sentence ("Claim. [1]"). Markers are
// blanked out of the sentence, and markdown emphasis and link syntax
// removed.
func attachSentences(report string, fs []found) {
	m := maskMarkers(report, fs)
	blocks := blockStarts(m)
	type block struct {
		lo, hi int
		sents  []span
	}
	var cache *block
	for i := range fs {
		f := &fs[i]
		b := sort.Search(len(blocks), func(i int) bool { return blocks[i] > f.off }) - 1
		lo, hi := blocks[max(0, b)], len(m)
		if b+1 < len(blocks) {
			hi = blocks[b+1]
		}
		if cache == nil || cache.lo != lo || cache.hi != hi {
			cache = &block{lo: lo, hi: hi}
			for _, s := range splitSentences(m[lo:hi]) {
				cache.sents = append(cache.sents, span{lo + s.start, lo + s.end})
			}
		}
		if len(cache.sents) == 0 {
			continue
		}
		k := max(0, sort.Search(len(cache.sents), func(j int) bool { return cache.sents[j].start > f.off })-1)
		if k > 0 && !hasWordBetween(m, cache.sents[k].start, f.off) {
			k--
		}
		s := cache.sents[k]
		f.sentenceAt = s.start
		f.blockQuote = isQuotation(m, lo)
		if i > 0 && fs[i-1].sentenceAt == s.start && fs[i-1].sentence != "" {
			f.sentence = fs[i-1].sentence // the same sentence as the citation before
		} else {
			f.sentence = cleanSentence(m[s.start:s.end])
		}
	}
}

// isQuotation reports whether the block at lo of the report is in a block
// quote of another's words: one whose first line starts with a bold label
// ("> **Note.** …") or is an alert ("> [!NOTE]") is a callout of the
// report's own.
func isQuotation(report string, lo int) bool {
	quoted := func(line string) (string, bool) {
		return strings.CutPrefix(strings.TrimLeft(line, " \t"), ">")
	}
	if _, ok := quoted(report[lo:]); !ok {
		return false
	}
	// Back to the quote's first line.
	for lo > 0 {
		prev := strings.LastIndexByte(report[:lo-1], '\n') + 1
		if _, ok := quoted(report[prev : lo-1]); !ok {
			break
		}
		lo = prev
	}
	rest, _ := quoted(report[lo:])
	rest = strings.TrimLeft(rest, " \t>")
	return !strings.HasPrefix(rest, "**") && !strings.HasPrefix(rest, "__") && !strings.HasPrefix(rest, "[!")
}

// maskMarkers returns the report with its bracketed citations (numbers,
// [ref: URL], file references) blanked out, offsets kept: what sentences
// are split and read from.
func maskMarkers(report string, fs []found) string {
	masked := []byte(report)
	for _, f := range fs {
		if f.kind == KindNumber || f.kind == KindRef || f.kind == KindFile {
			for i := f.off; i < f.off+f.len; i++ {
				if masked[i] != '\n' {
					masked[i] = ' '
				}
			}
		}
	}
	return string(masked)
}

// blockStarts returns the offsets at which the report's markdown blocks
// start: the first line, a line after a blank one, and a line that starts
// a block of its own (list item, heading, quote, table row, fence).
func blockStarts(s string) []int {
	starts := []int{0}
	for i := 0; i < len(s); i++ {
		if s[i] != '\n' {
			continue
		}
		rest := s[i+1:]
		if blankLineStart(rest) || startsBlock(rest) {
			starts = append(starts, i+1)
		}
	}
	return starts
}

func hasWordBetween(s string, lo, hi int) bool {
	for i := lo; i < hi && i < len(s); i++ {
		if isWordByte(s[i]) || s[i] >= 0x80 {
			return true
		}
	}
	return false
}

var (
	mdLinkRe = regexp.MustCompile(`!?\[([^\[\]]*)\]\([^()\s]*\)`)
	// Inline HTML tags (a citation's <sup class="cite" data-sids="1">
	// and </sup>, emphasis, links) and the usage tag [[USAGE:1,3]]: no
	// words of the sentence.
	htmlTagRe  = regexp.MustCompile(`</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>`)
	usageTagRe = regexp.MustCompile(`(?i)\[\[usage:[^\[\]]*\]\]`)
	mdSyntaxRe = regexp.MustCompile("(?m)^\\s*(?:[-*+>]|#{1,6}|\\d{1,9}[.)])\\s+|\\*\\*|__|`|\\|")
	blanksRe   = regexp.MustCompile(`\s+`)
)

// cleanSentence strips markdown from a sentence: inline HTML tags (what
// is left of a citation in HTML, <sup class="cite" …></sup>, once its
// marker is masked), usage tags, link syntax (the text stays), emphasis,
// code ticks, list and heading markers.
func cleanSentence(s string) string {
	if strings.IndexByte(s, '<') >= 0 {
		s = htmlTagRe.ReplaceAllString(s, " ")
	}
	if strings.Contains(s, "[[") {
		s = usageTagRe.ReplaceAllString(s, " ")
	}
	s = mdLinkRe.ReplaceAllString(s, "$1")
	s = mdSyntaxRe.ReplaceAllString(s, " ")
	s = blanksRe.ReplaceAllString(s, " ")
	s = strings.TrimSpace(s)
	// A marker before the final stop leaves "claim ." behind.
	for _, p := range []string{" .", " ,", " ;", " :", " !", " ?"} {
		s = strings.ReplaceAll(s, p, p[1:])
	}
	return s
}

// sourceKey is the key under which two sources are the same resource:
// the canonical URL and the page, row or slide (source.Location.Key).
func sourceKey(s Source) string {
	if s.URL == "" {
		return ""
	}
	if k := canon.Key(s.URL); k != "" {
		return k + s.Location.Key()
	}
	return ""
}
