package extract

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/deepresearch/deepresearch/source"
)

// Passage sizes, in bytes of text. A passage ends at a paragraph boundary
// once it holds passageMin, and never exceeds passageMax except by the
// headings of short sections merged into it; a paragraph is split (between
// sentences, else lines, else words) only when it cannot fit otherwise.
const (
	passageMin = 600
	passageMax = 1200
	// A heading ends the passage once it holds sectionMin; shorter sections
	// are merged into the next, their headings kept as lines of text.
	sectionMin = 300
)

// Passage is one unit of a document, small enough to quote and to rank.
type Passage struct {
	// Location says where the passage sits, for people: its heading path
	// ("Synchronization › Channel communication") or, for plain text and
	// text before the first heading, its line range ("lines 45-49"); its
	// page ("p. 7"), row ("row 12") or slide ("slide 3"). It is
	// Loc.String().
	Location string
	// Loc is the same location, structured, as sources carry it.
	Loc source.Location
	// Heading is the text to index as headings: the heading path and the
	// headings of short sections merged into the passage.
	Heading string
	// Body is the passage's text, paragraphs separated by blank lines.
	Body string
}

// Split cuts a document into passages, in document order. Passages are
// roughly 600–1200 bytes, cut at paragraph boundaries (see passageMin and
// passageMax). Split does not change d.
//
// Cost: linear in the length of the document's text.
func Split(d *Document) []Passage {
	c := chunker{d: d, sec: -1}
	for _, b := range d.blocks {
		if c.body.Len() > 0 && b.unit != c.unit {
			c.flush() // a passage never spans two pages, rows or slides
		}
		if c.body.Len() > 0 && b.sec != c.lastSec {
			if c.body.Len() >= sectionMin {
				c.flush()
			} else if path := d.sections[b.sec].path; len(path) > 0 {
				c.write(path[len(path)-1], b.sec, b.unit, 0, 0)
				c.mergeHeadings(path)
			}
		}
		text, off := b.text, 0
		for text != "" {
			sep := 0
			if c.body.Len() > 0 {
				sep = 2
			}
			if c.body.Len()+sep+len(text) <= passageMax {
				c.write(text, b.sec, b.unit, b.lineOf(off), b.last)
				break
			}
			if c.body.Len() >= passageMin {
				c.flush()
				continue
			}
			head, rest := cut(text, passageMax-c.body.Len()-sep, b.pre)
			if head == "" {
				if c.body.Len() > 0 {
					c.flush()
					continue
				}
				head, rest = cutHard(text, passageMax)
			}
			next := off + len(text) - len(rest)
			c.write(head, b.sec, b.unit, b.lineOf(off), b.lineOf(next-1))
			c.flush()
			text, off = rest, next
		}
	}
	c.flush()
	return c.out
}

// lineOf returns the source line of byte off of the block's text, when its
// lines map onto source lines one to one; else the block's first line.
func (b block) lineOf(off int) int {
	if b.first == 0 {
		return 0
	}
	n := b.first + strings.Count(b.text[:min(max(off, 0), len(b.text))], "\n")
	return min(n, max(b.last, b.first))
}

type chunker struct {
	d       *Document
	out     []Passage
	body    strings.Builder
	sec     int // section the Passage starts in; -1 when empty
	lastSec int // section of the last text written
	unit    source.Location
	heads   []string
	first   int
	last    int
}

// mergeHeadings adds to the indexed headings those of path that the
// passage does not have yet.
func (c *chunker) mergeHeadings(path []string) {
	have := c.d.sections[c.sec].path
	for _, h := range path {
		if !slices.Contains(have, h) && !slices.Contains(c.heads, h) {
			c.heads = append(c.heads, h)
		}
	}
}

func (c *chunker) write(text string, sec int, unit source.Location, first, last int) {
	if c.body.Len() > 0 {
		c.body.WriteString("\n\n")
	} else {
		c.sec, c.unit = sec, unit
	}
	c.body.WriteString(text)
	c.lastSec = sec
	if first > 0 && (c.first == 0 || first < c.first) {
		c.first = first
	}
	c.last = max(c.last, last)
}

func (c *chunker) flush() {
	if c.body.Len() == 0 {
		return
	}
	path := c.d.sections[c.sec].path
	loc := c.unit
	switch {
	case !loc.IsZero():
	case c.first > 0 && (c.d.lineLocations || len(path) == 0):
		loc = source.Location{Kind: source.LocLines, Value: strconv.Itoa(c.first)}
		if c.last > c.first {
			loc.Value = fmt.Sprintf("%d-%d", c.first, c.last)
		}
	case len(path) > 0:
		loc = source.Location{Kind: source.LocSection, Value: strings.Join(path, source.SectionSep)}
	}
	heading := strings.Join(append(path[:len(path):len(path)], c.heads...), source.SectionSep)
	c.out = append(c.out, Passage{Location: loc.String(), Loc: loc, Heading: heading, Body: c.body.String()})
	c.body.Reset()
	c.sec, c.unit, c.heads, c.first, c.last = -1, source.Location{}, nil, 0, 0
}

// cut splits text so that head fits in room bytes, at the last sentence end
// that fits (not for preformatted text), else the last line break, else the
// last space. head is "" when none fits.
func cut(text string, room int, pre bool) (head, rest string) {
	if room <= 0 {
		return "", text
	}
	if room >= len(text) {
		return text, ""
	}
	window := text[:room+1] // the byte after the window may be the space that ends a sentence
	e := -1
	if !pre {
		e = lastSentenceEnd(window)
	}
	if e <= 0 {
		e = strings.LastIndexByte(window[:room], '\n')
	}
	if e <= 0 && !pre {
		e = strings.LastIndexAny(window[:room], " \t")
	}
	if e <= 0 {
		return "", text
	}
	return strings.TrimRight(text[:e], " \t\n"), strings.TrimLeft(text[e:], " \t\n")
}

// lastSentenceEnd returns the offset just after the last sentence-ending
// punctuation (with any closing quotes or brackets) in s that is followed by
// white space, or -1.
func lastSentenceEnd(s string) int {
	for i := len(s) - 1; i > 0; i-- {
		if s[i] != ' ' && s[i] != '\n' && s[i] != '\t' {
			continue
		}
		j := i
		for {
			if j > 0 && strings.IndexByte(`"')]`, s[j-1]) >= 0 {
				j--
				continue
			}
			if j >= 3 && (s[j-3:j] == "”" || s[j-3:j] == "’") {
				j -= 3
				continue
			}
			break
		}
		if j > 0 && strings.IndexByte(".!?", s[j-1]) >= 0 {
			return i
		}
	}
	return -1
}

// cutHard splits text at the last rune boundary at or before n bytes.
func cutHard(text string, n int) (head, rest string) {
	if n >= len(text) {
		return text, ""
	}
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	if n == 0 {
		_, n = utf8.DecodeRuneInString(text)
	}
	return text[:n], text[n:]
}
