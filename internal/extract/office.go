package extract

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/deepresearch/deepresearch/internal/sourcetext"
	"github.com/deepresearch/deepresearch/source"
)

// Office Open XML (DOCX, PPTX) and the other zip formats are read with
// encoding/xml, matching elements by their local names: w:p, a:t.
// encoding/xml expands no entity a document defines, so no XML bomb.

// xmlWalk calls fn for each token of an XML member, stopping at the first
// error fn returns; a syntax error is ErrMalformed, naming the member.
// Each token is a step of bud: the walk stops when its context is done.
func xmlWalk(bud *budget, data []byte, member string, fn func(xml.Token) error) error {
	dec := xml.NewDecoder(bytes.NewReader(data))
	for {
		if err := bud.step(member); err != nil {
			return err
		}
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%w: %s: %w", ErrMalformed, member, err)
		}
		if err := fn(tok); err != nil {
			return err
		}
	}
}

// headingStyle recognises the names of heading styles: "heading 1",
// "Heading1", "Title".
var headingStyle = regexp.MustCompile(`(?i)^heading\s*([1-9])$`)

// docxStyles maps a DOCX's paragraph style ids to heading levels (0: not
// a heading; -1: the title), from word/styles.xml: by the style's name,
// else its outline level.
func docxStyles(z *zipReader) map[string]int {
	levels := map[string]int{}
	if !z.has("word/styles.xml") {
		return levels
	}
	data, err := z.read("word/styles.xml")
	if err != nil {
		return levels
	}
	var id string
	xmlWalk(z.bud, data, "word/styles.xml", func(tok xml.Token) error {
		e, ok := tok.(xml.StartElement)
		if !ok {
			return nil
		}
		switch e.Name.Local {
		case "style":
			id = attr(e, "styleId")
		case "name":
			if m := headingStyle.FindStringSubmatch(attr(e, "val")); m != nil && id != "" {
				levels[id], _ = strconv.Atoi(m[1])
			} else if strings.EqualFold(attr(e, "val"), "title") && id != "" {
				levels[id] = -1
			}
		case "outlineLvl":
			if n, err := strconv.Atoi(attr(e, "val")); err == nil && id != "" && levels[id] == 0 && n < 9 {
				levels[id] = n + 1
			}
		}
		return nil
	})
	return levels
}

// extractDOCX reads word/document.xml: each paragraph a block, a
// paragraph in a heading style a heading, each table row a block of its
// cells separated by " | ".
func extractDOCX(z *zipReader, fallback string) (Document, error) {
	data, err := z.read("word/document.xml")
	if err != nil {
		return Document{}, err
	}
	styles := docxStyles(z)
	var b builder
	author := ""
	if z.has("docProps/core.xml") {
		if core, err := z.read("docProps/core.xml"); err == nil {
			b.metaTitle = firstText(core, "title")
			author = sourcetext.ParseAuthors(firstText(core, "creator"))
		}
	}
	body := wordBody{b: &b, bud: z.bud, member: "word/document.xml"}
	inText := false
	err = xmlWalk(z.bud, data, "word/document.xml", func(tok xml.Token) error {
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "p":
				body.start(0)
			case "pStyle":
				level := styles[attr(e, "val")]
				if level == 0 {
					if m := headingStyle.FindStringSubmatch(attr(e, "val")); m != nil {
						level, _ = strconv.Atoi(m[1])
					}
				}
				body.level = level
			case "t", "delText":
				inText = e.Name.Local == "t"
			case "tab", "br", "cr":
				body.space()
			case "tr":
				body.startRow()
			case "tc":
				body.startCell()
			}
		case xml.EndElement:
			switch e.Name.Local {
			case "p":
				if err := body.end(); err != nil {
					return err
				}
			case "t", "delText":
				inText = false
			case "tr":
				body.endRow()
			}
		case xml.CharData:
			if inText {
				return body.write(e)
			}
		}
		return nil
	})
	if err != nil {
		return Document{}, err
	}
	d := b.finish(fallback)
	d.Text = strings.TrimSpace(b.out.String())
	d.Author = author
	return d, nil
}

