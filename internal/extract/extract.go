package extract

import (
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/deepresearch/deepresearch/source"
)

// Format is how a file's bytes become a document.
type Format int

const (
	FormatNone Format = iota
	FormatMarkdown
	FormatText
	FormatRST
	FormatAsciiDoc
	FormatOrg
	FormatTeX
	FormatHTML
	// The formats below are read from bytes with ExtractBytes, or (PDF)
	// from page texts with FromPages.
	FormatPDF
	FormatDOCX
	FormatPPTX
	FormatEPUB
	FormatXLSX
	FormatODS
	FormatCSV
	FormatTSV
	FormatODT
)

// formats maps lower-case file extensions to formats; files with other
// extensions are not part of the corpus.
var formats = map[string]Format{
	".md":       FormatMarkdown,
	".markdown": FormatMarkdown,
	".mdx":      FormatMarkdown,
	".txt":      FormatText,
	".text":     FormatText,
	".json":     FormatText, // read as plain text, located by line range
	".rst":      FormatRST,
	".adoc":     FormatAsciiDoc,
	".asciidoc": FormatAsciiDoc,
	".org":      FormatOrg,
	".tex":      FormatTeX,
	".html":     FormatHTML,
	".htm":      FormatHTML,
	".xhtml":    FormatHTML,
	".pdf":      FormatPDF,
	".docx":     FormatDOCX,
	".odt":      FormatODT,
	".pptx":     FormatPPTX,
	".epub":     FormatEPUB,
	".xlsx":     FormatXLSX,
	".xlsm":     FormatXLSX,
	".ods":      FormatODS,
	".csv":      FormatCSV,
	".tsv":      FormatTSV,
	".tab":      FormatTSV,
}

// FormatOf returns the format of the file name by its extension, in any
// case (".md", ".HTML"), or FormatNone for a file that is not a document.
func FormatOf(name string) Format {
	return formats[strings.ToLower(filepath.Ext(name))]
}

// Document is a file turned into text, ready to be split into passages.
// Title and Text hold no control characters (see Clean).
type Document struct {
	// Title is the document's title: from its metadata (front matter,
	// <title>, #+TITLE, \title), else its first top-level heading, else
	// the file name without its extension.
	Title string
	// Text is the whole extracted text: the source for text formats (less
	// comments and markup that is not content), Markdown-like text for HTML.
	Text string
	// URL is the address the document declares as its own: a Markdown
	// front matter's url field, an HTML page's <link rel="canonical">.
	// Only an absolute http or https URL is taken (see DeclaredURL); ""
	// when the document declares none.
	URL string
	// Author is who the document's metadata says wrote it (a DOCX's
	// dc:creator, a PDF's Author; see sourcetext.JoinAuthors); "" when it
	// names no one.
	Author string
	// sections[i].path is the heading path of section i; section 0 is the
	// text before the first heading, with an empty path.
	sections []section
	blocks   []block
	// lineLocations makes passages locate themselves by line range even
	// where they have a heading path (plain text).
	lineLocations bool
}

type section struct {
	path []string // headings, outermost first
}

// block is a paragraph, list item or preformatted block: the unit passages
// are assembled from.
type block struct {
	sec int // index into Document.sections
	// unit is the page, row or slide the block belongs to; zero for
	// documents located by heading path and line range. Passages never
	// span two units.
	unit source.Location
	text string
	// pre blocks are preformatted: split between lines, never re-flowed.
	pre bool
	// first and last are the 1-based source lines the block spans; 0 when
	// unknown.
	first, last int
}

// builder assembles a document from a stream of headings and blocks.
type builder struct {
	doc       Document
	stack     [7]string // stack[level] for levels 1..6
	heads     []heading
	metaTitle string          // title from metadata (front matter, <title>)
	metaURL   string          // URL from metadata (front matter, canonical link), checked
	unit      source.Location // the unit (page, row, slide) blocks are in now
	// out is the document's text rendered as it is built: headings as
	// Markdown headings, blocks as paragraphs. Formats that are text
	// already use their source instead.
	out strings.Builder
}

type heading struct {
	level int
	text  string
	sec   int
}

