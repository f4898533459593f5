package verify

import (
	"fmt"
	"regexp"
	"strings"
)

// statisticRe finds figures a reader would want a source for: percentages,
// sums of money, counts with a magnitude ("3 million") or grouped digits
// ("12,000"), multipliers ("2.5x faster") and ratios ("one in five", "3
// out of 4"). Version numbers, years and small counts are not statistics.
var statisticRe = regexp.MustCompile(`(?i)` +
	`\d+(?:[.,]\d+)?\s?(?:%|percent\b|per\s?cent\b|percentage points?\b)` +
	`|[$€£¥]\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:k|m|bn|thousand|million|billion|trillion)\b)?` +
	`|\b(?:USD|EUR|GBP|JPY)\s?\d[\d,]*(?:\.\d+)?` +
	`|\b\d[\d,]*(?:\.\d+)?\s?(?:USD|EUR|GBP|JPY|dollars|euros)\b` +
	`|\b\d[\d,]*(?:\.\d+)?\s?(?:thousand|million|billion|trillion)\b` +
	`|\b\d{1,3}(?:,\d{3})+(?:\.\d+)?\b` +
	`|\b\d+(?:\.\d+)?\s?(?:x|×|times)\s+(?:faster|slower|more|less|fewer|higher|lower|larger|smaller|bigger|cheaper|as)\b` +
	`|\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten)\s+(?:in|out\s+of)\s+(?:every\s+)?(?:\d+|two|three|four|five|six|seven|eight|nine|ten|hundred|thousand)\b`)

// urlRe finds URLs in prose, whose digits are no statistics.
var urlRe = regexp.MustCompile(`\b(?:https?|file)://\S+`)

// proseSentence is a sentence of the report's prose.
type proseSentence struct {
	start, end int  // in the report
	quote      bool // in a block quote: another's words
}

// proseSentences returns the sentences of the report's paragraphs, list
// items and block quotes, as attachSentences splits them (m is the report
// with its markers masked): no headings, table rows, code, front matter
// or reference lists. Certainty language in a block quote is not judged:
// it is the quoted author's.
func proseSentences(m string, lay *layout) []proseSentence {
	var out []proseSentence
	blocks := blockStarts(m)
	for i, lo := range blocks {
		hi := len(m)
		if i+1 < len(blocks) {
			hi = blocks[i+1]
		}
		first := strings.TrimLeft(m[lo:hi], " \t\n")
		if strings.HasPrefix(first, "#") || strings.HasPrefix(first, "|") {
			continue
		}
		for _, s := range splitSentences(m[lo:hi]) {
			if !lay.inBlock(lo+s.start, lo+s.end) {
				out = append(out, proseSentence{lo + s.start, lo + s.end, strings.HasPrefix(first, ">")})
			}
		}
	}
	return out
}

// metaOpeners start sentences about the report rather than the world.
var metaOpeners = []string{"see ", "for more", "for details", "note:", "note that", "this report", "this section",
	"this document", "in summary", "in conclusion", "to summarize", "to summarise", "the following", "below", "above",
	"as follows", "let us", "let's", "we ", "i ", "you ", "consider ", "read ", "here ", "todo"}

// factual reports whether a sentence states something that could need a
// source: a declarative sentence of six words or more, not a question,
// not one that introduces what follows (ending in ':'), and not about the
// report itself ("This report…", "See…").
func factual(text string) bool {
	if len(strings.Fields(text)) < 6 {
		return false
	}
	t := strings.TrimRight(text, `"')]*_ `)
	if strings.HasSuffix(t, "?") || strings.HasSuffix(t, ":") {
		return false
	}
	lower := strings.ToLower(text)
	for _, p := range metaOpeners {
		if strings.HasPrefix(lower, p) {
			return false
		}
	}
	return true
}

// backing is a source a sentence cites that holds: its key (one per
// source or file), grade, and the passage that supports the sentence.
type backing struct {
	key   string
	grade int
	quote string
}

