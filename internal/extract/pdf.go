package extract

import (
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/deepresearch/deepresearch/source"
)

// FromPages builds the document of a paginated file (a PDF) from its
// pages' text, as a PDF reader gives it (internal/pdftext): lines
// separated by "\n", pages[0] being page 1. title is the file's own title
// (metadata; may be empty or a placeholder such as "untitled"); name is
// the file name, the title when the file names none.
//
// The text is repaired: ligatures (ﬁ ﬂ ﬀ ﬃ ﬄ ﬅ ﬆ) become their letters;
// a word hyphenated at a line end is joined (a soft hyphen, or PDFium's
// U+0002 marker, goes; a hard hyphen stays: "32-bit"); lines that
// repeat at the top or bottom of at least three pages (running headers
// and footers, page numbers, digits ignored in the comparison) and lone
// page numbers are dropped; the lines of a paragraph are joined.
// Passages never span pages, and each is located by its page:
// source.Location{Kind: "page", Value: "7"}. Text marks each page with a
// line "--- page N ---".
//
// Cost: linear in the text.
func FromPages(name, title string, pages []string) Document {
	var b builder
	b.metaTitle = pdfTitle(Clean(title))
	lines := make([][]string, len(pages))
	for i, p := range pages {
		lines[i] = pageLines(p)
	}
	furniture := repeatedEdges(lines)
	var text strings.Builder
	for i, ls := range lines {
		var kept []string
		for j, l := range ls {
			if atEdge(j, len(ls)) && (furniture[edgeKey(l)] || isPageNumber(l)) {
				continue
			}
			kept = append(kept, l)
		}
		if len(kept) == 0 {
			continue
		}
		n := strconv.Itoa(i + 1)
		b.unit = source.Location{Kind: source.LocPage, Value: n}
		text.WriteString("--- page " + n + " ---\n")
		for _, para := range paragraphs(kept) {
			b.block(para, false, 0, 0)
			text.WriteString(para + "\n\n")
		}
	}
	d := b.finish(filepath.Base(Clean(name)))
	d.Text = strings.TrimSpace(text.String())
	return d
}

// pdfTitle drops the titles that producers write for documents that have
// none.
func pdfTitle(t string) string {
	t = collapseSpace(t)
	l := strings.ToLower(t)
	switch {
	case l == "untitled", l == "untitled document", l == "title", l == "document",
		strings.HasPrefix(l, "microsoft word - "), strings.HasPrefix(l, "microsoft powerpoint - "),
		strings.HasSuffix(l, ".dvi"), strings.HasSuffix(l, ".doc"), strings.HasSuffix(l, ".docx"):
		return ""
	}
	return t
}

var ligatures = strings.NewReplacer(
	"\uFB00", "ff", "\uFB01", "fi", "\uFB02", "fl", "\uFB03", "ffi", "\uFB04", "ffl", "\uFB05", "st", "\uFB06", "st",
)

// pageLines splits a page's text into cleaned, trimmed, non-empty lines,
// with ligatures spelt out and words hyphenated at a line end joined.
func pageLines(p string) []string {
	p = strings.ReplaceAll(p, "\r\n", "\n")
	p = strings.ReplaceAll(p, "\r", "\n")
	// PDFium marks a hyphen it found at a line end with U+0002 and has
	// already joined the lines: "improv\x02ing". Other producers leave a
	// soft hyphen, with or without the line break.
	p = strings.NewReplacer("\x02\n", "", "\x02", "", "\u00AD\n", "", "\u00AD", "").Replace(p)
	p = ligatures.Replace(Clean(p))
	var out []string
	for l := range strings.SplitSeq(p, "\n") {
		l = collapseSpace(l)
		if l == "" {
			continue
		}
		// "32-" then "bit": a hard hyphen at the line end joins the next
		// line without a space.
		if n := len(out); n > 0 && hyphenJoins(out[n-1], l) {
			out[n-1] += l
			continue
		}
		out = append(out, l)
	}
	return out
}

// hyphenJoins reports whether prev ends with a hyphen after a letter or
// digit and next begins with a lower-case letter: one word broken at a
// hyphen that stays.
func hyphenJoins(prev, next string) bool {
	if !strings.HasSuffix(prev, "-") || len(prev) < 2 {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(prev[:len(prev)-1])
	f, _ := utf8.DecodeRuneInString(next)
	return (unicode.IsLetter(r) || unicode.IsDigit(r)) && unicode.IsLower(f)
}

// edgeLines is how many lines at the top and at the bottom of a page may
// be running headers or footers.
const edgeLines = 2

func atEdge(j, n int) bool { return j < edgeLines || j >= n-edgeLines }

var digits = regexp.MustCompile(`\d+`)

// edgeKey is what a header or footer line is compared by: its text with
// every number alike, so "Chapter 2 … 17" and "Chapter 3 … 18" meet.
func edgeKey(l string) string { return strings.ToLower(digits.ReplaceAllString(l, "#")) }

// repeatedEdges returns the keys of the lines that stand at the top or
// bottom of at least three pages.
func repeatedEdges(pages [][]string) map[string]bool {
	count := map[string]int{}
	for _, ls := range pages {
		seen := map[string]bool{}
		for j, l := range ls {
			if atEdge(j, len(ls)) {
				seen[edgeKey(l)] = true
			}
		}
		for k := range seen {
			count[k]++
		}
	}
	out := map[string]bool{}
	for k, n := range count {
		if n >= 3 {
			out[k] = true
		}
	}
	return out
}

var pageNumber = regexp.MustCompile(`(?i)^(page\s+|p\.\s*|-\s*|—\s*)?(\d{1,5}|[ivxlcdm]{1,8})(\s*(of|/)\s*\d{1,5})?(\s*-|\s*—)?$`)

// isPageNumber reports a line that is nothing but a page number ("7",
// "- 7 -", "Page 7 of 20", "xii").
func isPageNumber(l string) bool { return pageNumber.MatchString(l) }

// paragraphs joins a page's lines into paragraphs: a line ends its
// paragraph when it ends a sentence and falls short of the page's usual
// line length, or when the next line starts a list item.
func paragraphs(lines []string) []string {
	full := typicalLength(lines)
	var out []string
	var cur []string
	for i, l := range lines {
		cur = append(cur, l)
		end := i == len(lines)-1
		if !end {
			short := utf8.RuneCountInString(l) < full*3/4
			sentence := strings.ContainsAny(lastRune(l), ".:!?;")
			end = short && sentence || short && utf8.RuneCountInString(l) < full/2 || listItem(lines[i+1])
		}
		if end {
			out = append(out, strings.Join(cur, " "))
			cur = cur[:0]
		}
	}
	return out
}

// typicalLength is the length, in runes, of a full line of the page: the
// 80th percentile of its line lengths.
func typicalLength(lines []string) int {
	if len(lines) == 0 {
		return 0
	}
	ns := make([]int, len(lines))
	for i, l := range lines {
		ns[i] = utf8.RuneCountInString(l)
	}
	slices.Sort(ns)
	return ns[len(ns)*4/5]
}

func lastRune(s string) string {
	r, _ := utf8.DecodeLastRuneInString(strings.TrimRight(s, `"')]”’`))
	return string(r)
}

var listMarker = regexp.MustCompile(`^([•◦▪‣·*–-]|\d{1,3}[.)]|[a-z][.)])\s`)

func listItem(l string) bool { return listMarker.MatchString(l) }
