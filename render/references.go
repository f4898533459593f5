package render

import (
	"fmt"
	"html"
	"strings"

	"github.com/deepresearch/deepresearch/cite"
	"github.com/deepresearch/deepresearch/internal/bib"
	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/mdtext"
	"github.com/deepresearch/deepresearch/internal/sourcetext"
	"github.com/deepresearch/deepresearch/source"
)

// References renders a reference list alone: in Markdown, the lines of a
// report's "## References" section, in style (the one renderer of
// reference lines, which reports, findings and the MCP citation index
// share; titles are escaped, and only http, https and file URLs linked):
// a web page is cited by its title, linked, and its date after the link
// ("[Title](https://…) (2024-03-15)"), a local document by its folder and
// file, then its title ("docs/faq.md — FAQ"); in CSL as CSL-JSON, or in
// BibTeX ("" is Markdown). Other formats are an error wrapping ErrFormat.
func References(refs []Reference, format Format, style cite.Style) ([]byte, error) {
	switch format {
	case "", Markdown:
		form := listMarkdown
		switch style {
		case citeproc.Footnote:
			form = listFootnote
		case citeproc.Plain:
			form = listPlain
		case citeproc.HTML:
			form = listHTML
		}
		return []byte(list(refs, form)), nil
	case CSL, BibTeX:
		brefs := make([]bib.Reference, len(refs))
		for i, ref := range refs {
			brefs[i] = bib.Reference{Number: ref.Number, Source: ref.Source, Locations: ref.Locations}
		}
		if format == BibTeX {
			return bib.BibTeX(brefs), nil
		}
		return bib.CSLJSON(brefs)
	}
	return nil, fmt.Errorf("deepresearch: render references: %w %q: want md, csl-json or bibtex", ErrFormat, format)
}

// ReferenceIndex renders a reference list in the citation index's export
// form (the MCP citation_export tool's markdown): one line per reference,
// "[1] Title — channel (URL)", escaped as every reference line is. It is
// References' renderer in another form.
func ReferenceIndex(refs []Reference) string { return list(refs, listIndex) }

// A listForm is a form of reference line: one per citation style, and
// the citation index's export.
type listForm int

// The forms of reference line.
const (
	listMarkdown listForm = iota // - [1] [Title](URL) — Author (2024-03-15)
	listPlain                    // [1] Title. URL
	listFootnote                 // [^1]: [Title](URL)
	listHTML                     // <p id="ref-1">[1] <a href="URL">Title</a></p>
	// listIndex is the MCP citation index's export, a contract of its
	// own: "[1] Title — channel (URL)", one line each.
	listIndex
)

// list renders a reference list's lines, one per reference, in form: the
// one renderer of reference lines (reports, findings, the MCP citation
// index's export). Titles come from Source.Label and, like authors,
// channels and URLs shown as text, are escaped by internal/mdtext, so that neither can
// make a link or carry HTML; a URL is linked only when canon.Linkable
// allows it.
func list(refs []Reference, form listForm) string {
	var b strings.Builder
	for _, ref := range refs {
		title, date := ref.Label(), dated(ref.Source)
		if t := sourcetext.Clean(ref.Tier); t != "" && form != listIndex {
			// The tier, after the date: "(2024-03-15) (tier: primary)".
			if form == listHTML {
				date += " (tier: " + html.EscapeString(t) + ")"
			} else {
				date += " (tier: " + mdtext.Escape(t) + ")"
			}
		}
		if a := byline(ref.Source); a != "" {
			// The authors, between the title and the date: "[Title](URL) —
			// Jane Doe, John Roe (2024-03-15)".
			if form == listHTML {
				date = " — " + html.EscapeString(a) + date
			} else if form != listIndex {
				date = " — " + mdtext.Escape(a) + date
			}
		}
		switch form {
		case listFootnote:
			fmt.Fprintf(&b, "[^%d]: %s%s\n", ref.Number, mdtext.Link(title, ref.URL), date)
		case listPlain:
			if ref.URL != "" {
				fmt.Fprintf(&b, "[%d] %s%s. %s  \n", ref.Number, mdtext.Escape(title), date, mdtext.URLText(ref.URL))
			} else {
				fmt.Fprintf(&b, "[%d] %s%s  \n", ref.Number, mdtext.Escape(title), date)
			}
		case listIndex:
			// An untitled source is shown by its URL, as a URL is shown
			// (not escaped as a title: no "https\://"), and only once.
			untitled := sourcetext.Clean(ref.Title) == "" && ref.URL != ""
			if untitled {
				fmt.Fprintf(&b, "[%d] %s%s", ref.Number, mdtext.URLText(ref.URL), date)
			} else {
				fmt.Fprintf(&b, "[%d] %s%s", ref.Number, mdtext.Escape(title), date)
			}
			if ch := sourcetext.Clean(ref.Channel); ch != "" {
				b.WriteString(" — " + mdtext.Escape(ch))
			}
			if ref.URL != "" && !untitled {
				b.WriteString(" (" + mdtext.URLText(ref.URL) + ")")
			}
			b.WriteByte('\n')
		case listHTML:
			fmt.Fprintf(&b, "<p id=\"ref-%d\">[%d] %s%s</p>\n", ref.Number, ref.Number, htmlLink(title, ref.URL), date)
		default:
			fmt.Fprintf(&b, "- [%d] %s%s\n", ref.Number, mdtext.Link(title, ref.URL), date)
		}
	}
	return b.String()
}

// byline is a reference line's authors: Source.Authors, joined by ", "
// ("" when none).
func byline(s source.Source) string {
	return strings.Join(s.Authors(), ", ")
}

// dated is the date a reference line shows after the source's title or
// link, " (2024-03-15)" or " (updated 2024-03-15)", or "". It is made of
// digits, dashes and a fixed word, so it needs no escaping.
func dated(s source.Source) string {
	if d := s.Dated(); d != "" {
		return " (" + d + ")"
	}
	return ""
}

// htmlLink is an HTML link to url, titled title, escaped; title alone
// when canon.Link does not allow url.
func htmlLink(title, url string) string {
	if url = canon.Link(url); url == "" {
		return html.EscapeString(title)
	}
	return `<a href="` + html.EscapeString(url) + `">` + html.EscapeString(title) + `</a>`
}
