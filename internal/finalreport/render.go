package finalreport

import (
	"fmt"
	"html"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/internal/mdtext"
	"github.com/deepresearch/deepresearch/internal/sourcetext"
	"github.com/deepresearch/deepresearch/source"
)

// Markdown returns the report text followed by its reference list, both in
// the style the text was rendered in. The text is the model's, quoting
// documents and the question: its raw HTML and its links a reader should
// not follow are neutralised (mdtext.Defang), as HTML neutralises them.
func Markdown(r *Report, style citeproc.Style) string {
	var b strings.Builder
	b.WriteString(strings.TrimRight(mdtext.Defang(r.Text), "\n"))
	if len(r.References) == 0 {
		b.WriteString("\n")
		return b.String()
	}
	b.WriteString("\n\n## References\n\n")
	b.WriteString(References(r.References, style))
	return b.String()
}

// htmlTier is an HTML reference entry's tier, " (tier: primary)", or "".
func htmlTier(s source.Source) string {
	if t := sourcetext.Clean(s.Tier); t != "" {
		return " (tier: " + html.EscapeString(t) + ")"
	}
	return ""
}

func htmlLink(title, url string) string {
	if url = canon.Link(url); url == "" {
		return html.EscapeString(title)
	}
	return `<a href="` + html.EscapeString(url) + `">` + html.EscapeString(title) + `</a>`
}

// HTML returns a standalone page: the report, with each citation a link to
// its entry in the reference list, and the reference list linking out. Its
// body is HTMLFragment's with no options.
func HTML(title string, r *Report) (string, error) {
	frag, err := HTMLFragment(r, HTMLOptions{})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>%s</title>
<style>
body{max-width:46rem;margin:2rem auto;padding:0 1rem;font:16px/1.6 system-ui,sans-serif;color:#1b1b1b}
sup.cite a{text-decoration:none}
ol.references{font-size:.9em}
ol.references li:target{background:#fff3bf}
pre{overflow:auto;background:#f5f5f5;padding:.75rem}
</style>
</head>
<body>
`, html.EscapeString(title))
	b.WriteString(frag)
	b.WriteString("</body>\n</html>\n")
	return b.String(), nil
}

// anchored is the report as markdown whose citations link to their
// entries in the reference list, "[2](#ref-2)": what the HTML and DOCX
// renderings convert. It is rendered from the writer's text with each
// source's URL replaced by its anchor; FirstCited numbers as Write did.
func (r *Report) anchored() (string, error) {
	v, err := r.view()
	if err != nil {
		return "", err
	}
	anchors := citeproc.NewMapping(nil)
	for _, n := range v.global.Numbers() {
		src, _ := v.global.Lookup(n)
		if d, cited := v.display[n]; cited {
			src.URL = "#ref-" + strconv.Itoa(d)
		}
		if err := anchors.Add(n, src); err != nil {
			return "", err
		}
	}
	var md strings.Builder
	p := citeproc.New(&md, citeproc.Config{Mode: citeproc.Link, Style: citeproc.Markdown, Mapping: anchors, Numberer: numberer(r.Sources)})
	p.WriteString(v.raw)
	if err := p.Close(); err != nil {
		return "", err
	}
	return md.String(), nil
}

// view is what the HTML and JSON renderings work from: the draft with its
// merged numbering and each cited number's reference number. For a
// Report with no Draft (one built from Body and References alone) it is
// Body, numbered by its References, taken as given.
type view struct {
	raw     string
	global  *citeproc.Mapping
	display map[int]int // merged number → reference number
	keep    bool        // raw is a Body already numbered 1..K
}

func (r *Report) view() (*view, error) {
	v := &view{display: map[int]int{}}
	if r.Draft == "" {
		v.raw, v.keep = r.Body, true
		v.global = citeproc.NewMapping(nil)
		for _, ref := range r.References {
			if err := v.global.Add(ref.Number, ref.Source); err != nil {
				return nil, err
			}
			v.display[ref.Number] = ref.Number
		}
		return v, nil
	}
	global, err := collapse.Mapping(r.Sources)
	if err != nil {
		return nil, err
	}
	v.raw, v.global = r.Draft, global
	// The reference numbers Publish gave: the same processor over the
	// same text numbers the same citations the same way.
	p := citeproc.New(io.Discard, citeproc.Config{
		Mode: citeproc.Link, Style: citeproc.Plain, Mapping: global, Numberer: numberer(r.Sources),
		Hooks: citeproc.Hooks{Citation: func(c citeproc.Citation) { v.display[c.Number] = c.Display }},
	})
	p.WriteString(r.Draft)
	if err := p.Close(); err != nil {
		return nil, err
	}
	return v, nil
}

// JSON returns the report as a Document; x tells what the document says
// of the run beyond the report (the sources' texts, the rounds, the
// verification).
func JSON(question string, r *Report, x Extra) (*Document, error) {
	v, err := r.view()
	if err != nil {
		return nil, fmt.Errorf("finalreport: json: %w", err)
	}
	mode := citeproc.Link
	if v.keep {
		mode = citeproc.Keep // Body as given: its markers are reference numbers
	}
	doc := &Document{Question: question, Text: r.Body, Blocks: []string{}, References: r.References, Citations: []Claim{}}
	if doc.References == nil {
		doc.References = []Reference{}
	}
	// Each block of the writer's text is rendered on its own with the
	// report's numbering, so a block's citations are known from the
	// source, not by re-reading the rendered block.
	number := citeproc.NumbererFunc(func(n int, _ source.Source) int { return v.display[n] })
	for _, raw := range Blocks(v.raw) {
		var sb strings.Builder
		p := citeproc.New(&sb, citeproc.Config{Mode: mode, Style: citeproc.Plain, Mapping: v.global, Numberer: number})
		p.WriteString(raw)
		p.Close()
		blk := strings.TrimSpace(sb.String())
		if blk == "" {
			continue // a block that was only dropped markers
		}
		doc.Blocks = append(doc.Blocks, blk)
		cited := p.Cited()
		if len(cited) == 0 {
			continue
		}
		claim := Claim{Path: "/blocks/" + strconv.Itoa(len(doc.Blocks)-1)}
		for _, c := range cited {
			if !slices.Contains(claim.SIDs, c.Display) { // two pages of one reference: one sid
				claim.SIDs = append(claim.SIDs, c.Display)
			}
		}
		doc.Citations = append(doc.Citations, claim)
	}
	envelope(doc, r, v, x)
	return doc, nil
}

// Blocks splits markdown into blocks at blank lines, keeping fenced code
// blocks whole.
func Blocks(md string) []string {
	var blocks []string
	var cur []string
	var fenceChar byte // of the open fence, 0 when none
	fenceLen := 0
	flush := func() {
		if len(cur) > 0 {
			blocks = append(blocks, strings.Join(cur, "\n"))
			cur = cur[:0]
		}
	}
	for _, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimSpace(line)
		run := func(c byte) int { return len(trimmed) - len(strings.TrimLeft(trimmed, string(c))) }
		switch {
		case fenceChar != 0:
			cur = append(cur, line)
			if n := run(fenceChar); n >= fenceLen && n == len(trimmed) {
				fenceChar = 0
			}
			continue
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			fenceChar = trimmed[0]
			fenceLen = run(fenceChar)
			cur = append(cur, line)
			continue
		case trimmed == "":
			flush()
			continue
		}
		cur = append(cur, line)
	}
	flush()
	if blocks == nil {
		blocks = []string{}
	}
	return blocks
}