// wordBody assembles the body of a word processor's document (DOCX,
// ODT) into b as its XML is walked: each paragraph a block, or a heading
// (level > 0; -1: the title, kept as the title when the metadata has
// none), and each table row a block of its cells, each the text of its
// paragraphs, separated by " | ". Every paragraph is paid for from bud
// before it is kept; member names the XML member in errors.
type wordBody struct {
	b      *builder
	bud    *budget
	member string
	para   strings.Builder
	level  int                // of the paragraph being read
	cells  []*strings.Builder // of the table row being read
	rows   int                // depth of table rows
	n      int                // paragraphs so far, for errors
}

// start begins a paragraph of the heading level (0: a paragraph).
func (p *wordBody) start(level int) {
	p.para.Reset()
	p.level = level
}

// space writes the space a tab or a line break stands for.
func (p *wordBody) space() { p.para.WriteByte(' ') }

// write adds text to the paragraph, within the budget.
func (p *wordBody) write(text []byte) error {
	if p.para.Len()+len(text) > p.bud.left {
		return p.bud.over(p.where())
	}
	p.para.Write(text)
	return nil
}

func (p *wordBody) where() string { return p.member + ", paragraph " + strconv.Itoa(p.n) }

// end ends the paragraph: into the table cell being read, else a
// heading or a block.
func (p *wordBody) end() error {
	p.n++
	text := collapseSpace(p.para.String())
	p.para.Reset()
	if text != "" && !p.bud.spend(len(text)+unitCost) {
		return p.bud.over(p.where())
	}
	switch {
	case text == "":
	case p.rows > 0:
		if len(p.cells) > 0 {
			c := p.cells[len(p.cells)-1]
			if c.Len() > 0 {
				c.WriteByte(' ')
			}
			c.WriteString(text)
		}
	case p.level == -1:
		if p.b.metaTitle == "" {
			p.b.metaTitle = text
		}
		p.b.heading(1, text)
	case p.level > 0:
		p.b.heading(p.level, text)
	default:
		p.b.block(text, false, 0, 0)
	}
	p.level = 0
	return nil
}

func (p *wordBody) startRow() {
	p.rows++
	p.cells = p.cells[:0]
}

func (p *wordBody) startCell() { p.cells = append(p.cells, new(strings.Builder)) }

// endRow ends a table row: an outermost one with text is a block.
func (p *wordBody) endRow() {
	p.rows--
	var kept []string
	for _, c := range p.cells {
		if c.Len() > 0 {
			kept = append(kept, c.String())
		}
	}
	if p.rows == 0 && len(kept) > 0 {
		p.b.block(strings.Join(kept, " | "), false, 0, 0)
	}
}

// extractPPTX reads the slides in presentation order: each a unit
// (source.LocSlide), its title shape a heading, each paragraph of its
// other shapes a block.
func extractPPTX(z *zipReader, fallback string) (Document, error) {
	slides, err := pptxSlides(z)
	if err != nil {
		return Document{}, err
	}
	if len(slides) == 0 {
		return Document{}, fmt.Errorf("%w: a presentation without slides", ErrNoText)
	}
	var b builder
	if z.has("docProps/core.xml") {
		if core, err := z.read("docProps/core.xml"); err == nil {
			b.metaTitle = firstText(core, "title")
		}
	}
	var text strings.Builder
	for i, name := range slides {
		data, err := z.read(name)
		if err != nil {
			return Document{}, err
		}
		n := strconv.Itoa(i + 1)
		b.unit = source.Location{Kind: source.LocSlide, Value: n}
		title, paras, err := pptxSlide(z.bud, data, name)
		if err != nil {
			return Document{}, err
		}
		if title == "" {
			title = "Slide " + n
		}
		// The slide's title is kept as a heading and in the text.
		if !z.bud.spend(2*len(title) + unitCost) {
			return Document{}, z.bud.over(name)
		}
		b.heading(1, title)
		text.WriteString("--- slide " + n + ": " + title + " ---\n")
		for _, p := range paras {
			b.block(p, false, 0, 0)
			text.WriteString(p + "\n\n")
		}
	}
	d := b.finish(fallback)
	d.Text = strings.TrimSpace(text.String())
	return d, nil
}