func (b *builder) heading(level int, text string) {
	text = collapseSpace(text)
	if text == "" {
		return
	}
	b.sectionZero()
	b.doc.sections = append(b.doc.sections, section{})
	level = min(max(level, 1), 6)
	b.heads = append(b.heads, heading{level: level, text: text, sec: len(b.doc.sections) - 1})
	b.out.WriteString(strings.Repeat("#", level) + " " + text + "\n\n")
}

func (b *builder) block(text string, pre bool, first, last int) {
	if pre {
		text = strings.Trim(text, "\n")
		if strings.TrimSpace(text) == "" {
			return
		}
	} else if text = strings.TrimSpace(text); text == "" {
		return
	}
	b.sectionZero()
	b.out.WriteString(text + "\n\n")
	b.doc.blocks = append(b.doc.blocks, block{
		sec: len(b.doc.sections) - 1, unit: b.unit, text: text, pre: pre, first: first, last: last,
	})
}

// sectionZero makes sure section 0, the text before the first heading,
// exists.
func (b *builder) sectionZero() {
	if len(b.doc.sections) == 0 {
		b.doc.sections = append(b.doc.sections, section{})
	}
}

// finish resolves the title and the heading paths. fallback is the title
// when the document names none (the file name).
func (b *builder) finish(fallback string) Document {
	b.sectionZero()
	// The title is the metadata's, else the first top-level heading's. The
	// first heading is left out of heading paths when it repeats the
	// title: it would prefix every location.
	title := b.metaTitle
	for _, h := range b.heads {
		if h.level == 1 {
			if title == "" {
				title = h.text
			}
			break
		}
	}
	titleHead := -1
	if len(b.heads) > 0 && strings.EqualFold(b.heads[0].text, title) {
		titleHead = 0
	}
	if title == "" {
		title = fallback
	}
	b.doc.Title = boundTitle(title)
	b.doc.URL = b.metaURL
	for i, h := range b.heads {
		b.stack[h.level] = h.text
		if i == titleHead {
			b.stack[h.level] = ""
		}
		for l := h.level + 1; l < len(b.stack); l++ {
			b.stack[l] = ""
		}
		var path []string
		for _, s := range b.stack[1:] {
			if s != "" {
				path = append(path, s)
			}
		}
		b.doc.sections[h.sec].path = path
	}
	return b.doc
}

// Extract turns a file's contents into a document. name is the file name,
// used as the title when the document names none. src should be valid
// UTF-8 (invalid bytes become U+FFFD). Control characters and terminal
// escape sequences are removed (see Clean), before and after HTML entities
// are decoded, so none reaches the document's title, text or passages.
//
// Cost: linear in len(src); a document of FormatNone is read as plain text.
func Extract(name string, src string, f Format) Document {
	src = strings.TrimPrefix(src, "\uFEFF")
	src = strings.ReplaceAll(src, "\r\n", "\n")
	src = strings.ReplaceAll(src, "\r", "\n")
	src = Clean(src)
	fallback := Clean(strings.TrimSuffix(filepath.Base(name), filepath.Ext(name)))
	if f == FormatHTML {
		return extractHTML(src, fallback)
	}
	if f == FormatNone {
		f = FormatText
	}
	return extractLines(src, f, fallback)
}

// Line-based markup: Markdown, plain text, reStructuredText, AsciiDoc, Org
// and TeX. Only the structure that matters for passages is recognised:
// headings, blank-line paragraphs and verbatim blocks. Inline markup is
// kept as written; models read Markdown well.

