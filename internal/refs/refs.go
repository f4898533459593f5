// Package refs finds the references a text makes to other documents: the
// targets of its links (Markdown, HTML, reStructuredText), its rst :doc:
// and :ref: roles, the paths it writes (hyphens, dots and underscores
// inside a name kept: "userspace-api/spec_ctrl.rst" is one path), its
// URLs and what it points readers to in words ("see Control Groups",
// "refer to *Using swap files with software suspend*").
//
// It only reads text: which document a reference names is for a search
// backend to say (search.Resolver). Find is deterministic; it reads at
// most maxMatches matches of each shape and returns at most MaxRefs
// references, so a text full of links costs no more than a few hundred.
package refs

import (
	"github.com/deepresearch/deepresearch/internal/terms"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kinds of reference.
const (
	KindLink  = "link"  // a link's target or a URL
	KindPath  = "path"  // a path written in the text, an rst :doc: target
	KindLabel = "label" // an rst :ref: target
	KindTitle = "title" // what "see …", "refer to …" points to
)

// MaxRefs caps the references Find returns for one text; maxMatches the
// matches of each shape it reads.
const (
	MaxRefs    = 64
	maxMatches = 4 * MaxRefs
)

// maxSentence caps a reference's sentence, in bytes either side of it.
const maxSentence = 400

// maxTitleWords caps the words of a title "see" points to without
// quoting or emphasis.
const maxTitleWords = 8

// Ref is one reference.
type Ref struct {
	Kind string
	// Targets are what the reference may name, best first: a link's
	// target then its text, or the words after "see", longest first. A
	// resolver takes the first that names a document.
	Targets []string
	// Sentence is the sentence that makes the reference (at most about
	// 800 bytes of it), for judging whether it bears on a question.
	Sentence string
	// At is the reference's byte offset in the text: Find returns
	// references in text order.
	At int
}

var (
	mdLinkRe   = regexp.MustCompile(`\[([^\[\]\n]{0,200})\]\(\s*<?([^()\s<>]{1,300})>?(?:\s+"[^"\n]*")?\s*\)`)
	htmlLinkRe = regexp.MustCompile(`(?i)<a\s[^>]{0,300}?href\s*=\s*["']([^"'\s]{1,300})["'][^>]{0,300}>([^<]{0,200})`)
	rstRoleRe  = regexp.MustCompile(":(doc|ref):`([^`\\n]{1,300})`")
	rstLinkRe  = regexp.MustCompile("`([^`<\\n]{1,200})<([^`>\\s]{1,300})>`_{1,2}")
	urlRe      = regexp.MustCompile(`https?://[^\s<>()\[\]"'` + "`" + `]{1,300}`)
	// paths: names of letters, digits, "_", "-", "+" and "." joined by
	// "/", after any number of "./" and "../".
	pathRe = regexp.MustCompile(`(?:\.{1,2}/)*[A-Za-z0-9_][\w.+-]*(?:/[A-Za-z0-9_][\w.+-]*)+/?`)
	// cue words that point elsewhere, then what they point to.
	seeRe = regexp.MustCompile(`(?i)\b(?:see(?:\s+also)?|refer\s+to|described\s+in|documented\s+in|explained\s+in|covered\s+in|listed\s+in|found\s+in|details\s+in)\s*:?\s+(?:the\s+)?`)
	// a quoted or emphasised title after a cue.
	delimitedRe = regexp.MustCompile("^(?:\\*\\*([^*\\n]{2,160})\\*\\*|\\*([^*\\n]{2,160})\\*|_([^_\\n]{2,160})_|\"([^\"\\n]{2,160})\"|“([^”\\n]{2,160})”|`([^`\\n]{2,160})`(?:[^_]|$))")
)

// Find returns the references text makes, in text order, each target
// once (the first time it is made). Text inside a link is not read again
// as a path or URL of its own.
func Find(text string) []Ref {
	var out []Ref
	var spans [][2]int // parts of text already read as a reference
	taken := func(a, b int) bool {
		return slices.ContainsFunc(spans, func(s [2]int) bool { return a < s[1] && s[0] < b })
	}
	seen := map[string]bool{}
	add := func(kind string, a, b int, targets ...string) {
		spans = append(spans, [2]int{a, b})
		var ts []string
		for _, t := range targets {
			t = strings.TrimSpace(t)
			if t != "" && !slices.Contains(ts, t) {
				ts = append(ts, t)
			}
		}
		if len(ts) == 0 || seen[kind+"\x00"+ts[0]] {
			return
		}
		seen[kind+"\x00"+ts[0]] = true
		out = append(out, Ref{Kind: kind, Targets: ts, Sentence: sentenceAt(text, a, b), At: a})
	}
	for _, m := range mdLinkRe.FindAllStringSubmatchIndex(text, maxMatches) {
		add(KindLink, m[0], m[1], text[m[4]:m[5]], plain(text[m[2]:m[3]]))
	}
	for _, m := range htmlLinkRe.FindAllStringSubmatchIndex(text, maxMatches) {
		add(KindLink, m[0], m[1], text[m[2]:m[3]], plain(text[m[4]:m[5]]))
	}
	for _, m := range rstLinkRe.FindAllStringSubmatchIndex(text, maxMatches) {
		if !taken(m[0], m[1]) {
			add(KindLink, m[0], m[1], text[m[4]:m[5]], text[m[2]:m[3]])
		}
	}
	for _, m := range rstRoleRe.FindAllStringSubmatchIndex(text, maxMatches) {
		kind := KindPath
		if text[m[2]:m[3]] == "ref" {
			kind = KindLabel
		}
		inner, title := text[m[4]:m[5]], ""
		if i := strings.LastIndexByte(inner, '<'); i >= 0 && strings.HasSuffix(inner, ">") {
			inner, title = inner[i+1:len(inner)-1], inner[:i]
		}
		if kind == KindPath && !strings.Contains(inner, "/") {
			inner = "./" + inner // a :doc: target is a path, relative to the document
		}
		add(kind, m[0], m[1], inner, title)
	}
	for _, loc := range urlRe.FindAllStringIndex(text, maxMatches) {
		if !taken(loc[0], loc[1]) {
			u := strings.TrimRight(text[loc[0]:loc[1]], ".,;:!?*_")
			add(KindLink, loc[0], loc[0]+len(u), u)
		}
	}
	for _, loc := range pathRe.FindAllStringIndex(text, maxMatches) {
		p := strings.TrimRight(text[loc[0]:loc[1]], ".-+")
		if taken(loc[0], loc[1]) || !hasLetter(p) || loc[0] > 0 && strings.ContainsRune(":/\\@", rune(text[loc[0]-1])) || prose(p) {
			continue
		}
		add(KindPath, loc[0], loc[0]+len(p), p)
	}
	for _, loc := range seeRe.FindAllStringIndex(text, maxMatches) {
		rest := text[loc[1]:min(len(text), loc[1]+400)]
		if m := delimitedRe.FindStringSubmatchIndex(rest); m != nil {
			for g := 2; g < len(m); g += 2 {
				if m[g] >= 0 && !taken(loc[1]+m[g], loc[1]+m[g+1]) {
					add(KindTitle, loc[1]+m[g], loc[1]+m[g+1], plain(rest[m[g]:m[g+1]]))
					break
				}
			}
			continue
		}
		if ts, n := leadingWords(rest); len(ts) > 0 && !taken(loc[1], loc[1]+n) {
			add(KindTitle, loc[1], loc[1]+n, ts...)
		}
	}
	slices.SortStableFunc(out, func(a, b Ref) int { return a.At - b.At })
	if len(out) > MaxRefs {
		out = out[:MaxRefs]
	}
	return out
}

// leadingWords are the titles the words at the start of s may be, longest
// first: up to maxTitleWords words before a punctuation mark or line
// break, each prefix of two words or more (one word only when it is
// written like a file or label name: "cgroup-v2", "spec_ctrl"), and how
// many bytes of s the longest takes.
func leadingWords(s string) ([]string, int) {
	end := strings.IndexAny(s, ".,;:!?()[]{}<>\"“”\n")
	if end < 0 {
		end = len(s)
	}
	words := strings.Fields(s[:end])
	if len(words) > maxTitleWords {
		words = words[:maxTitleWords]
	}
	var out []string
	for n := len(words); n >= 1; n-- {
		if n == 1 && !marked(words[0]) {
			break
		}
		out = append(out, strings.Join(words[:n], " "))
	}
	if len(out) == 0 {
		return nil, 0
	}
	return out, strings.Index(s, words[len(words)-1]) + len(words[len(words)-1])
}

// marked reports whether a lone word looks like a file or label name: a
// hyphen or an underscore inside it.
func marked(w string) bool {
	return strings.ContainsAny(strings.Trim(w, "-_"), "-_")
}

// plain is a link's text without emphasis marks and code quotes.
func plain(s string) string {
	return strings.Join(strings.Fields(strings.Trim(s, "*_`'\" ")), " ")
}

func hasLetter(s string) bool {
	return strings.IndexFunc(s, unicode.IsLetter) >= 0
}

// sentenceAt is the sentence of text around bytes [a, b): from the end
// of the previous sentence (". ", "! ", "? " or a blank line) to the end
// of this one, at most maxSentence bytes either side, cut at a word.
func sentenceAt(text string, a, b int) string {
	start := max(0, a-maxSentence)
	for i := a - 1; i > start; i-- {
		if text[i] == '\n' && i > 0 && text[i-1] == '\n' || (text[i] == ' ' || text[i] == '\n') && strings.ContainsRune(".!?", rune(text[i-1])) {
			start = i + 1
			break
		}
	}
	end := min(len(text), b+maxSentence)
	for i := b; i < end-1; i++ {
		if text[i] == '\n' && text[i+1] == '\n' || strings.ContainsRune(".!?", rune(text[i])) && (text[i+1] == ' ' || text[i+1] == '\n') {
			end = i + 1
			break
		}
	}
	for start < a && !utf8.RuneStart(text[start]) {
		start++
	}
	for end > b && end < len(text) && !utf8.RuneStart(text[end]) {
		end--
	}
	return strings.Join(strings.Fields(text[start:end]), " ")
}

// prose reports whether a slashed pair is prose rather than a path: two
// plain words with no extension or folder mark, both function words
// ("and/or", "either/or") or both capitals ("TCP/IP", "I/O").
func prose(p string) bool {
	parts := strings.Split(p, "/")
	if len(parts) != 2 || strings.ContainsAny(p, ".") {
		return false
	}
	stops, caps := 0, 0
	for _, w := range parts {
		if terms.IsStop(strings.ToLower(w)) {
			stops++
		}
		if w != "" && strings.ToUpper(w) == w && strings.ToLower(w) != w {
			caps++
		}
	}
	return stops == 2 || caps == 2
}