// pptxSlide returns a slide's title and the paragraphs of its other
// shapes, paying for each from bud as it is read.
func pptxSlide(bud *budget, data []byte, member string) (title string, paras []string, err error) {
	var (
		para    strings.Builder
		inText  bool
		isTitle bool // the shape being read is the slide's title
		titles  []string
	)
	err = xmlWalk(bud, data, member, func(tok xml.Token) error {
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "sp":
				isTitle = false
			case "ph":
				if t := attr(e, "type"); t == "title" || t == "ctrTitle" {
					isTitle = true
				}
			case "p":
				para.Reset()
			case "t":
				inText = true
			case "br", "tab":
				para.WriteByte(' ')
			}
		case xml.EndElement:
			switch e.Name.Local {
			case "t":
				inText = false
			case "p":
				if p := collapseSpace(para.String()); p != "" {
					if !bud.spend(len(p) + unitCost) {
						return bud.over(member)
					}
					if isTitle {
						titles = append(titles, p)
					} else {
						paras = append(paras, p)
					}
				}
				para.Reset()
			}
		case xml.CharData:
			if inText {
				if para.Len()+len(e) > bud.left {
					return bud.over(member)
				}
				para.Write(e)
			}
		}
		return nil
	})
	return strings.Join(titles, " "), paras, err
}

// pptxSlides returns the slide members in presentation order: as
// ppt/presentation.xml lists them, else by their numbers. A slide listed
// again is read once, where it is first listed; a presentation that
// lists more slides than it has members (one slide a million times) is
// ErrMalformed, found as soon as the count passes.
func pptxSlides(z *zipReader) ([]string, error) {
	targets := relTargets(z, "ppt/_rels/presentation.xml.rels", "ppt")
	var out []string
	seen := map[string]bool{}
	listed := 0
	if z.has("ppt/presentation.xml") {
		if data, err := z.read("ppt/presentation.xml"); err == nil {
			err := xmlWalk(z.bud, data, "ppt/presentation.xml", func(tok xml.Token) error {
				e, ok := tok.(xml.StartElement)
				if !ok || e.Name.Local != "sldId" {
					return nil
				}
				if listed++; listed > len(z.files) {
					return fmt.Errorf("%w: ppt/presentation.xml lists more slides than the file's %d members", ErrMalformed, len(z.files))
				}
				for _, a := range e.Attr {
					if a.Name.Local != "id" || a.Name.Space == "" {
						continue
					}
					if t, ok := targets[a.Value]; ok && !seen[t] && z.has(t) {
						seen[t] = true
						out = append(out, t)
					}
				}
				return nil
			})
			if errors.Is(err, ErrMalformed) && listed > len(z.files) {
				return nil, err
			}
		}
	}
	if len(out) > 0 {
		return out, nil
	}
	for _, n := range z.names() {
		if strings.HasPrefix(n, "ppt/slides/slide") && strings.HasSuffix(n, ".xml") {
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b string) int { return slideNumber(a) - slideNumber(b) })
	return out, nil
}

func slideNumber(name string) int {
	n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(name, "ppt/slides/slide"), ".xml"))
	return n
}

// relTargets reads a relationships member: Id → target member, resolved
// against the folder base.
func relTargets(z *zipReader, member, base string) map[string]string {
	out := map[string]string{}
	for _, r := range relations(z, member, base) {
		out[r.id] = r.target
	}
	return out
}

// relation is one Relationship of a relationships member.
type relation struct {
	id, typ, target string // target: a clean member name
}

type relationList []relation

// relations reads a relationships member, targets resolved against the
// folder base; an absent or unreadable member has none.
func relations(z *zipReader, member, base string) relationList {
	if !z.has(member) {
		return nil
	}
	data, err := z.read(member)
	if err != nil {
		return nil
	}
	var out relationList
	xmlWalk(z.bud, data, member, func(tok xml.Token) error {
		if e, ok := tok.(xml.StartElement); ok && e.Name.Local == "Relationship" {
			t := attr(e, "Target")
			if !strings.HasPrefix(t, "/") {
				t = path.Join(base, t)
			}
			out = append(out, relation{id: attr(e, "Id"), typ: attr(e, "Type"), target: cleanMember(t)})
		}
		return nil
	})
	return out
}

// of returns the target of the first relation whose type ends with
// suffix ("/styles"), else def.
func (rs relationList) of(suffix, def string) string {
	for _, r := range rs {
		if strings.HasSuffix(r.typ, suffix) {
			return r.target
		}
	}
	return def
}

// all returns the targets of the relations whose type ends with suffix.
func (rs relationList) all(suffix string) []string {
	var out []string
	for _, r := range rs {
		if strings.HasSuffix(r.typ, suffix) {
			out = append(out, r.target)
		}
	}
	return out
}