var (
	atxHeading    = regexp.MustCompile(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	headingID     = regexp.MustCompile(`\s*\{#[^}]*\}\s*$`)
	adocHeading   = regexp.MustCompile(`^(={1,6})[ \t]+(\S.*)$`)
	adocAttribute = regexp.MustCompile(`^:!?[\w-]+!?:(\s.*)?$`)
	adocDelimiter = regexp.MustCompile(`^(====+|\*\*\*\*+|____+|\|===+)$`)
	orgHeading    = regexp.MustCompile(`^(\*+)[ \t]+(\S.*)$`)
	orgTags       = regexp.MustCompile(`[ \t]+:[\w@#%:]+:[ \t]*$`)
	texHeading    = regexp.MustCompile(`^\s*\\(part|chapter|section|subsection|subsubsection|paragraph)\*?\{(.*)\}\s*$`)
	texTitle      = regexp.MustCompile(`^\s*\\title\{(.*)\}\s*$`)
	htmlComment   = regexp.MustCompile(`(?s)<!--.*?-->`)
	rawHTMLBlock  = regexp.MustCompile(`(?is)<(script|style)\b[^>]*>.*?</(?:script|style)\s*>`)
)

var texLevels = map[string]int{
	"part": 1, "chapter": 1, "section": 2, "subsection": 3, "subsubsection": 4, "paragraph": 5,
}

// blankOut replaces every match of re in src with as many newlines as the
// match spanned, so that line numbers stay right.
func blankOut(src string, re *regexp.Regexp) string {
	return re.ReplaceAllStringFunc(src, func(m string) string {
		return strings.Repeat("\n", strings.Count(m, "\n"))
	})
}

func extractLines(src string, f Format, fallback string) Document {
	var b builder
	b.doc.lineLocations = f == FormatText
	if f == FormatMarkdown {
		src = blankOut(src, htmlComment)
		src = blankOut(src, rawHTMLBlock)
	}
	lines := strings.Split(src, "\n")
	start := 0
	if f == FormatMarkdown {
		start = frontMatter(lines, &b)
	}

	var (
		para        []string
		first, last int
		fence       string // closing delimiter of the verbatim block we are in
		verb        []string
		verbFirst   int
		rstStyles   []string
		dropped     = make([]bool, len(lines))
		// TeX: the preamble before \begin{document} is dropped.
		texDocument = f != FormatTeX || !strings.Contains(src, `\begin{document}`)
	)
	flush := func() {
		if len(para) > 0 {
			// An indented paragraph is a code block in Markdown and a
			// literal block in reStructuredText: keep its layout.
			pre := (f == FormatMarkdown || f == FormatRST) && allIndented(para)
			b.block(strings.Join(para, "\n"), pre, first, last)
			para = para[:0]
		}
	}
	for i := start; i < len(lines); i++ {
		line := lines[i]
		n := i + 1 // 1-based line number
		if fence != "" {
			if isFenceEnd(line, fence, f) {
				b.block(strings.Join(verb, "\n"), true, verbFirst, n-1)
				fence, verb = "", verb[:0]
				continue
			}
			verb = append(verb, line)
			continue
		}
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			flush()
			continue
		}
		if d := fenceStart(line, f); d != "" {
			flush()
			fence, verbFirst = d, n+1
			continue
		}
		switch f {
		case FormatOrg:
			if strings.HasPrefix(trimmed, "#+") {
				if len(trimmed) >= 8 && strings.EqualFold(trimmed[:8], "#+title:") && b.metaTitle == "" {
					b.metaTitle = strings.TrimSpace(trimmed[8:])
				}
				dropped[i] = true
				continue
			}
			if strings.HasPrefix(trimmed, "# ") || trimmed == "#" {
				dropped[i] = true
				continue
			}
		case FormatTeX:
			if strings.HasPrefix(trimmed, "%") {
				dropped[i] = true
				continue
			}
			if m := texTitle.FindStringSubmatch(line); m != nil {
				if b.metaTitle == "" {
					b.metaTitle = texInline(m[1])
				}
				dropped[i] = true
				continue
			}
			if strings.HasPrefix(trimmed, `\begin{document}`) {
				texDocument = true
				dropped[i] = true
				continue
			}
			if !texDocument || texCommandOnly(trimmed) && !texHeading.MatchString(line) {
				dropped[i] = true
				continue
			}
		case FormatAsciiDoc:
			if strings.HasPrefix(trimmed, "//") || adocAttribute.MatchString(trimmed) || adocDelimiter.MatchString(trimmed) {
				dropped[i] = true
				continue
			}
		case FormatRST:
			if strings.HasPrefix(trimmed, "..") && !strings.Contains(trimmed, "::") {
				// A comment or a link target; directives (".. note::") keep their text.
				dropped[i] = true
				continue
			}
		}
		if level, text, used := headingAt(lines, i, f, len(para) == 0, &rstStyles); used > 0 {
			flush()
			b.heading(level, text)
			i += used - 1
			continue
		}
		if len(para) == 0 {
			first = n
		}
		para = append(para, strings.TrimRight(line, " \t"))
		last = n
	}
	if fence != "" {
		b.block(strings.Join(verb, "\n"), true, verbFirst, len(lines))
	}
	flush()

	var kept []string
	for i, l := range lines[start:] {
		if !dropped[start+i] {
			kept = append(kept, strings.TrimRight(l, " \t"))
		}
	}
	d := b.finish(fallback)
	d.Text = squeezeBlankLines(strings.Join(kept, "\n"))
	return d
}