// prose checks the sentences of the report (ScopeAll): a statistic in a
// sentence that cites nothing, with Options.Uncited any factual sentence
// that cites nothing, and certainty language that the sentence's support
// does not warrant. Each is one problem on the sentence's line; the edits
// returned are the notes Fix.Annotate leaves for them.
func (c *checker) prose(res *Result, cits []found, lay *layout) []edit {
	m := maskMarkers(c.report, cits)
	// The citations of each sentence, by the sentence's start.
	at := map[int]int{}
	for _, f := range cits {
		if f.sentence != "" {
			at[f.off] = f.sentenceAt
		}
	}
	bySentence := map[int][]Citation{}
	for _, ct := range res.Citations {
		if s, ok := at[ct.Offset]; ok {
			bySentence[s] = append(bySentence[s], ct)
		}
	}
	var edits []edit
	sum := &res.Summary
	for _, s := range proseSentences(m, lay) {
		raw := m[s.start:s.end]
		text := cleanSentence(raw)
		cites := bySentence[s.start]
		if len(cites) == 0 {
			stats := c.matches(statisticRe, m, s, lay)
			switch {
			case len(stats) > 0:
				sum.Statistics++
				figures := quoteList(m, stats)
				res.add(Problem{Line: c.lines.line(stats[0].start), Severity: Warning, Kind: ProblemStatistic, Marker: m[stats[0].start:stats[0].end],
					Message: fmt.Sprintf("%s: a statistic in a sentence that cites nothing", figures),
					Fix:     fmt.Sprintf("cite the source of %s, or remove it", figures)})
				edits = append(edits, c.todo(s)...)
			case c.opts.Uncited && factual(text):
				sum.UncitedClaims++
				res.add(Problem{Line: c.lines.line(s.start), Severity: Warning, Kind: ProblemUncited, Marker: clip(text, 60),
					Message: fmt.Sprintf("%q cites nothing", clip(text, 120)),
					Fix:     "cite the source the sentence comes from, or remove it"})
				edits = append(edits, c.todo(s)...)
			}
		}
		if s.quote {
			continue // a quotation's certainty is its author's
		}
		phrases := c.matches(certaintyRe, m, s, lay)
		if len(phrases) == 0 {
			continue
		}
		why, stronger := c.overclaim(cites, phrases, m)
		if why == "" {
			continue
		}
		sum.Overclaims++
		words := quoteList(m, phrases)
		var hedges []string
		for _, p := range phrases {
			w := m[p.start:p.end]
			hedges = append(hedges, fmt.Sprintf("%q → %q", w, hedge(w)))
			edits = append(edits, edit{off: p.start, len: p.end - p.start,
				text: hedge(w) + comment(fmt.Sprintf("hedged %q: %s", w, why))})
		}
		res.add(Problem{Line: c.lines.line(phrases[0].start), Severity: Warning, Kind: ProblemOverclaim, Marker: m[phrases[0].start:phrases[0].end],
			Message: fmt.Sprintf("%s: certainty language, but %s", words, why),
			Fix:     fmt.Sprintf("hedge it (%s), or %s", strings.Join(hedges, ", "), stronger)})
	}
	return edits
}

// matches returns the spans of re in sentence s of m that are prose (not
// code, not an HTML comment, not a URL).
func (c *checker) matches(re *regexp.Regexp, m string, s proseSentence, lay *layout) []span {
	raw := m[s.start:s.end]
	urls := urlRe.FindAllStringIndex(raw, -1)
	var out []span
	for _, x := range re.FindAllStringIndex(raw, -1) {
		lo, hi := s.start+x[0], s.start+x[1]
		inURL := false
		for _, u := range urls {
			inURL = inURL || x[0] < u[1] && u[0] < x[1]
		}
		if !inURL && !lay.skipped(lo, hi) {
			out = append(out, span{lo, hi})
		}
	}
	return out
}

