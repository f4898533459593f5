package finalreport

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"github.com/deepresearch/deepresearch/internal/sourcetext"
	"github.com/deepresearch/deepresearch/internal/verify"
)

// HTMLOptions are what a page that shows a stored run adds to the HTML
// report (HTMLFragment); the zero value is the standalone page's.
type HTMLOptions struct {
	// SourceHref returns where reference n's stored text is served ("" for
	// none); nil for nowhere. Each entry of the reference list then links
	// to it beside the source's own URL.
	SourceHref func(n int) string
	// Verified is what checking the citations found: each citation then
	// says whether its source supports it (data-verdict, and in its
	// link's title), and each reference lists its problems. Nil: not
	// said.
	Verified *Verified
}

// HTMLFragment renders the report as HTML without the page around it: a
// <main> holding the report, each citation (a pinpoint's too, "[1, p.
// 4]") a <sup class="cite"> linking to its entry in the reference list,
// then a <section class="references"> listing each reference with its
// locations, authors, date and source type. Everything from the model
// and the sources is escaped (goldmark in safe mode drops raw HTML), and
// only URLs canon.Link accepts become links: what HTML wraps in a page,
// and what the served page shows of a stored run.
func HTMLFragment(r *Report, opts HTMLOptions) (string, error) {
	md, err := r.anchored()
	if err != nil {
		return "", fmt.Errorf("finalreport: html: %w", err)
	}
	titles := make(map[int]string, len(r.References))
	for _, ref := range r.References {
		titles[ref.Number] = ref.Label()
	}
	ext := citeHTML{titles: titles}
	if opts.Verified != nil {
		ext.verdicts = citationVerdicts(r.Body, opts.Verified.Problems)
	}
	var body bytes.Buffer
	gm := goldmark.New(goldmark.WithExtensions(extension.GFM, ext))
	if err := gm.Convert([]byte(md), &body); err != nil {
		return "", fmt.Errorf("finalreport: html: %w", err)
	}
	var b strings.Builder
	b.WriteString("<main>\n")
	b.Write(body.Bytes())
	b.WriteString("</main>\n")
	if len(r.References) == 0 {
		return b.String(), nil
	}
	problems := map[int][]verify.Problem{}
	if opts.Verified != nil {
		for _, p := range opts.Verified.Problems {
			if p.Number > 0 {
				problems[p.Number] = append(problems[p.Number], p)
			}
		}
	}
	b.WriteString("<section class=\"references\">\n<h2>References</h2>\n<ol class=\"references\">\n")
	for _, ref := range r.References {
		fmt.Fprintf(&b, "<li id=\"ref-%d\" value=\"%d\">%s", ref.Number, ref.Number, htmlLink(ref.Label(), ref.URL))
		if a := strings.Join(ref.Authors(), ", "); a != "" {
			b.WriteString(" — " + html.EscapeString(a))
		}
		if d := ref.Dated(); d != "" {
			b.WriteString(" (" + d + ")") // digits, dashes and a fixed word: nothing to escape
		}
		b.WriteString(htmlTier(ref.Source))
		if ch := sourcetext.Clean(ref.Channel); ch != "" {
			fmt.Fprintf(&b, " <span class=\"channel\">%s</span>", html.EscapeString(ch))
		}
		if opts.SourceHref != nil {
			if href := opts.SourceHref(ref.Number); href != "" {
				fmt.Fprintf(&b, " <a class=\"stored\" href=\"%s\">stored text</a>", html.EscapeString(href))
			}
		}
		if opts.Verified != nil {
			ps := problems[ref.Number]
			if len(ps) == 0 {
				b.WriteString(" <span class=\"verdict supported\">supported</span>")
			} else {
				b.WriteString("\n<ul class=\"problems\">\n")
				for _, p := range ps {
					fmt.Fprintf(&b, "<li class=\"verdict %s\">%s, line %d: %s</li>\n", html.EscapeString(string(p.Kind)), html.EscapeString(string(p.Kind)), p.Line, html.EscapeString(p.Message))
				}
				b.WriteString("</ul>\n")
			}
		}
		b.WriteString("</li>\n")
	}
	b.WriteString("</ol>\n</section>\n")
	return b.String(), nil
}

// bodyMarker is a bracketed citation of Report.Body: its numbers, then
// perhaps a pinpoint ("[1, 2]", "[3, p. 4]").
var bodyMarker = regexp.MustCompile(`\[(\d+(?:\s*,\s*\d+)*)(?:,\s*[^\]\d][^\]]*)?\]`)

// citationVerdicts says, for each reference number, what verification
// found of each of its citations in the order Body cites it: "supported",
// or the kind of the problem found on that citation's line. The HTML is
// rendered from the same draft as Body, so its citations of a number come
// in the same order; the renderer uses the verdicts only when their count
// is the number's count of citations in the HTML.
func citationVerdicts(body string, problems []verify.Problem) map[int][]string {
	bad := map[[2]int]string{} // number, line → problem kind
	for _, p := range problems {
		if p.Number > 0 && p.Line > 0 {
			if _, seen := bad[[2]int{p.Number, p.Line}]; !seen {
				bad[[2]int{p.Number, p.Line}] = string(p.Kind)
			}
		}
	}
	out := map[int][]string{}
	for i, line := range strings.Split(body, "\n") {
		for _, m := range bodyMarker.FindAllStringSubmatch(line, -1) {
			for num := range strings.SplitSeq(m[1], ",") {
				n, err := strconv.Atoi(strings.TrimSpace(num))
				if err != nil {
					continue
				}
				verdict := "supported"
				if kind, ok := bad[[2]int{n, i + 1}]; ok {
					verdict = kind
				}
				out[n] = append(out[n], verdict)
			}
		}
	}
	return out
}
