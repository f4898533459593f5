package relevance

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/deepresearch/deepresearch/internal/terms"
)

// Lexical is the offline Judge: key-term coverage. A candidate's score is
// the weighted share of key terms its title and text contain, the terms of
// the user's question weighing questionWeight and the task's other terms
// one. It is relevant when it has at least one of the question's terms
// (all of them for a question of one or two terms is not required) and
// its score reaches MinScore. Lexical holds no state.
type Lexical struct {
	// MinScore is the lowest score kept (default 0.25).
	MinScore float64
}

const (
	questionWeight  = 2.0
	defaultMinScore = 0.25
	// namedScore is the least score of a document named after the
	// subject: above the relative floor of a task's best (relativeFloor).
	namedScore = 0.5
)

// namedAfter reports whether title names the subject: it has a key term
// that is not a number, and each is a term of the question (inQ, by stem)
// or of the task.
func namedAfter(title string, inQ map[string]bool, task []term) bool {
	n := 0
	for _, t := range termsOf(title) {
		if isNumber(t.name) {
			continue
		}
		if !inQ[t.stem] && !slices.ContainsFunc(task, func(u term) bool { return u.stem == t.stem }) {
			return false
		}
		n++
	}
	return n > 0
}

func isNumber(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// term is one key term: a word stem, or a compound ("SHA-256",
// "happens-before") that matches written joined or as all of its parts.
type term struct {
	name  string   // as shown in reasons
	stem  string   // the stem of the word or of the joined compound
	parts []string // the stems of a compound's parts; nil for a word
}

// termsOf returns the key terms of s: words that are not stop words, and
// hyphenated or dotted compounds as one term each.
func termsOf(s string) []term {
	var out []term
	seen := map[string]bool{}
	add := func(t term) {
		if !seen[t.stem] {
			seen[t.stem] = true
			out = append(out, t)
		}
	}
	for _, f := range strings.Fields(s) {
		parts := terms.Tokens(f)
		if len(parts) > 1 && compound(f) {
			var stems []string
			for _, p := range parts {
				stems = append(stems, terms.Stem(p))
			}
			add(term{name: strings.Join(parts, "-"), stem: terms.Stem(strings.Join(parts, "")), parts: stems})
			continue
		}
		for _, p := range parts {
			if terms.IsKey(p) {
				add(term{name: p, stem: terms.Stem(p)})
			}
		}
	}
	return out
}

// compound reports whether a whitespace-delimited field joins its words
// with hyphens or dots only ("happens-before", "SHA-256", "sync.Mutex").
func compound(f string) bool {
	f = strings.Trim(f, `"'“”‘’()[]{},;:?!`)
	f = strings.TrimRight(f, ".")
	if !strings.ContainsAny(f, "-.") {
		return false
	}
	for _, r := range f {
		if !(r == '-' || r == '.' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') && r < 0x80 {
			return false
		}
	}
	return true
}

// vocab is the set of stems of a text, with the joined stems of its
// compounds.
func vocab(s string) map[string]bool {
	m := map[string]bool{}
	for _, f := range strings.Fields(s) {
		parts := terms.Tokens(f)
		for _, p := range parts {
			m[terms.Stem(p)] = true
		}
		if len(parts) > 1 {
			m[terms.Stem(strings.Join(parts, ""))] = true
		}
	}
	return m
}

func (t term) in(v map[string]bool) bool {
	if v[t.stem] {
		return true
	}
	if len(t.parts) == 0 {
		return false
	}
	for _, p := range t.parts {
		if !v[p] {
			return false
		}
	}
	return true
}

// Judge implements Judge.
func (l Lexical) Judge(_ context.Context, req Request) ([]Judgement, error) {
	min := l.MinScore
	if min <= 0 {
		min = defaultMinScore
	}
	qterms := termsOf(req.Question)
	inQ := map[string]bool{}
	for _, t := range qterms {
		inQ[t.stem] = true
	}
	var tterms []term
	for _, t := range termsOf(req.Task) {
		if !inQ[t.stem] {
			tterms = append(tterms, t)
		}
	}
	total := questionWeight*float64(len(qterms)) + float64(len(tterms))
	out := make([]Judgement, len(req.Candidates))
	for i, c := range req.Candidates {
		v := vocab(c.Title + "\n" + c.Text)
		var qm, tm []string
		w := 0.0
		for _, t := range qterms {
			if t.in(v) {
				qm = append(qm, t.name)
				w += questionWeight
			}
		}
		for _, t := range tterms {
			if t.in(v) {
				tm = append(tm, t.name)
				w++
			}
		}
		j := &out[i]
		if total > 0 {
			j.Score = w / total
		}
		// A document named after a key term (its title is nothing but
		// the question's or the task's terms: a dictionary entry, a
		// manual page, a package) is on the subject whichever of its
		// passages the search returned.
		named := len(qm) > 0 && namedAfter(c.Title, inQ, tterms)
		if named && j.Score < namedScore {
			j.Score = namedScore
		}
		switch {
		case total == 0:
			j.Reason = "the question has no key terms to match"
		case len(qterms) > 0 && len(qm) == 0:
			j.Reason = "shares no key term with the question"
		case len(qterms) == 0 && len(tm) == 0:
			j.Reason = "shares no key term with the task"
		case j.Score < min:
			j.Reason = fmt.Sprintf("covers too few key terms (%s; score %.2f < %.2f)", matched(qm, tm), j.Score, min)
		case named:
			j.Relevant = true
			j.Reason = "named after the subject; matches " + matched(qm, tm)
		default:
			j.Relevant = true
			j.Reason = "matches " + matched(qm, tm)
		}
	}
	return out, nil
}

func matched(q, t []string) string {
	var parts []string
	if len(q) > 0 {
		parts = append(parts, "question terms "+strings.Join(q, ", "))
	}
	if len(t) > 0 {
		parts = append(parts, "task terms "+strings.Join(t, ", "))
	}
	if len(parts) == 0 {
		return "no key term"
	}
	return strings.Join(parts, "; ")
}
