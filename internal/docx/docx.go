// Package docx writes Office Open XML word-processing documents (.docx):
// the few parts a report needs (paragraphs in a fixed set of styles,
// lists, tables, bookmarks and hyperlinks), written directly with
// archive/zip and encoding/xml's escaping.
//
// Every string a Document is given is untrusted text: it is escaped, and
// the characters XML 1.0 forbids (most C0 controls, unpaired surrogates,
// U+FFFE and U+FFFF) are dropped, with DEL and the C1 controls, so that
// no text can break the document's markup. The only relationships a
// document has to anything outside it are hyperlinks to absolute http and
// https URLs; a link to anything else (file:, javascript:, a relative
// URL) is written as its text alone.
//
// Output is deterministic: the same calls give the same bytes (the zip
// members carry a fixed time and the core properties no date).
package docx

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// MediaType is the Internet media type of a .docx file.
const MediaType = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"

// Style is a paragraph style of the document's style sheet.
type Style string

// The paragraph styles. Title and the headings carry the names Word and
// other readers recognise ("Title", "heading 1" …), so that a reader's
// outline (and internal/extract) sees the document's structure.
const (
	Normal Style = "Normal"
	Title  Style = "Title"
	Code   Style = "Code"  // monospace, no spacing between lines
	Quote  Style = "Quote" // indented
	List   Style = "ListParagraph"
)

// Heading returns the style of a heading of level (1..6; clamped).
func Heading(level int) Style {
	return Style("Heading" + strconv.Itoa(min(max(level, 1), 6)))
}

// Run is a stretch of text with one formatting. Text may hold line
// breaks ("\n") and tabs, written as Word's own breaks and tabs.
type Run struct {
	Text                       string
	Bold, Italic, Strike, Code bool
	// Link is an absolute http or https URL the run links to; any other
	// value leaves the run unlinked.
	Link string
	// Anchor is the name of a bookmark of this document the run links
	// to (see Paragraph.Bookmark); it wins over Link.
	Anchor string
}

// Paragraph is a paragraph of runs.
type Paragraph struct {
	Style Style
	Runs  []Run
	// Bookmark, when set, names the paragraph as a link target (see
	// BookmarkName).
	Bookmark string
	// List is a list from Document.List the paragraph is an item of, at
	// Level (0 the outermost, up to 8); 0 when it is none.
	List, Level int
	// Rule draws a horizontal line under the paragraph.
	Rule bool
}

// Table is a table of rows of cells, each cell one paragraph's runs.
// With Header, the first row is a header row (bold, repeated on each
// page).
type Table struct {
	Rows   [][][]Run
	Header bool
}

// Document is a word-processing document being built. The zero value is
// not usable: call New.
type Document struct {
	title     string
	body      bytes.Buffer
	links     []string // external hyperlink targets, rId = "rIdL"+index+1
	linkIDs   map[string]int
	lists     []bool // by list id - 1: ordered
	starts    []int
	bookmarks int
}

// New starts a document whose core properties name title.
func New(title string) *Document {
	return &Document{title: Clean(title), linkIDs: map[string]int{}}
}

// List starts a new list, numbered (ordered, from start) or bulleted,
// and returns its id for Paragraph.List. Each list numbers on its own.
func (d *Document) List(ordered bool, start int) int {
	d.lists = append(d.lists, ordered)
	d.starts = append(d.starts, max(start, 0))
	return len(d.lists)
}