// frontMatter reads a YAML (---) or TOML (+++) front matter block at the top
// of a Markdown file, takes its title and its URL (see DeclaredURL), and
// returns the first line after it.
func frontMatter(lines []string, b *builder) int {
	if len(lines) == 0 {
		return 0
	}
	delim := strings.TrimSpace(lines[0])
	if delim != "---" && delim != "+++" {
		return 0
	}
	for i := 1; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if l == delim || delim == "---" && l == "..." {
			return i + 1
		}
		for _, key := range []string{"title:", "title =", "title="} {
			if v, ok := strings.CutPrefix(l, key); ok && b.metaTitle == "" {
				b.metaTitle = strings.Trim(strings.TrimSpace(v), `"'`)
			}
		}
		for _, key := range []string{"url:", "url =", "url="} {
			if v, ok := strings.CutPrefix(l, key); ok && b.metaURL == "" {
				b.metaURL = DeclaredURL(strings.Trim(strings.TrimSpace(v), `"'`))
			}
		}
	}
	b.metaTitle, b.metaURL = "", ""
	return 0 // no closing delimiter: not front matter
}

// fenceStart reports whether line opens a verbatim block and returns the
// delimiter that closes it.
func fenceStart(line string, f Format) string {
	t := strings.TrimSpace(line)
	switch f {
	case FormatMarkdown:
		for _, c := range []string{"```", "~~~"} {
			if strings.HasPrefix(t, c) && strings.HasPrefix(strings.TrimLeft(line, " "), c) {
				n := len(t) - len(strings.TrimLeft(t, c[:1]))
				if c[0] == '`' && strings.Contains(t[n:], "`") {
					return "" // inline code, not a fence
				}
				return strings.Repeat(c[:1], n)
			}
		}
	case FormatAsciiDoc:
		if len(t) >= 4 && (strings.Trim(t, "-") == "" || strings.Trim(t, ".") == "" || strings.Trim(t, "+") == "") {
			return t
		}
	case FormatOrg:
		if lt := strings.ToLower(t); strings.HasPrefix(lt, "#+begin_") {
			kind, _, _ := strings.Cut(lt[len("#+begin_"):], " ")
			return "#+end_" + kind
		}
	case FormatTeX:
		for _, env := range []string{"verbatim", "lstlisting", "minted"} {
			if strings.HasPrefix(t, `\begin{`+env+`}`) {
				return `\end{` + env + `}`
			}
		}
	}
	return ""
}

func isFenceEnd(line, fence string, f Format) bool {
	t := strings.TrimSpace(line)
	switch f {
	case FormatMarkdown:
		return strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == ""
	case FormatOrg:
		return strings.HasPrefix(strings.ToLower(t), fence)
	case FormatTeX:
		return strings.HasPrefix(t, fence)
	}
	return t == fence
}

// headingAt reports whether a heading starts at lines[i]: its level, text
// and how many lines it takes (0: not a heading). Underlined headings
// (setext, reStructuredText) are recognised only at the start of a
// paragraph.
func headingAt(lines []string, i int, f Format, paraStart bool, rstStyles *[]string) (int, string, int) {
	line := lines[i]
	next := ""
	if i+1 < len(lines) {
		next = lines[i+1]
	}
	switch f {
	case FormatMarkdown, FormatText:
		if m := atxHeading.FindStringSubmatch(line); m != nil {
			return len(m[1]), headingID.ReplaceAllString(m[2], ""), 1
		}
		if paraStart {
			if u := strings.TrimSpace(next); len(u) >= 2 && leadingSpaces(next) < 4 {
				switch {
				case strings.Trim(u, "=") == "":
					return 1, headingID.ReplaceAllString(line, ""), 2
				case strings.Trim(u, "-") == "" && !strings.HasPrefix(strings.TrimSpace(line), "- "):
					return 2, headingID.ReplaceAllString(line, ""), 2
				}
			}
		}
	case FormatRST:
		if !paraStart {
			return 0, "", 0
		}
		// Overlined: ===== / Title / =====
		if c := rstAdornment(line); c != 0 && i+2 < len(lines) && strings.TrimSpace(lines[i+1]) != "" &&
			rstAdornment(lines[i+2]) == c {
			return rstLevel(rstStyles, "o"+string(c)), lines[i+1], 3
		}
		if c := rstAdornment(next); c != 0 && rstAdornment(line) == 0 &&
			utf8.RuneCountInString(strings.TrimSpace(next)) >= utf8.RuneCountInString(strings.TrimSpace(line)) {
			return rstLevel(rstStyles, "u"+string(c)), line, 2
		}
	case FormatAsciiDoc:
		if m := adocHeading.FindStringSubmatch(line); m != nil {
			return len(m[1]), m[2], 1
		}
	case FormatOrg:
		if m := orgHeading.FindStringSubmatch(line); m != nil {
			return len(m[1]), orgTags.ReplaceAllString(m[2], ""), 1
		}
	case FormatTeX:
		if m := texHeading.FindStringSubmatch(line); m != nil {
			return texLevels[m[1]], texInline(m[2]), 1
		}
	}
	return 0, "", 0
}

