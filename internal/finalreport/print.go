package finalreport

import (
	"fmt"
	"html"
	"strings"
)

// PrintHTML returns the page a PDF of the report is printed from: the
// title as its first heading (unless the report opens with that heading
// itself), HTMLFragment's report and reference list
// (each citation a link to its entry, each entry's link followed by its
// URL written out, as a printed page must show it, and with v the verdict
// of each citation and reference), then a "Verification" section telling
// what checking the citations found (v; nil: that the report was not
// verified), as DOCX tells it. Its style sheet lays it out on A4 pages
// with margins, keeps headings with what follows them, repeats table
// headers on each page, wraps code and long URLs, and sets each paragraph's
// direction by its first letter (Arabic and Hebrew right to left; the
// reference list stays left to right, each title isolated), in the
// Noto faces that cover the scripts a report is written in. A
// Content-Security-Policy forbids every outside resource: the browser
// that prints it fetches nothing (an image the report links shows as its
// alternative text's box, not fetched).
func PrintHTML(title string, r *Report, v *Verified) (string, error) {
	frag, err := HTMLFragment(r, HTMLOptions{Verified: v})
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html>
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="%s">
<title>%s</title>
<style>
%s</style>
</head>
<body>
`, printCSP, html.EscapeString(title), printCSS)
	if t := html.EscapeString(title); !strings.HasPrefix(frag, "<main>\n<h1>"+t+"</h1>\n") {
		b.WriteString("<h1 class=\"title\">" + t + "</h1>\n")
	}
	b.WriteString(frag)
	b.WriteString("<section class=\"verification\">\n<h2>Verification</h2>\n")
	paras, problems := verificationText(v)
	for _, p := range paras {
		b.WriteString("<p>" + html.EscapeString(p) + "</p>\n")
	}
	if len(problems) > 0 {
		b.WriteString("<ul class=\"problems\">\n")
		for _, p := range problems {
			b.WriteString("<li>" + html.EscapeString(p) + "</li>\n")
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString("</section>\n</body>\n</html>\n")
	return b.String(), nil
}

// printCSP forbids the printed page every resource but its own style.
const printCSP = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

// printCSS is the printed page's style sheet.
const printCSS = `@page{size:A4;margin:20mm 18mm 22mm}
html{font:10.5pt/1.45 "Noto Sans","Noto Sans CJK SC","Noto Naskh Arabic","Noto Sans Hebrew","DejaVu Sans",sans-serif;color:#111}
body{margin:0}
h1,h2,h3,h4,h5,h6{line-height:1.25;break-after:avoid;page-break-after:avoid}
h1.title{font-size:18pt;margin:0 0 .8em}
h1{font-size:15pt}h2{font-size:13pt}h3{font-size:11.5pt}
p,li,td,th,h1,h2,h3,h4,h5,h6,blockquote,dd,dt{unicode-bidi:plaintext;text-align:start}
p,li{orphans:2;widows:2}
a{color:#1a4fa0;text-decoration:none}
sup.cite{line-height:0}
pre,code{font-family:"Noto Sans Mono","DejaVu Sans Mono",monospace;font-size:.88em}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f4f4f4;padding:.5em .7em;border-radius:3px}
table{border-collapse:collapse;margin:.8em 0;max-width:100%}
thead{display:table-header-group}
tr{break-inside:avoid}
th,td{border:1px solid #aaa;padding:.2em .45em;vertical-align:top}
th{background:#eee}
blockquote{margin:.8em 0;padding-inline-start:.9em;border-inline-start:3px solid #ccc;color:#333}
img{max-width:100%}
section.references,section.verification{margin-top:1.6em}
ol.references{font-size:.9em;padding-inline-start:2.2em}
ol.references li{margin-bottom:.35em;break-inside:avoid;unicode-bidi:normal}
ol.references a,sup.cite{unicode-bidi:isolate}
ol.references a[href^="http"]::after{content:" " attr(href);overflow-wrap:anywhere;color:#333}
.verdict,.channel{font-size:.85em;color:#555}
ul.problems{font-size:.9em}
`
