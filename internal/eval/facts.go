package eval

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A question's answer key is its Facts: the distinctive facts a correct
// answer contains (a setting's name, a command, a value, an identifier, a
// file path; never a word of the question), each a list of acceptable
// spellings. A fact occurs in a text when one of its spellings does,
// case-insensitively, with every run of white space read as one space and
// markdown's escapes (`\_`, `&lt;`) undone, so a report that quotes
// "O\_NONBLOCK" holds the fact "O_NONBLOCK"; the targets of markdown
// links are not read, so a report whose citation links to
// ".../man2/mmap.2.txt" does not hold "mmap" by the link alone.

// foldText is text as the facts check reads it: markdown link targets
// dropped, lower-case, markdown's backslash escapes and its three entity
// escapes undone, white space runs made one space.
func foldText(s string) string {
	if strings.Contains(s, "](") {
		s = linkTarget.ReplaceAllString(s, "]")
	}
	if strings.Contains(s, "\\") || strings.Contains(s, "&") {
		s = unescaper.Replace(s)
	}
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// linkTarget is the target of a markdown link or image, "](URL)" or
// "](URL "title")", with balanced parentheses one deep inside the URL.
var linkTarget = regexp.MustCompile(`\]\((?:[^()\s]|\([^()\s]*\))*(?:\s+"[^"]*")?\)`)

// unescaper undoes mdtext.Escape's escapes: a backslash before ASCII
// punctuation, and the entities it writes.
var unescaper = func() *strings.Replacer {
	var pairs []string
	for c := byte('!'); c <= '~'; c++ {
		if (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') {
			continue
		}
		pairs = append(pairs, "\\"+string(c), string(c))
	}
	return strings.NewReplacer(append(pairs, "&lt;", "<", "&gt;", ">", "&amp;", "&")...)
}()

// MissingFacts returns the facts none of whose spellings occurs in any
// one of texts (a fact does not count when it only straddles two of
// them), each as its first spelling, in the key's order; nil when all
// occur or there are none.
func MissingFacts(facts [][]string, texts ...string) []string {
	if len(facts) == 0 {
		return nil
	}
	folded := make([]string, len(texts))
	for i, t := range texts {
		folded[i] = foldText(t)
	}
	var missing []string
	for _, f := range facts {
		found := slices.ContainsFunc(f, func(spelling string) bool {
			s := foldText(spelling)
			return slices.ContainsFunc(folded, func(t string) bool { return strings.Contains(t, s) })
		})
		if !found {
			missing = append(missing, f[0])
		}
	}
	return missing
}

// checkKey reports what is wrong with a question's answer key: an empty
// fact or spelling, or a spelling the question itself contains, as
// written, between word boundaries (a fact must be something the answer
// adds, not an echo of the question: "Timeout" is no fact of "…with a
// timeout?", "-race" is one of "…with the race detector?").
func checkKey(q Question) error {
	question := foldText(q.Question)
	for i, f := range q.Facts {
		if len(f) == 0 {
			return fmt.Errorf("fact %d has no spelling", i+1)
		}
		for _, s := range f {
			if strings.TrimSpace(s) == "" {
				return fmt.Errorf("fact %d has an empty spelling", i+1)
			}
			if containsWord(question, foldText(s)) {
				return fmt.Errorf("fact %d's spelling %q is in the question", i+1, s)
			}
		}
	}
	return nil
}

// containsWord reports whether s holds sub with no letter or digit
// right before or after it.
func containsWord(s, sub string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], sub)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(sub)
		before, _ := utf8.DecodeLastRuneInString(s[:start])
		after, _ := utf8.DecodeRuneInString(s[end:])
		if (start == 0 || notWordRune(before)) && (end == len(s) || notWordRune(after)) {
			return true
		}
		i = start + 1
	}
}

func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// KeyProblems checks the answer keys of qs against the documents: every
// fact of a keyed question must occur in at least one of its expected
// documents, read through doc (the index's text of the document). It
// returns one line per fact that occurs in none, naming the question and
// the fact. An expected document doc cannot read is skipped, and listed in
// absent ("question: document"), so that a question set may expect
// documents a newer corpus writer adds; a fact all of whose expected
// documents are absent is not checked. An error other than a missing
// document stops the check: isAbsent says which errors mean missing.
func KeyProblems(ctx context.Context, qs []Question, doc func(ctx context.Context, id string) (Doc, error), isAbsent func(error) bool) (problems, absent []string, err error) {
	for _, q := range qs {
		if len(q.Facts) == 0 {
			continue
		}
		var texts []string
		for _, id := range q.Expect {
			d, err := doc(ctx, id)
			if err != nil {
				if isAbsent(err) {
					absent = append(absent, q.ID+": "+id)
					continue
				}
				return problems, absent, fmt.Errorf("eval: question %s: document %s: %w", q.ID, id, err)
			}
			texts = append(texts, d.Title+"\n"+d.Text)
		}
		if len(texts) == 0 {
			continue
		}
		for _, f := range MissingFacts(q.Facts, texts...) {
			problems = append(problems, fmt.Sprintf("%s %q: the fact %q occurs in none of its expected documents %v", q.ID, q.Question, f, q.Expect))
		}
	}
	return problems, absent, nil
}
