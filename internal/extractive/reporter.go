package extractive

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/deepresearch/deepresearch/internal/terms"
	"github.com/tmc/langchaingo/llms"
)

// NoEvidence is the reporter's reply when the tool results hold no
// sentence relevant to the task. It cites nothing.
const NoEvidence = "The sources hold no evidence for this task."

// Relevance of a quoted passage: it must cover at least minCoverage of
// the weighted key terms (and share two of the task's own terms, with its
// heading and its source's title). A passage's value adds priorWeight
// times its source's fused search rank.
const (
	priorWeight = 0.5
	minCoverage = 0.25
	// topReportSources is how many of the best-ranked sources a report
	// with no covering passage looks at for a sentence to quote
	// (fallbackQuote).
	topReportSources = 5
)

// firstSearch returns the rank of each source in the first search
// result.
func firstSearch(blocks []block) map[int]int {
	out := map[int]int{}
	for _, b := range blocks {
		if b.search == 1 {
			out[b.num] = b.rank
		}
	}
	return out
}

// blockOf returns the first block of source n.
func blockOf(blocks []block, n int) block {
	for _, b := range blocks {
		if b.num == n {
			return b
		}
	}
	return block{}
}

// namesSubject reports whether a title names the subject: it has a key
// term that is not a number, and all of them are among terms.
func namesSubject(title string, terms map[string]float64) bool {
	n := 0
	for st := range stemSet(title) {
		if isDigits(st) {
			continue
		}
		if terms[st] == 0 {
			return false
		}
		n++
	}
	return n > 0
}

// maxShortWords caps the words of a source quoted whole (shortText).
const maxShortWords = 40

// shortText returns the text of source n quoted whole: its first
// paragraph, cleaned, when that is short prose that is not code (at most
// maxShortWords words, at least two), ending like a sentence; else "".
func shortText(blocks []block, n int) string {
	for _, b := range blocks {
		if b.num != n {
			continue
		}
		for _, par := range paragraphs(b.text) {
			s := cleanSourceText(par)
			if w := len(strings.Fields(s)); w < 2 || w > maxShortWords || codeLike(s) || strings.Contains(s, "://") || hasMarkerRe.MatchString(s) {
				continue
			}
			if last, _ := utf8.DecodeLastRuneInString(s); !strings.ContainsRune(".!?", last) {
				s += "."
			}
			return s
		}
	}
	return ""
}

// markersOf returns the citation numbers a sentence's markers name, as
// strings ("[1, 4]" gives 1 and 4).
func markersOf(s string) []string {
	var out []string
	for _, m := range hasMarkerRe.FindAllString(s, -1) {
		for _, f := range strings.FieldsFunc(m, func(r rune) bool { return r < '0' || r > '9' }) {
			out = append(out, f)
		}
	}
	return out
}

// shared counts the keys of a that are in b.
func shared(a, b map[string]bool) int {
	n := 0
	for k := range a {
		if b[k] {
			n++
		}
	}
	return n
}

