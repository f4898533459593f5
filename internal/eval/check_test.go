package eval_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/deepresearch/deepresearch/internal/eval"
)

// TestOffTopicCheck: a cited document that shares no key term with its
// question is off-topic unless it is a second hop — the document of a
// name that another cited document, on the question, quotes in a
// sentence bearing on it.
func TestOffTopicCheck(t *testing.T) {
	const q = "The lottery notes point elsewhere for secure draws: can the generator of the module they recommend fail?"
	docs := map[string]eval.Doc{
		"notes/lottery.md": {Title: "Lottery notes", Text: "The lottery notes describe predictable draws. " +
			"For secure draws, the lottery notes recommend the crypto/rand module. Unrelated hashing lives in hash/maphash."},
		"pkg/crypto/rand.md":  {Title: "Package rand (crypto/rand)", Text: "Reader never returns an error; it is cryptographically safe."},
		"pkg/hash/maphash.md": {Title: "Package maphash (hash/maphash)", Text: "Hash functions on byte sequences."},
		"pkg/crypto/tls.md":   {Title: "Package tls (crypto/tls)", Text: "Transport layer security."},
		"unrelated.md":        {Title: "Unrelated", Text: "Nothing here but crypto/rand for keys."},
	}
	doc := func(_ context.Context, id string) (eval.Doc, error) {
		d, ok := docs[id]
		if !ok {
			return d, fmt.Errorf("no document %s", id)
		}
		return d, nil
	}
	tests := []struct {
		name       string
		cited      []string
		offTopic   []string
		secondHops int
	}{
		{"the recommended package, named in a cited first hop", []string{"notes/lottery.md", "pkg/crypto/rand.md"}, nil, 1},
		{"a second hop whose first hop is not cited", []string{"pkg/crypto/rand.md"}, []string{"pkg/crypto/rand.md"}, 0},
		{"named in a sentence that does not bear on the question", []string{"notes/lottery.md", "pkg/hash/maphash.md"}, []string{"pkg/hash/maphash.md"}, 0},
		{"not named by any cited document", []string{"notes/lottery.md", "pkg/crypto/tls.md"}, []string{"pkg/crypto/tls.md"}, 0},
		{"named only by a document off the question", []string{"unrelated.md", "pkg/crypto/rand.md"}, []string{"unrelated.md", "pkg/crypto/rand.md"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			answer := func(context.Context, string) (eval.Answer, error) { return eval.Answer{Cited: tt.cited}, nil }
			s, rs, err := eval.Evaluate(context.Background(), "research", []eval.Question{{ID: "m04", Question: q, Expect: []string{"pkg/none.md"}}}, answer, doc)
			if err != nil {
				t.Fatal(err)
			}
			if r := rs[0]; !slices.Equal(r.OffTopic, tt.offTopic) || len(r.SecondHops) != tt.secondHops || s.SecondHops != tt.secondHops || s.OffTopic != len(tt.offTopic) {
				t.Errorf("off-topic %v, second hops %v; want off-topic %v and %d second hops", r.OffTopic, r.SecondHops, tt.offTopic, tt.secondHops)
			}
		})
	}
}

// TestNoEvidencePartCheck: a part of an answer saying "no evidence" is a
// problem only when an expected document was kept and the answer cites
// it nowhere; a part with nothing to say beside a cited expected
// document is counted, not flagged.
func TestNoEvidencePartCheck(t *testing.T) {
	doc := func(context.Context, string) (eval.Doc, error) {
		return eval.Doc{Title: "Cables", Text: "undersea cables are repaired by ships"}, nil
	}
	qs := []eval.Question{{ID: "p01", Question: "How are undersea cables repaired?", Expect: []string{"cables.md"}}}
	for _, tc := range []struct {
		name    string
		answer  eval.Answer
		flagged bool
	}{
		{"kept, cited nowhere", eval.Answer{Kept: []string{"cables.md"}, NoEvidenceParts: 2}, true},
		{"kept and cited elsewhere", eval.Answer{Kept: []string{"cables.md"}, Cited: []string{"cables.md"}, NoEvidenceParts: 1}, false},
		{"not kept", eval.Answer{Kept: []string{"other.md"}, NoEvidenceParts: 1}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answer := func(context.Context, string) (eval.Answer, error) { return tc.answer, nil }
			s, rs, err := eval.Evaluate(context.Background(), "research", qs, answer, doc)
			if err != nil {
				t.Fatal(err)
			}
			if s.NoEvidenceParts != tc.answer.NoEvidenceParts || rs[0].NoEvidencePartKept != tc.flagged || (s.NoEvidencePartsKept == 1) != tc.flagged {
				t.Errorf("parts %d, kept %d, flagged %v; want %d parts, flagged %v", s.NoEvidenceParts, s.NoEvidencePartsKept, rs[0].NoEvidencePartKept, tc.answer.NoEvidenceParts, tc.flagged)
			}
			c := eval.Comparison{Research: s, ResearchResults: rs, Baseline: s}
			if got := len(c.Problems()) == 1; got != tc.flagged {
				t.Errorf("problems %q; flagged %v", c.Problems(), tc.flagged)
			}
		})
	}
}
