package finalreport

import (
	"bytes"
	"fmt"
	"html"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/events"
)

// Markdown returns the report text followed by its reference list, both in
// the style the text was rendered in.
func Markdown(r *Report, style citeproc.Style) string {
	var b strings.Builder
	b.WriteString(strings.TrimRight(r.Text, "\n"))
	if len(r.References) == 0 {
		b.WriteString("\n")
		return b.String()
	}
	b.WriteString("\n\n## References\n\n")
	for _, ref := range r.References {
		title := refTitle(ref.Source)
		switch style {
		case citeproc.Footnote:
			fmt.Fprintf(&b, "[^%d]: %s\n", ref.Number, mdLink(title, ref.URL))
		case citeproc.Plain:
			if ref.URL != "" {
				fmt.Fprintf(&b, "[%d] %s. %s  \n", ref.Number, title, ref.URL)
			} else {
				fmt.Fprintf(&b, "[%d] %s  \n", ref.Number, title)
			}
		case citeproc.HTML:
			fmt.Fprintf(&b, "<p id=\"ref-%d\">[%d] %s</p>\n", ref.Number, ref.Number, htmlLink(title, ref.URL))
		default:
			fmt.Fprintf(&b, "- [%d] %s\n", ref.Number, mdLink(title, ref.URL))
		}
	}
	return b.String()
}

func refTitle(s events.Source) string {
	if t := strings.Join(strings.Fields(s.Title), " "); t != "" {
		return t
	}
	return s.ID
}

func mdLink(title, url string) string {
	t := strings.NewReplacer("[", `\[`, "]", `\]`).Replace(title)
	if url == "" {
		return t
	}
	return "[" + t + "](" + strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29").Replace(url) + ")"
}

func htmlLink(title, url string) string {
	if url == "" {
		return html.EscapeString(title)
	}
	return `<a href="` + html.EscapeString(url) + `">` + html.EscapeString(title) + `</a>`
}

// HTML returns a standalone page: the report, with each citation a link to
// its entry in the reference list, and the reference list linking out.
func HTML(title string, r *Report) (string, error) {
	anchors := citeproc.NewMapping(nil)
	for _, ref := range r.References {
		src := ref.Source
		src.URL = "#ref-" + strconv.Itoa(ref.Number)
		if err := anchors.Add(ref.Number, src); err != nil {
			return "", fmt.Errorf("finalreport: html: %w", err)
		}
	}
	var md strings.Builder
	p := citeproc.New(&md, citeproc.Config{Mode: citeproc.Link, Style: citeproc.Markdown, Mapping: anchors})
	p.WriteString(r.Body)
	if err := p.Close(); err != nil {
		return "", fmt.Errorf("finalreport: html: %w", err)
	}
	var body bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM))
	if err := gm.Convert([]byte(md.String()), &body); err != nil {
		return "", fmt.Errorf("finalreport: html: %w", err)
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
a[href^="#ref-"]{text-decoration:none;font-size:.8em;vertical-align:super}
ol.references{font-size:.9em}
ol.references li:target{background:#fff3bf}
pre{overflow:auto;background:#f5f5f5;padding:.75rem}
</style>
</head>
<body>
<main>
`, html.EscapeString(title))
	b.Write(body.Bytes())
	b.WriteString("</main>\n")
	if len(r.References) > 0 {
		b.WriteString("<section>\n<h2>References</h2>\n<ol class=\"references\">\n")
		for _, ref := range r.References {
			fmt.Fprintf(&b, "<li id=\"ref-%d\" value=\"%d\">%s</li>\n", ref.Number, ref.Number, htmlLink(refTitle(ref.Source), ref.URL))
		}
		b.WriteString("</ol>\n</section>\n")
	}
	b.WriteString("</body>\n</html>\n")
	return b.String(), nil
}

// Claim is an entry of the citation sidecar: the JSON Pointer of a string
// field that holds a claim, and the reference numbers it cites.
type Claim struct {
	Path string `json:"path"`
	SIDs []int  `json:"sids"`
}

// Document is the report as structured data with the citation sidecar of
// the citation protocol: Blocks are the report's markdown blocks (with
// plain [n] markers); Citations say which references each block cites.
type Document struct {
	Question   string      `json:"question"`
	Text       string      `json:"text"`
	Blocks     []string    `json:"blocks"`
	References []Reference `json:"references"`
	Citations  []Claim     `json:"_citations"`
}

// JSON returns the report as a Document.
func JSON(question string, r *Report) (*Document, error) {
	refs := citeproc.NewMapping(nil)
	for _, ref := range r.References {
		if err := refs.Add(ref.Number, ref.Source); err != nil {
			return nil, fmt.Errorf("finalreport: json: %w", err)
		}
	}
	doc := &Document{Question: question, Text: r.Body, Blocks: Blocks(r.Body), References: r.References, Citations: []Claim{}}
	if doc.References == nil {
		doc.References = []Reference{}
	}
	for i, blk := range doc.Blocks {
		p := citeproc.New(discard{}, citeproc.Config{Mode: citeproc.Keep, Mapping: refs})
		p.WriteString(blk)
		p.Close()
		cited := p.Cited()
		if len(cited) == 0 {
			continue
		}
		claim := Claim{Path: "/blocks/" + strconv.Itoa(i)}
		for _, c := range cited {
			claim.SIDs = append(claim.SIDs, c.Number)
		}
		doc.Citations = append(doc.Citations, claim)
	}
	return doc, nil
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

// Blocks splits markdown into blocks at blank lines, keeping fenced code
// blocks whole.
func Blocks(md string) []string {
	var blocks []string
	var cur []string
	fence := ""
	flush := func() {
		if len(cur) > 0 {
			blocks = append(blocks, strings.Join(cur, "\n"))
			cur = cur[:0]
		}
	}
	for _, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case fence != "":
			cur = append(cur, line)
			if strings.HasPrefix(trimmed, fence) && strings.Trim(trimmed, fence[:1]) == "" {
				fence = ""
			}
			continue
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:3]
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