// bestRanked returns up to k sources by fused search rank, best first,
// ties to the lower number (the source seen first).
func bestRanked(prior map[int]float64, k int) []int {
	var out []int
	for n := range prior {
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b int) int {
		if c := cmp.Compare(prior[b], prior[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return out[:min(k, len(out))]
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	inter := 0
	for k := range a {
		if b[k] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

var hasMarkerRe = regexp.MustCompile(`\[\^?\d{1,4}(?:\s*[-–,]\s*\d{1,4})*\]|[【［]\d|\[\[S?:?\d|\[ref:`)

// bearsOn reports whether sentence s bears on a question whose key terms
// are own: with the titles of the sources it cites, it shares two of them
// (all, when there are fewer).
func bearsOn(s string, titles map[string]string, own map[string]bool) bool {
	if len(own) == 0 {
		return true
	}
	return shared(stemSet(withTitles(s, titles)), own) >= min(len(own), 2)
}

// withTitles is s with the titles of the sources it cites, a line each:
// what a sentence says together with whose it is.
func withTitles(s string, titles map[string]string) string {
	for _, m := range markersOf(s) {
		s += "\n" + titles[m]
	}
	return s
}

// listed is a source as a writer prompt's "## Sources" list names it.
type listed struct{ title, loc string }

// sourceList reads the "## Sources" list of a writer prompt ("[n] Title —
// URL") by number.
func sourceList(msgs []llms.MessageContent) map[string]listed {
	out := map[string]listed{}
	for n, line := range promptList(msgs, "Sources") {
		title, loc, _ := strings.Cut(line, " — ")
		out[n] = listed{title: title, loc: loc}
	}
	return out
}

// attributions reads the "## Knowledge base" list of a writer prompt
// ("[n] According to our product catalog") into the words that name each
// knowledge-base record's collection, by number.
func attributions(msgs []llms.MessageContent) map[string]string {
	out := map[string]string{}
	for n, line := range promptList(msgs, "Knowledge base") {
		if line != "" {
			out[n] = line
		}
	}
	return out
}

// promptList reads the "[n] text" lines of the list under the "## name"
// heading of a writer prompt's human messages, by number.
func promptList(msgs []llms.MessageContent, name string) map[string]string {
	out := map[string]string{}
	for _, m := range msgs {
		if m.Role != llms.ChatMessageTypeHuman {
			continue
		}
		in := false
		for _, line := range strings.Split(textOf(m), "\n") {
			t := strings.TrimSpace(line)
			if strings.HasPrefix(t, "## ") {
				in = strings.EqualFold(strings.TrimSpace(t[3:]), name)
				continue
			}
			if m := headerRe.FindStringSubmatch(t); in && m != nil {
				out[m[1]] = m[2]
			}
		}
	}
	return out
}

// attributed is a passage's rendering, opened with the words that name
// its first source's collection when that is a knowledge-base record
// ("According to our product catalog, …"), as seed 003's answers name
// them.
func attributed(p passage, kb map[string]string) string {
	out := p.render()
	if len(p.markers) == 0 {
		return out
	}
	if a := kb[p.markers[0]]; a != "" && !strings.HasPrefix(out, a) {
		first, rest, _ := strings.Cut(out, " ")
		if leadWords[first] {
			out = strings.ToLower(first) + " " + rest // "According to our FAQ, a laptop…"
		}
		return a + ", " + out
	}
	return out
}

// leadWords are the capitalised words that a sentence is written with in
// lower case after an attribution: articles, determiners and pronouns,
// never a name.
var leadWords = map[string]bool{"A": true, "An": true, "The": true, "This": true, "That": true, "These": true, "Those": true,
	"It": true, "Its": true, "Every": true, "Each": true, "All": true, "Most": true, "Some": true, "Many": true,
	"You": true, "Your": true, "We": true, "Our": true, "There": true}

// hasFindings reports whether a human message holds a writer's findings.
func hasFindings(msgs []llms.MessageContent) bool {
	for _, m := range msgs {
		if m.Role == llms.ChatMessageTypeHuman && len(findings(textOf(m))) > 0 {
			return true
		}
	}
	return false
}

// findings parses the "## Findings" part of a writer prompt into its
// "### " sections; it ends at the next "## " heading ("## Sources").
func findings(text string) []section {
	var out []section
	in := false
	var cur *section
	var body []string
	flush := func() {
		if cur != nil {
			cur.text = strings.Join(body, "\n")
			out = append(out, *cur)
		}
		cur, body = nil, nil
	}
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(t, "## ") && strings.EqualFold(strings.TrimSpace(t[3:]), "Findings"):
			in = true
		case !in:
		case strings.HasPrefix(t, "### "):
			flush()
			cur = &section{title: strings.TrimSpace(t[4:])}
		case strings.HasPrefix(t, "## ") || t == "##":
			flush()
			return out
		case cur != nil:
			body = append(body, line)
		}
	}
	flush()
	return out
}

// titleOf makes a short report title from the question: the question,
// cut to its first clause when long and that clause says what is asked
// (two words that are not stop words: not "Where can I see"); a
// question keeps its question mark unless it is cut short ("…"), other
// final punctuation goes.
func titleOf(q string) string {
	q = strings.TrimSpace(q)
	t := strings.TrimRight(q, "?!. ")
	mark := ""
	if strings.HasSuffix(strings.TrimRight(q, "!. "), "?") {
		mark = "?"
	}
	if len(strings.Fields(t)) > maxTitleWords {
		if i := strings.IndexAny(t, ",;:("); i > 0 && len(strings.Fields(t[:i])) >= 3 && contentWords(t[:i]) >= 2 {
			t = t[:i]
		}
	}
	if w := strings.Fields(t); len(w) > maxTitleWords {
		t, mark = strings.Join(w[:maxTitleWords], " ")+"…", ""
	}
	if t == "" {
		return "Research report"
	}
	r, n := utf8.DecodeRuneInString(t)
	return string(unicode.ToUpper(r)) + t[n:] + mark
}

// contentWords counts the words of s that are not stop words.
func contentWords(s string) int {
	n := 0
	for _, w := range strings.Fields(s) {
		if !terms.IsStop(strings.ToLower(strings.Trim(w, ".,;:!?\"'()"))) {
			n++
		}
	}
	return n
}