// rstAdornment returns the punctuation character a line consists of when it
// is a section adornment (at least 3 of one character), else 0.
func rstAdornment(line string) rune {
	t := strings.TrimRight(line, " \t")
	if len(t) < 3 || t[0] == ' ' || t[0] == '\t' {
		return 0
	}
	c := rune(t[0])
	if !strings.ContainsRune("=-`:'\"~^_*+#<>.", c) || strings.Trim(t, string(c)) != "" {
		return 0
	}
	return c
}

// rstLevel gives heading styles levels in the order a document first uses
// them, as reStructuredText does.
func rstLevel(styles *[]string, style string) int {
	for i, s := range *styles {
		if s == style {
			return i + 1
		}
	}
	*styles = append(*styles, style)
	return len(*styles)
}

func allIndented(lines []string) bool {
	for _, l := range lines {
		if !strings.HasPrefix(l, "\t") && !strings.HasPrefix(l, "    ") {
			return false
		}
	}
	return true
}

func leadingSpaces(s string) int {
	return len(s) - len(strings.TrimLeft(s, " "))
}

// texCommandOnly reports a line that is nothing but a structural command
// (\usepackage{x}, \maketitle, \begin{itemize}).
var texCommand = regexp.MustCompile(`^\\[a-zA-Z]+\*?(\[[^\]]*\])?(\{[^}]*\})*$`)

func texCommandOnly(t string) bool {
	if !texCommand.MatchString(t) {
		return false
	}
	for _, keep := range []string{`\item`, `\textbf`, `\emph`, `\textit`} {
		if strings.HasPrefix(t, keep) {
			return false
		}
	}
	return true
}

// texInline strips the commonest inline commands from a TeX heading.
var texInlineCmd = regexp.MustCompile(`\\[a-zA-Z]+\*?\{([^}]*)\}`)

func texInline(s string) string {
	for range 3 {
		s = texInlineCmd.ReplaceAllString(s, "$1")
	}
	return strings.NewReplacer(`\&`, "&", `\%`, "%", `\_`, "_", `~`, " ", `\\`, " ").Replace(s)
}

// collapseSpace trims s and collapses runs of white space to one space.
func collapseSpace(s string) string {
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}

// squeezeBlankLines trims s and collapses runs of blank lines to one.
func squeezeBlankLines(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	blank := true
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			if blank {
				continue
			}
			blank = true
			out = append(out, "")
			continue
		}
		blank = false
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// Headings returns the document's headings, each once, in document order:
// the innermost heading of every section (the title is not one).
func (d *Document) Headings() []string {
	var out []string
	seen := map[string]bool{}
	for _, s := range d.sections {
		if len(s.path) == 0 {
			continue
		}
		if h := s.path[len(s.path)-1]; !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	return out
}

// maxDocTitle bounds a document's title in bytes: a "title" longer than
// a few lines (a 2 MB heading) is text, and a title goes into every
// reference list and prompt that names the document.
const maxDocTitle = 512

// boundTitle cuts title past maxDocTitle bytes, at a rune boundary, and
// marks the cut with "…".
func boundTitle(title string) string {
	if len(title) <= maxDocTitle {
		return title
	}
	cut := maxDocTitle
	for cut > 0 && !utf8.RuneStart(title[cut]) {
		cut--
	}
	return strings.TrimSpace(title[:cut]) + "…"
}