// overclaim says why certainty language is not warranted by the cited
// support of its sentence ("" when it is), and what would warrant it.
// Support is the distinct sources the sentence cites that exist (numbers
// of retrieved sources, whether or not they support the sentence, which is
// checked apart; matched DOIs, author-years and REF identifiers; files that
// exist); their grade is their own or their type's. The
// language is an overclaim when nothing holds it up, when every source is
// graded LOW or VERY LOW, or when it rests on one source not graded
// HIGH, unless that source's supporting passage says it as certainly
// (the same words): then the sentence reports its source.
func (c *checker) overclaim(cites []Citation, phrases []span, m string) (why, stronger string) {
	var backs []backing
	index := map[string]int{}
	add := func(key string, grade int, quote string) {
		if i, ok := index[key]; ok {
			backs[i].grade = max(backs[i].grade, grade)
			if quote != "" && len(backs[i].quote) < 1<<16 {
				backs[i].quote += "\n" + quote
			}
			return
		}
		index[key] = len(backs)
		backs = append(backs, backing{key, grade, quote})
	}
	bySource := func(n int, quote string) {
		src := c.sources[n]
		add(fmt.Sprintf("source %d", n), gradeOf(src.Grade, src.Type), quote)
	}
	for _, ct := range cites {
		switch {
		case (ct.Kind == KindNumber || ct.Kind == KindRef) && ct.Status != Fabricated && ct.Number > 0:
			quote := ""
			if ct.Evidence != nil {
				quote = ct.Evidence.Quote
			}
			bySource(ct.Number, quote)
		case (ct.Kind == KindDOI || ct.Kind == KindAuthorYear || ct.Kind == KindRefID) && ct.Status == Matched:
			bySource(c.matchedSource(ct), "")
		case ct.Kind == KindMention && ct.Status == Matched, ct.Kind == KindFile && (ct.Status == Fresh || ct.Status == Unversioned):
			fm := c.fileMeta(ct.Ref)
			add("file "+ct.Ref, gradeOf(fm.grade, fm.kind), "")
		}
	}
	best, weak := gradeNone, len(backs) > 0
	for _, b := range backs {
		best = max(best, b.grade)
		weak = weak && (b.grade == gradeLow || b.grade == gradeVeryLow)
	}
	switch {
	case len(backs) == 0:
		return "it cites no source", "cite sources that support it"
	case weak:
		return fmt.Sprintf("its best source is graded %s", gradeNames[best]), "cite stronger evidence (a source graded MODERATE or HIGH)"
	case len(backs) == 1 && best != gradeHigh && !says(backs[0].quote, phrases, m):
		why = "it rests on a single source"
		if best != gradeNone {
			why += " graded " + gradeNames[best]
		}
		return why, "cite further sources that support it"
	}
	return "", ""
}

// says reports whether a passage uses every certainty phrase of a
// sentence itself.
func says(quote string, phrases []span, m string) bool {
	if quote == "" {
		return false
	}
	in := map[string]bool{}
	for _, w := range certaintyRe.FindAllString(quote, -1) {
		in[strings.ToLower(strings.Join(strings.Fields(w), " "))] = true
	}
	for _, p := range phrases {
		if !in[strings.ToLower(strings.Join(strings.Fields(m[p.start:p.end]), " "))] {
			return false
		}
	}
	return true
}

// todo is the note Fix.Annotate leaves on a sentence that needs a source:
// "[TODO: cite a source]" before its final stop; none when the sentence
// has a TODO already.
func (c *checker) todo(s proseSentence) []edit {
	if strings.Contains(c.report[s.start:s.end], "[TODO:") {
		return nil
	}
	at := s.end
	for at > s.start && strings.IndexByte(`"')]*_`, c.report[at-1]) >= 0 {
		at--
	}
	if at > s.start && strings.IndexByte(".!?", c.report[at-1]) >= 0 {
		at--
	} else {
		at = s.end
	}
	return []edit{{off: at, text: " " + todoCite}}
}

// The notes Fix.Annotate leaves.
const (
	todoCite    = "[TODO: cite a source]"
	todoVerify  = "[TODO: verify source]"
	staleNote   = "[STALE: hash mismatch]"
	missingNote = "[MISSING: no such file]"
)

// comment is an HTML comment holding note, made safe: one line, no "--".
func comment(note string) string {
	note = strings.Join(strings.Fields(note), " ")
	for strings.Contains(note, "--") {
		note = strings.ReplaceAll(note, "--", "-")
	}
	note = strings.TrimRight(note, "-")
	return "<!-- verify: " + note + " -->"
}

// quoteList writes the texts of spans of m as a list: "a", "b" and "c"
// (each text once).
func quoteList(m string, spans []span) string {
	var parts []string
	seen := map[string]bool{}
	for _, s := range spans {
		if t := m[s.start:s.end]; !seen[t] {
			seen[t] = true
			parts = append(parts, fmt.Sprintf("%q", t))
		}
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