// BookmarkName turns name into a valid bookmark name: letters, digits
// and underscores, starting with a letter, at most 40 characters (Word's
// rules); anything else becomes "_".
func BookmarkName(name string) string {
	var b strings.Builder
	for _, r := range name {
		if b.Len() >= 40 {
			break
		}
		if r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s == "" || !unicode.IsLetter(rune(s[0])) {
		s = "b" + s
		s = s[:min(len(s), 40)]
	}
	return s
}

// Add writes a paragraph.
func (d *Document) Add(p Paragraph) {
	w := &d.body
	w.WriteString("<w:p>")
	d.pPr(p)
	if p.Bookmark != "" {
		fmt.Fprintf(w, `<w:bookmarkStart w:id="%d" w:name="%s"/>`, d.bookmarks, BookmarkName(p.Bookmark))
	}
	for _, r := range merge(p.Runs) {
		d.run(r, false)
	}
	if p.Bookmark != "" {
		fmt.Fprintf(w, `<w:bookmarkEnd w:id="%d"/>`, d.bookmarks)
		d.bookmarks++
	}
	w.WriteString("</w:p>")
}

// merge joins neighbouring runs of the same formatting and link into
// one, as a reader would see them.
func merge(runs []Run) []Run {
	var out []Run
	for _, r := range runs {
		if n := len(out); n > 0 {
			last := &out[n-1]
			a, b := *last, r
			a.Text, b.Text = "", ""
			if a == b {
				last.Text += r.Text
				continue
			}
		}
		out = append(out, r)
	}
	return out
}

// pPr writes a paragraph's properties.
func (d *Document) pPr(p Paragraph) {
	w := &d.body
	style := p.Style
	if style == "" {
		style = Normal
	}
	w.WriteString(`<w:pPr><w:pStyle w:val="` + string(style) + `"/>`)
	if p.List > 0 && p.List <= len(d.lists) {
		fmt.Fprintf(w, `<w:numPr><w:ilvl w:val="%d"/><w:numId w:val="%d"/></w:numPr>`, min(max(p.Level, 0), 8), p.List)
	}
	if p.Rule {
		w.WriteString(`<w:pBdr><w:bottom w:val="single" w:sz="6" w:space="1" w:color="auto"/></w:pBdr>`)
	}
	if rtl(p.Runs) {
		w.WriteString(`<w:bidi/>`)
	}
	w.WriteString(`</w:pPr>`)
}

// rtl reports whether the first letter of runs is of a right-to-left
// script: the paragraph then reads from the right.
func rtl(runs []Run) bool {
	for _, r := range runs {
		for _, c := range r.Text {
			if unicode.IsLetter(c) {
				return rtlLetter(c)
			}
		}
	}
	return false
}

func rtlLetter(c rune) bool {
	return unicode.In(c, unicode.Arabic, unicode.Hebrew, unicode.Syriac, unicode.Thaana, unicode.Nko)
}

// run writes a run, inside a hyperlink when it links; bold is forced on
// in header cells.
func (d *Document) run(r Run, bold bool) {
	w := &d.body
	text := Clean(r.Text)
	if text == "" {
		return
	}
	link := ""
	switch {
	case r.Anchor != "":
		fmt.Fprintf(w, `<w:hyperlink w:anchor="%s" w:history="1">`, BookmarkName(r.Anchor))
		link = "anchor"
	case external(r.Link) != "":
		target := external(r.Link)
		id, ok := d.linkIDs[target]
		if !ok {
			d.links = append(d.links, target)
			id = len(d.links)
			d.linkIDs[target] = id
		}
		fmt.Fprintf(w, `<w:hyperlink r:id="rIdL%d" w:history="1">`, id)
		link = "url"
	}
	w.WriteString("<w:r>")
	var props strings.Builder
	if link != "" {
		props.WriteString(`<w:rStyle w:val="Hyperlink"/>`)
	} else if r.Code {
		props.WriteString(`<w:rStyle w:val="CodeChar"/>`)
	}
	if r.Bold || bold {
		props.WriteString("<w:b/>")
	}
	if r.Italic {
		props.WriteString("<w:i/>")
	}
	if r.Strike {
		props.WriteString("<w:strike/>")
	}
	if strings.ContainsFunc(text, rtlLetter) {
		props.WriteString("<w:rtl/>")
	}
	if props.Len() > 0 {
		w.WriteString("<w:rPr>" + props.String() + "</w:rPr>")
	}
	for i, line := range strings.Split(text, "\n") {
		if i > 0 {
			w.WriteString("<w:br/>")
		}
		for j, part := range strings.Split(line, "\t") {
			if j > 0 {
				w.WriteString("<w:tab/>")
			}
			if part != "" {
				w.WriteString(`<w:t xml:space="preserve">`)
				xml.EscapeText(w, []byte(part))
				w.WriteString("</w:t>")
			}
		}
	}
	w.WriteString("</w:r>")
	if link != "" {
		w.WriteString("</w:hyperlink>")
	}
}

// external is raw as a hyperlink target when it is an absolute http or
// https URL with a host, re-encoded by net/url; "" otherwise.
func external(raw string) string {
	if raw == "" || Clean(raw) != raw || strings.ContainsAny(raw, "\t\n") {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Opaque != "" || u.User != nil {
		return ""
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		return u.String()
	}
	return ""
}

// AddTable writes a table. A row shorter than the longest is padded with
// empty cells.
func (d *Document) AddTable(t Table) {
	cols := 0
	for _, row := range t.Rows {
		cols = max(cols, len(row))
	}
	if cols == 0 {
		return
	}
	w := &d.body
	w.WriteString(`<w:tbl><w:tblPr><w:tblStyle w:val="TableGrid"/><w:tblW w:w="5000" w:type="pct"/></w:tblPr><w:tblGrid>`)
	for range cols {
		fmt.Fprintf(w, `<w:gridCol w:w="%d"/>`, 9000/cols)
	}
	w.WriteString("</w:tblGrid>")
	for i, row := range t.Rows {
		header := t.Header && i == 0
		w.WriteString("<w:tr>")
		if header {
			w.WriteString("<w:trPr><w:tblHeader/></w:trPr>")
		}
		for c := range cols {
			// A cell must hold a paragraph, even an empty one.
			w.WriteString(`<w:tc><w:tcPr><w:tcW w:w="0" w:type="auto"/></w:tcPr><w:p>`)
			if c < len(row) {
				d.pPr(Paragraph{Style: Normal, Runs: row[c]})
				for _, r := range merge(row[c]) {
					d.run(r, header)
				}
			}
			w.WriteString("</w:p></w:tc>")
		}
		w.WriteString("</w:tr>")
	}
	w.WriteString("</w:tbl>")
}

// Clean returns s as XML 1.0 allows it in text, less controls: valid
// UTF-8 (invalid bytes become U+FFFD), without the C0 controls but tab,
// line feed (a carriage return becomes a line feed), without DEL, the C1
// controls, U+FFFE and U+FFFF.
func Clean(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n':
			return r
		case r == '\r':
			return '\n'
		case r < 0x20 || r >= 0x7f && r <= 0x9f || r == 0xfffe || r == 0xffff:
			return -1
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD"))
}

// Bytes returns the document as a .docx file.
func (d *Document) Bytes() ([]byte, error) {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for _, part := range []struct{ name, data string }{
		{"[Content_Types].xml", contentTypes},
		{"_rels/.rels", packageRels},
		{"docProps/core.xml", d.core()},
		{"docProps/app.xml", appProps},
		{"word/_rels/document.xml.rels", d.documentRels()},
		{"word/document.xml", d.document()},
		{"word/styles.xml", styles},
		{"word/numbering.xml", d.numbering()},
		{"word/settings.xml", settings},
	} {
		// A fixed time: the same document gives the same bytes.
		f, err := z.CreateHeader(&zip.FileHeader{Name: part.name, Method: zip.Deflate, Modified: epoch})
		if err != nil {
			return nil, fmt.Errorf("docx: %s: %w", part.name, err)
		}
		if _, err := f.Write([]byte(part.data)); err != nil {
			return nil, fmt.Errorf("docx: %s: %w", part.name, err)
		}
	}
	if err := z.Close(); err != nil {
		return nil, fmt.Errorf("docx: %w", err)
	}
	return buf.Bytes(), nil
}

var epoch = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// escape is s cleaned and escaped for XML text or an attribute value.
func escape(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(Clean(s)))
	return b.String()
}

const xmlHeader = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n"

const (
	nsW = `http://schemas.openxmlformats.org/wordprocessingml/2006/main`
	nsR = `http://schemas.openxmlformats.org/officeDocument/2006/relationships`
)

func (d *Document) document() string {
	return xmlHeader + `<w:document xmlns:w="` + nsW + `" xmlns:r="` + nsR + `"><w:body>` + d.body.String() +
		`<w:sectPr><w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="708" w:footer="708" w:gutter="0"/></w:sectPr></w:body></w:document>`
}

func (d *Document) core() string {
	return xmlHeader + `<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/">` +
		`<dc:title>` + escape(strings.ReplaceAll(d.title, "\n", " ")) + `</dc:title><dc:creator>deepresearch</dc:creator></cp:coreProperties>`
}

func (d *Document) documentRels() string {
	var b strings.Builder
	b.WriteString(xmlHeader + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">`)
	b.WriteString(`<Relationship Id="rIdStyles" Type="` + nsR + `/styles" Target="styles.xml"/>`)
	b.WriteString(`<Relationship Id="rIdNumbering" Type="` + nsR + `/numbering" Target="numbering.xml"/>`)
	b.WriteString(`<Relationship Id="rIdSettings" Type="` + nsR + `/settings" Target="settings.xml"/>`)
	for i, target := range d.links {
		fmt.Fprintf(&b, `<Relationship Id="rIdL%d" Type="%s/hyperlink" Target="%s" TargetMode="External"/>`, i+1, nsR, escape(target))
	}
	b.WriteString(`</Relationships>`)
	return b.String()
}

// numbering is one abstract numbering for bullets and one for numbers,
// and one instance per list, each restarting at its start.
func (d *Document) numbering() string {
	var b strings.Builder
	b.WriteString(xmlHeader + `<w:numbering xmlns:w="` + nsW + `">`)
	for id, ordered := range []bool{false, true} {
		fmt.Fprintf(&b, `<w:abstractNum w:abstractNumId="%d"><w:multiLevelType w:val="hybridMultilevel"/>`, id)
		for lvl := range 9 {
			format, text := "bullet", []string{"•", "◦", "▪"}[lvl%3]
			if ordered {
				format, text = []string{"decimal", "lowerLetter", "lowerRoman"}[lvl%3], "%"+strconv.Itoa(lvl+1)+"."
			}
			fmt.Fprintf(&b, `<w:lvl w:ilvl="%d"><w:start w:val="1"/><w:numFmt w:val="%s"/><w:lvlText w:val="%s"/><w:lvlJc w:val="left"/>`+
				`<w:pPr><w:ind w:left="%d" w:hanging="360"/></w:pPr></w:lvl>`, lvl, format, text, 720*(lvl+1))
		}
		b.WriteString(`</w:abstractNum>`)
	}
	for i, ordered := range d.lists {
		abstract := 0
		if ordered {
			abstract = 1
		}
		fmt.Fprintf(&b, `<w:num w:numId="%d"><w:abstractNumId w:val="%d"/><w:lvlOverride w:ilvl="0"><w:startOverride w:val="%d"/></w:lvlOverride></w:num>`,
			i+1, abstract, max(d.starts[i], 1))
	}
	b.WriteString(`</w:numbering>`)
	return b.String()
}

const contentTypes = xmlHeader + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
	`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
	`<Default Extension="xml" ContentType="application/xml"/>` +
	`<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>` +
	`<Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>` +
	`<Override PartName="/word/numbering.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"/>` +
	`<Override PartName="/word/settings.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml"/>` +
	`<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>` +
	`<Override PartName="/docProps/app.xml" ContentType="application/vnd.openxmlformats-officedocument.extended-properties+xml"/>` +
	`</Types>`

const packageRels = xmlHeader + `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
	`<Relationship Id="rId1" Type="` + nsR + `/officeDocument" Target="word/document.xml"/>` +
	`<Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/>` +
	`<Relationship Id="rId3" Type="` + nsR + `/extended-properties" Target="docProps/app.xml"/>` +
	`</Relationships>`

const appProps = xmlHeader + `<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Application>deepresearch</Application></Properties>`

const settings = xmlHeader + `<w:settings xmlns:w="` + nsW + `"><w:defaultTabStop w:val="720"/><w:compat><w:compatSetting w:name="compatibilityMode" w:uri="http://schemas.microsoft.com/office/word" w:val="15"/></w:compat></w:settings>`

// styles is the style sheet: body text in a sans-serif face (with a CJK
// face for East Asian text and a complex-script face for Arabic and
// Hebrew, where the reader has them), the title and six headings, code
// in a monospace face, quotes, list paragraphs, hyperlinks and a table
// grid.
var styles = func() string {
	var b strings.Builder
	b.WriteString(xmlHeader + `<w:styles xmlns:w="` + nsW + `">`)
	b.WriteString(`<w:docDefaults><w:rPrDefault><w:rPr><w:rFonts w:ascii="Calibri" w:hAnsi="Calibri" w:eastAsia="Noto Sans CJK SC" w:cs="Noto Naskh Arabic"/>` +
		`<w:sz w:val="22"/><w:szCs w:val="22"/><w:lang w:val="en-US" w:eastAsia="zh-CN" w:bidi="ar-SA"/></w:rPr></w:rPrDefault>` +
		`<w:pPrDefault><w:pPr><w:spacing w:after="160" w:line="264" w:lineRule="auto"/></w:pPr></w:pPrDefault></w:docDefaults>`)
	b.WriteString(`<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/><w:qFormat/></w:style>`)
	b.WriteString(`<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:qFormat/>` +
		`<w:pPr><w:spacing w:after="240"/></w:pPr><w:rPr><w:b/><w:sz w:val="48"/><w:szCs w:val="48"/></w:rPr></w:style>`)
	sizes := []int{36, 30, 26, 24, 22, 22}
	for i, sz := range sizes {
		fmt.Fprintf(&b, `<w:style w:type="paragraph" w:styleId="Heading%d"><w:name w:val="heading %d"/><w:basedOn w:val="Normal"/><w:next w:val="Normal"/><w:qFormat/>`+
			`<w:pPr><w:keepNext/><w:spacing w:before="240" w:after="120"/><w:outlineLvl w:val="%d"/></w:pPr><w:rPr><w:b/><w:sz w:val="%d"/><w:szCs w:val="%d"/></w:rPr></w:style>`,
			i+1, i+1, i, sz, sz)
	}
	const mono = `<w:rFonts w:ascii="Consolas" w:hAnsi="Consolas" w:cs="Consolas" w:eastAsia="Noto Sans Mono CJK SC"/>`
	b.WriteString(`<w:style w:type="paragraph" w:styleId="Code"><w:name w:val="Code"/><w:basedOn w:val="Normal"/><w:qFormat/>` +
		`<w:pPr><w:shd w:val="clear" w:color="auto" w:fill="F5F5F5"/><w:spacing w:after="0" w:line="240" w:lineRule="auto"/></w:pPr><w:rPr>` + mono + `<w:sz w:val="20"/><w:szCs w:val="20"/></w:rPr></w:style>`)
	b.WriteString(`<w:style w:type="paragraph" w:styleId="Quote"><w:name w:val="Quote"/><w:basedOn w:val="Normal"/><w:qFormat/>` +
		`<w:pPr><w:ind w:left="720" w:right="720"/></w:pPr><w:rPr><w:i/></w:rPr></w:style>`)
	b.WriteString(`<w:style w:type="paragraph" w:styleId="ListParagraph"><w:name w:val="List Paragraph"/><w:basedOn w:val="Normal"/><w:qFormat/>` +
		`<w:pPr><w:spacing w:after="60"/><w:contextualSpacing/></w:pPr></w:style>`)
	b.WriteString(`<w:style w:type="character" w:styleId="CodeChar"><w:name w:val="Code Char"/><w:rPr>` + mono + `<w:sz w:val="20"/><w:szCs w:val="20"/></w:rPr></w:style>`)
	b.WriteString(`<w:style w:type="character" w:styleId="Hyperlink"><w:name w:val="Hyperlink"/><w:rPr><w:color w:val="0563C1"/><w:u w:val="single"/></w:rPr></w:style>`)
	b.WriteString(`<w:style w:type="table" w:styleId="TableGrid"><w:name w:val="Table Grid"/><w:tblPr><w:tblBorders>`)
	for _, side := range []string{"top", "left", "bottom", "right", "insideH", "insideV"} {
		b.WriteString(`<w:` + side + ` w:val="single" w:sz="4" w:space="0" w:color="auto"/>`)
	}
	b.WriteString(`</w:tblBorders><w:tblCellMar><w:left w:w="108" w:type="dxa"/><w:right w:w="108" w:type="dxa"/></w:tblCellMar></w:tblPr></w:style>`)
	b.WriteString(`</w:styles>`)
	return b.String()
}()
