package bib

import (
	"strings"

	"github.com/deepresearch/deepresearch/internal/canon"
)

// Markdown is one reference-list line for the reader, suited to the source
// type: a web page as [Title](URL) with its publisher and date, a local
// document as its title and file (`path`). The number is not included. A
// URL that is not http, https or file is never linked; markdown in titles
// is escaped so a title cannot open a link of its own.
func Markdown(r Reference) string {
	t := mdEscape(r.Location.Locate(title(r)))
	var b strings.Builder
	if kindOf(r) == local {
		b.WriteString(t)
		if p := clean(localPath(r)); p != "" && p != title(r) {
			b.WriteString(" — " + codeSpan(p))
		}
	} else {
		if canon.Linkable(r.URL) {
			b.WriteString("[" + t + "](" + mdURL(r.URL) + ")")
		} else {
			b.WriteString(t)
		}
	}
	var meta []string
	if p := clean(r.Publisher); p != "" {
		meta = append(meta, mdEscape(p))
	} else if c := clean(r.Container); c != "" {
		meta = append(meta, mdEscape(c))
	}
	if !r.Issued.IsZero() {
		meta = append(meta, r.Issued.iso())
	}
	if len(meta) > 0 {
		b.WriteString(", " + strings.Join(meta, ", "))
	}
	if d := doiOf(r); d != "" && !strings.Contains(r.URL, d) {
		b.WriteString(", doi:" + mdEscape(d))
	}
	if !r.Accessed.IsZero() && kindOf(r) == web {
		b.WriteString(" (retrieved " + r.Accessed.iso() + ")")
	}
	return b.String()
}

var mdEscaper = strings.NewReplacer(`\`, `\\`, `[`, `\[`, `]`, `\]`, `*`, `\*`, `_`, `\_`, "`", "\\`", `<`, `&lt;`, `>`, `&gt;`)

func mdEscape(s string) string { return mdEscaper.Replace(s) }

// mdURL keeps a URL from ending its link early.
func mdURL(u string) string {
	return strings.NewReplacer("(", "%28", ")", "%29", " ", "%20", "<", "%3C", ">", "%3E").Replace(u)
}

// codeSpan wraps s in enough backticks.
func codeSpan(s string) string {
	ticks := "`"
	for strings.Contains(s, ticks) {
		ticks += "`"
	}
	pad := ""
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		pad = " "
	}
	return ticks + pad + s + pad + ticks
}
