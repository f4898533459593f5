package verify

import (
	"cmp"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Grades of evidence, as GRADE rates them, weakest first; 0 is unrated.
const (
	gradeNone = iota
	gradeVeryLow
	gradeLow
	gradeModerate
	gradeHigh
)

var gradeNames = [...]string{"", "VERY LOW", "LOW", "MODERATE", "HIGH"}

// parseGrade reads a grade as written in front matter or JSON: "HIGH",
// "moderate", "very low", "VERY_LOW" …; anything else is unrated.
func parseGrade(s string) int {
	s = strings.ToUpper(strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == ' ' || r == '_' || r == '-' }), " "))
	for g, name := range gradeNames {
		if g > 0 && s == name {
			return g
		}
	}
	return gradeNone
}

// typeGrades rates a source by its type when it carries no grade: the
// design of the study, or the kind of document, as GRADE's starting
// points go (randomised trials and reviews of them high, observational
// studies lower, opinion and informal writing low).
var typeGrades = func() map[string]int {
	m := map[string]int{}
	for g, types := range map[int]string{
		gradeHigh: `systematic-review meta-analysis rct randomized-controlled-trial randomised-controlled-trial
			guideline specification spec standard rfc official-documentation`,
		gradeModerate: `cohort cohort-study observational case-control peer-reviewed journal-article paper
			conference-paper book textbook documentation report technical-report`,
		gradeLow: `blog blog-post forum opinion editorial commentary news preprint case-report case-series
			expert-opinion anecdote social-media web-page press-release marketing`,
	} {
		for _, t := range strings.Fields(types) {
			m[t] = g
		}
	}
	return m
}()

// gradeOf is the grade of a source: its own, else its type's.
func gradeOf(grade, typ string) int {
	if g := parseGrade(grade); g != gradeNone {
		return g
	}
	t := strings.ToLower(strings.Join(strings.FieldsFunc(typ, func(r rune) bool { return r == ' ' || r == '_' || r == '-' }), "-"))
	return typeGrades[t]
}

// frontMatterEnd returns the offset just past a markdown document's YAML
// front matter (a "---" line at its very top, closed by a "---" or "..."
// line), or 0 when it has none.
func frontMatterEnd(text string) int {
	first, rest, ok := strings.Cut(text, "\n")
	if !ok || strings.TrimRight(first, " \t\r") != "---" {
		return 0
	}
	at := len(first) + 1
	for rest != "" {
		line, next, _ := strings.Cut(rest, "\n")
		at += len(line) + 1
		if l := strings.TrimRight(line, " \t\r"); l == "---" || l == "..." {
			return min(at, len(text))
		}
		rest = next
	}
	return 0
}

// meta is what a document's front matter says about it as a source.
type meta struct {
	title, grade, typ, ref string
}

// frontMatter reads the fields of a document's YAML front matter that
// verification uses: title, grade, type (or evidence_type), and ref (or
// id). Front matter that is not a YAML mapping says nothing.
func frontMatter(text string) meta {
	end := frontMatterEnd(text)
	if end == 0 {
		return meta{}
	}
	body := text[strings.IndexByte(text, '\n')+1 : end]
	body = body[:strings.LastIndexByte(strings.TrimRight(body, "\n"), '\n')+1] // without the closing line
	var fm map[string]any
	if err := yaml.Unmarshal([]byte(body), &fm); err != nil {
		return meta{}
	}
	str := func(keys ...string) string {
		for _, k := range keys {
			switch v := fm[k].(type) {
			case string:
				return strings.TrimSpace(v)
			case int:
				return strconv.Itoa(v)
			}
		}
		return ""
	}
	return meta{title: str("title"), grade: str("grade", "evidence_grade", "quality"), typ: str("type", "evidence_type", "source_type"), ref: str("ref", "id")}
}

// certainty is certainty language and the hedge suggested for it, by the
// phrase lower-cased.
var certainty = map[string]string{
	"proves": "suggests", "prove": "suggest", "proved": "suggested", "proven": "supported",
	"proof that": "evidence that", "definitively": "probably", "definitely": "probably",
	"conclusively": "tentatively", "certainly": "probably", "undoubtedly": "likely",
	"unquestionably": "arguably", "indisputably": "arguably", "irrefutably": "arguably",
	"without doubt": "likely", "without a doubt": "likely", "without any doubt": "likely",
	"beyond doubt": "with some confidence", "beyond any doubt": "with some confidence",
	"there is no doubt": "it is likely", "it is a fact that": "it appears that",
	"always": "usually", "in all cases": "in most cases", "universally": "widely",
	"all studies": "the studies cited", "every study": "the studies cited",
	"all researchers": "many researchers", "all experts": "many experts", "all scientists": "many scientists",
	"all the evidence": "the evidence cited", "all evidence": "the evidence cited",
	"the science is settled": "the evidence is strong", "guarantees": "helps ensure", "guarantee": "help ensure",
	"establishes": "indicates", "clearly shows": "indicates", "clearly demonstrates": "indicates",
}

// certaintyRe finds certainty language, longest phrase first.
var certaintyRe = func() *regexp.Regexp {
	var alts []string
	for p := range certainty {
		alts = append(alts, regexp.QuoteMeta(p))
	}
	// Longer phrases first, so "without a doubt" wins over "without doubt".
	slices.SortFunc(alts, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	return regexp.MustCompile(`(?i)\b(?:` + strings.Join(alts, "|") + `)\b`)
}()

// hedge returns the hedge for a certainty phrase as written, its first
// letter's case kept.
func hedge(phrase string) string {
	h := certainty[strings.ToLower(strings.Join(strings.Fields(phrase), " "))]
	if r, _ := utf8.DecodeRuneInString(phrase); unicode.IsUpper(r) && h != "" {
		hr, size := utf8.DecodeRuneInString(h)
		h = string(unicode.ToUpper(hr)) + h[size:]
	}
	return h
}
