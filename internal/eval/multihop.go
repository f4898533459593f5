package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
)

// MultiHopQuestion is a question whose answer needs a second hop: it
// names a behaviour documented in one document (First) and asks about
// what another provides for it, named only inside the first (Second).
type MultiHopQuestion struct {
	ID       string   `json:"id"`
	Question string   `json:"question"`
	First    []string `json:"first"`
	Second   []string `json:"second"`
}

// LoadMultiHop reads a multi-hop questions file: {"questions": [MultiHopQuestion…]}.
func LoadMultiHop(path string) ([]MultiHopQuestion, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("eval: multi-hop questions: %w", err)
	}
	var f struct {
		Questions []MultiHopQuestion `json:"questions"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("eval: multi-hop questions %s: %w", path, err)
	}
	for i, q := range f.Questions {
		if strings.TrimSpace(q.Question) == "" || len(q.First) == 0 || len(q.Second) == 0 {
			return nil, fmt.Errorf("eval: multi-hop questions %s: question %d (%q) needs a question and the documents of both hops", path, i+1, q.ID)
		}
	}
	return f.Questions, nil
}

// MultiHopResult is one question's outcome for one system.
type MultiHopResult struct {
	MultiHopQuestion
	Cited []string
	// Hit: a document of either hop is cited. FirstHop, SecondHop: one of
	// that hop's documents is.
	Hit, FirstHop, SecondHop bool
	// SecondRecall is the share of the second hop's documents cited.
	SecondRecall float64
	// OffTopic and SecondHops are as in Result: the cited documents off
	// the question's topic, and those on it only as second hops.
	OffTopic, SecondHops []string
}

// MultiHopSummary is one system's figures over the multi-hop questions.
type MultiHopSummary struct {
	Name      string
	Questions int
	// HitRate: a document of either hop cited. FirstHop: a first-hop
	// document cited. SecondHopRecall: the mean share of second-hop
	// documents cited. SecondHop: a second-hop document cited.
	HitRate, FirstHop, SecondHop, SecondHopRecall float64
	Cited                                         int // documents cited, summed over questions
	OffTopic, SecondHops                          int
}

// EvaluateMultiHop answers every question with answer and scores the
// citations by hop; doc reads a document, for the topic check of
// Evaluate. An error from answer stops the evaluation.
func EvaluateMultiHop(ctx context.Context, name string, qs []MultiHopQuestion, answer Answerer, doc func(ctx context.Context, id string) (Doc, error)) (MultiHopSummary, []MultiHopResult, error) {
	s := MultiHopSummary{Name: name, Questions: len(qs)}
	var out []MultiHopResult
	for _, q := range qs {
		ans, err := answer(ctx, q.Question)
		cited := ans.Cited
		if err != nil {
			return s, out, fmt.Errorf("eval: %s: question %s: %w", name, q.ID, err)
		}
		r := MultiHopResult{MultiHopQuestion: q, Cited: cited}
		t, err := checkTopics(ctx, q.Question, append(slices.Clone(q.First), q.Second...), cited, doc)
		if err != nil {
			return s, out, fmt.Errorf("eval: %s: question %s: %w", name, q.ID, err)
		}
		r.OffTopic, r.SecondHops = t.offTopic, t.secondHops
		s.OffTopic += len(t.offTopic)
		s.SecondHops += len(t.secondHops)
		in := func(id string) bool { return slices.Contains(cited, id) }
		r.FirstHop = slices.ContainsFunc(q.First, in)
		found := 0
		for _, id := range q.Second {
			if in(id) {
				found++
			}
		}
		r.SecondHop = found > 0
		r.SecondRecall = float64(found) / float64(len(q.Second))
		r.Hit = r.FirstHop || r.SecondHop
		s.HitRate += b2f(r.Hit)
		s.FirstHop += b2f(r.FirstHop)
		s.SecondHop += b2f(r.SecondHop)
		s.SecondHopRecall += r.SecondRecall
		s.Cited += len(cited)
		out = append(out, r)
	}
	if n := float64(len(qs)); n > 0 {
		s.HitRate /= n
		s.FirstHop /= n
		s.SecondHop /= n
		s.SecondHopRecall /= n
	}
	return s, out, nil
}

// MultiHopTable writes the summaries side by side, one row per metric.
func MultiHopTable(w io.Writer, sums ...MultiHopSummary) {
	pct := func(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }
	metrics := []struct {
		name  string
		value func(MultiHopSummary) string
	}{
		{"questions", func(s MultiHopSummary) string { return fmt.Sprint(s.Questions) }},
		{"second-hop recall", func(s MultiHopSummary) string { return pct(s.SecondHopRecall) }},
		{"hit rate (a document of either hop cited)", func(s MultiHopSummary) string { return pct(s.HitRate) }},
		{"first hop cited", func(s MultiHopSummary) string { return pct(s.FirstHop) }},
		{"documents cited per question", func(s MultiHopSummary) string {
			return fmt.Sprintf("%.2f", float64(s.Cited)/float64(max(s.Questions, 1)))
		}},
		{"cited documents sharing no key term (off-topic)", func(s MultiHopSummary) string { return fmt.Sprint(s.OffTopic) }},
		{"second hops (no key term; the document of a name a cited passage quotes)", func(s MultiHopSummary) string { return fmt.Sprint(s.SecondHops) }},
	}
	head, rule := []string{"metric"}, []string{"---"}
	for _, s := range sums {
		head, rule = append(head, s.Name), append(rule, "---:")
	}
	lines := [][]string{head, rule}
	for _, m := range metrics {
		line := []string{m.name}
		for _, s := range sums {
			line = append(line, m.value(s))
		}
		lines = append(lines, line)
	}
	for _, l := range lines {
		fmt.Fprintf(w, "| %s |\n", strings.Join(l, " | "))
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
