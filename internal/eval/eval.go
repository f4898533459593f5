// Package eval measures retrieval quality: how often research cites the
// documents a good answer must cite, against a plain search of the
// question as the baseline, on real corpora nobody on the team wrote
// (among them the Go distribution's documentation as the default corpus
// has it: the standard library's packages, the go command's help and
// GOROOT/doc, see WriteCorpus).
//
// Metrics, per system, over a set of hand-written questions:
//
//   - hit rate: the share of questions for which at least one expected
//     document is cited;
//   - recall: the mean share of expected documents cited;
//   - precision: the share of cited documents that are on the topic:
//     expected, sharing a key term with the question
//     (relevance.SharesKeyTerm over the document's title and text), or a
//     second hop (below); strict precision counts expected documents
//     only;
//   - off-topic: cited documents that are none of these (the target is
//     none);
//   - second hops: cited documents that share no key term with the
//     question but are the document of a name that another cited
//     document quotes in a sentence bearing on the question
//     (extractive.SecondHop: the sentence shares a quarter of the
//     question's key terms, at least two; the document's title, a segment
//     of its title or its file name is the name). This is the one way the
//     research loop reaches past the question's words — it follows a name
//     a first-hop passage gives, to that name's own document — and the
//     evaluation checks each such citation against the documents
//     themselves, not against what the run says it followed;
//   - "no evidence" beside the right document: reports that say the
//     sources hold no evidence although the relevance filter kept an
//     expected document (the target is none).
//
// A report that cites the right document but not the fact asked for is
// not an answer, so questions may carry an answer key (Question.Facts:
// the distinctive facts a correct answer contains), and over the keyed
// questions the evaluation also measures:
//
//   - evidence recall: the share whose facts all occur in what the
//     agents handed the writer (their intermediate reports), which does
//     not depend on the writing model; for the plain search, in the full
//     texts of its top documents ("facts in top 5");
//   - answered: the share whose facts all occur in the final report (the
//     verifier's revision when it revised it).
//
// See MissingFacts for how a fact is matched.
//
// The research side is the real Researcher of the root package, driven
// through a Run function (this package cannot import the root, which
// would import it back in its tests): see Research, and the harness
// of Prepare and Compare.
package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/deepresearch/deepresearch/internal/terms"

	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/internal/relevance"
	"github.com/deepresearch/deepresearch/search"
)

// Question is one evaluation question and the documents (corpus IDs) a
// good answer must cite.
type Question struct {
	ID       string   `json:"id"`
	Question string   `json:"question"`
	Expect   []string `json:"expect"`
	// Facts is the answer key: the distinctive facts a correct answer
	// contains, each a list of acceptable spellings. Each must occur in
	// one of the expected documents (KeyProblems) and none may be a word
	// of the question. A question without facts is left out of the
	// answer metrics.
	Facts [][]string `json:"facts,omitempty"`
}

// LoadQuestions reads a questions file: {"questions": [Question…]}.
func LoadQuestions(path string) ([]Question, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("eval: questions: %w", err)
	}
	var f struct {
		Questions []Question `json:"questions"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("eval: questions %s: %w", path, err)
	}
	ids := map[string]bool{}
	for i, q := range f.Questions {
		if strings.TrimSpace(q.Question) == "" || len(q.Expect) == 0 {
			return nil, fmt.Errorf("eval: questions %s: question %d (%q) needs a question and expected documents", path, i+1, q.ID)
		}
		if ids[q.ID] {
			return nil, fmt.Errorf("eval: questions %s: question %d: the ID %q is used twice", path, i+1, q.ID)
		}
		ids[q.ID] = true
		if err := checkKey(q); err != nil {
			return nil, fmt.Errorf("eval: questions %s: question %s: %w", path, q.ID, err)
		}
	}
	return f.Questions, nil
}

// Answer is what a system made of a question.
type Answer struct {
	// Cited are the IDs of the documents the answer cites, in order,
	// without duplicates.
	Cited []string
	// Kept are the documents the relevance filter let through (a plain
	// search keeps what it cites).
	Kept []string
	// NoEvidence says the answer reported that the sources hold no
	// evidence for the question.
	NoEvidence bool
	// NoEvidenceParts counts the report's parts that say the sources hold
	// no evidence for that part of the question.
	NoEvidenceParts int
	// Evidence is what the answer was written from: the agents'
	// intermediate reports, one text per agent (for a plain search, its
	// documents' full texts).
	Evidence []string
	// Shown is what the agents were shown of their sources — their search
	// results and the texts they opened, as their tools gave them (Shown,
	// Showing) — when recorded; nil otherwise.
	Shown []string
	// Report is the answer's text, when Reported: the final report as the
	// reader gets it.
	Report   string
	Reported bool
	// Tasks are the questions of the research plan's tasks (none for a
	// plain search).
	Tasks []string
}

// Doc is a document of the corpus as the checks read it.
type Doc struct {
	Title, Text string
}

// Answerer answers a question.
type Answerer func(ctx context.Context, question string) (Answer, error)

// Result is one question's outcome for one system.
type Result struct {
	Question
	Answer
	Hit      bool
	Recall   float64
	Expected int      // cited documents that are expected
	OnTopic  int      // cited documents expected, sharing a key term with the question, or second hops
	OffTopic []string // cited documents that are none of these
	// SecondHops are the cited documents that share no key term with the
	// question and are the document of a name another cited document
	// quotes in a sentence bearing on it, each as "ID (via NAME in ID)".
	SecondHops []string
	// NoEvidenceKept: the answer said "no evidence" although an expected
	// document was among the kept ones.
	NoEvidenceKept bool
	// NoEvidencePartKept: a part of the answer said "no evidence" although
	// an expected document was kept and the answer cites it nowhere.
	NoEvidencePartKept bool
	// Keyed says the question has an answer key. EvidenceMissing and
	// ReportMissing are its facts (first spellings) that the evidence
	// and the report lack; ReportMissing is nil when the answer has no
	// report.
	Keyed                          bool
	EvidenceMissing, ReportMissing []string
	// UpFront says every fact is in the report's Opening.
	UpFront bool
	// ShownMissing are the facts missing from what the agents were shown,
	// when that was recorded (Answer.Shown).
	ShownMissing []string
	// JunkTasks are the plan's "What is X?" tasks whose X is no subject of
	// the question (NoSubject).
	JunkTasks []string
}

// Summary is one system's figures over all questions.
type Summary struct {
	Name            string
	Questions       int
	HitRate         float64
	Recall          float64
	Precision       float64 // expected or on-topic, over all cited documents
	StrictPrecision float64 // expected, over all cited documents
	Cited           int     // documents cited, summed over questions
	OffTopic        int
	SecondHops      int // on-topic as second hops only
	NoEvidence      int // answers saying the sources hold no evidence
	NoEvidenceKept  int // of those, answers whose kept documents held an expected one
	// NoEvidenceParts: parts of answers saying the sources hold no
	// evidence for them; NoEvidencePartsKept: answers with such a part
	// whose kept documents held an expected one they cite nowhere.
	NoEvidenceParts, NoEvidencePartsKept int
	// Keyed counts the questions with an answer key. EvidenceRecall is
	// the share of them whose facts all occur in the evidence; Answered
	// the share whose facts all occur in the report, when the answers
	// have reports (Reported).
	Keyed          int
	EvidenceRecall float64
	// ShownRecall is the share of the keyed questions whose facts all
	// occur in what the agents were shown, when the answers record it
	// (RecordsShown): a fact shown but not handed on was lost by the
	// agent's choice of passages, one never shown by the search.
	ShownRecall  float64
	RecordsShown bool
	Answered     float64
	// AnsweredUpFront is the share whose facts all occur in the report's
	// Opening: what a reader who stops after its first screen learns.
	AnsweredUpFront float64
	Reported        bool
	// ReportWords is the median report's length in words (its text
	// without link targets), when Reported: what a reader reads for an
	// answer, kept in view beside answered.
	ReportWords int
}

// Evaluate answers every question with answer and scores the citations.
// doc returns a document by ID, for the key-term and second-hop checks.
// An error from answer stops the evaluation.
func Evaluate(ctx context.Context, name string, qs []Question, answer Answerer, doc func(ctx context.Context, id string) (Doc, error)) (Summary, []Result, error) {
	s := Summary{Name: name, Questions: len(qs)}
	var results []Result
	var expected, onTopic int
	var words []int
	for _, q := range qs {
		a, err := answer(ctx, q.Question)
		if err != nil {
			return s, results, fmt.Errorf("eval: %s: question %s: %w", name, q.ID, err)
		}
		cited := a.Cited
		r := Result{Question: q, Answer: a}
		if a.NoEvidence {
			s.NoEvidence++
			if slices.ContainsFunc(q.Expect, func(e string) bool { return slices.Contains(a.Kept, e) }) {
				r.NoEvidenceKept = true
				s.NoEvidenceKept++
			}
		}
		if a.NoEvidenceParts > 0 {
			s.NoEvidenceParts += a.NoEvidenceParts
			if slices.ContainsFunc(q.Expect, func(e string) bool { return slices.Contains(a.Kept, e) && !slices.Contains(a.Cited, e) }) {
				r.NoEvidencePartKept = true
				s.NoEvidencePartsKept++
			}
		}
		if len(q.Facts) > 0 {
			r.Keyed = true
			s.Keyed++
			if r.EvidenceMissing = MissingFacts(q.Facts, a.Evidence...); len(r.EvidenceMissing) == 0 {
				s.EvidenceRecall++
			}
			if a.Shown != nil {
				s.RecordsShown = true
				if r.ShownMissing = MissingFacts(q.Facts, a.Shown...); len(r.ShownMissing) == 0 {
					s.ShownRecall++
				}
			}
			if a.Reported {
				s.Reported = true
				if r.ReportMissing = MissingFacts(q.Facts, a.Report); len(r.ReportMissing) == 0 {
					s.Answered++
				}
				if len(MissingFacts(q.Facts, Opening(a.Report))) == 0 {
					r.UpFront = true
					s.AnsweredUpFront++
				}
			}
		}
		for _, task := range a.Tasks {
			if NoSubject(q.Question, task) {
				r.JunkTasks = append(r.JunkTasks, task)
			}
		}
		t, err := checkTopics(ctx, q.Question, q.Expect, cited, doc)
		if err != nil {
			return s, results, fmt.Errorf("eval: %s: question %s: %w", name, q.ID, err)
		}
		r.Expected, r.OnTopic, r.OffTopic, r.SecondHops = t.expected, t.onTopic, t.offTopic, t.secondHops
		found := 0
		for _, e := range q.Expect {
			if slices.Contains(cited, e) {
				found++
			}
		}
		r.Hit = found > 0
		r.Recall = float64(found) / float64(len(q.Expect))
		if r.Hit {
			s.HitRate++
		}
		s.Recall += r.Recall
		s.Cited += len(cited)
		if a.Reported {
			words = append(words, len(strings.Fields(linkTarget.ReplaceAllString(a.Report, "]"))))
		}
		s.OffTopic += len(r.OffTopic)
		s.SecondHops += len(r.SecondHops)
		expected += r.Expected
		onTopic += r.OnTopic
		results = append(results, r)
	}
	if n := float64(len(qs)); n > 0 {
		s.HitRate /= n
		s.Recall /= n
	}
	if len(words) > 0 {
		slices.Sort(words)
		s.ReportWords = words[len(words)/2]
	}
	if s.Keyed > 0 {
		s.EvidenceRecall /= float64(s.Keyed)
		s.ShownRecall /= float64(s.Keyed)
		s.Answered /= float64(s.Keyed)
		s.AnsweredUpFront /= float64(s.Keyed)
	}
	if s.Cited > 0 {
		s.Precision = float64(onTopic) / float64(s.Cited)
		s.StrictPrecision = float64(expected) / float64(s.Cited)
	}
	return s, results, nil
}

// Why says, for a keyed question whose report lacks a fact, where the
// fact was lost: "the writer left out facts the agents handed it" when
// the evidence holds them all; "the agents were shown the facts and did
// not hand them on" when what they were shown holds them all (recorded:
// Answer.Shown); otherwise "no expected document kept" (the search or
// the relevance filter lost it), "an expected document kept, none
// cited", or "an expected document cited, the fact not quoted". It is "" for an unkeyed question, one whose report holds every
// fact, or an answer without a report.
func (r Result) Why() string {
	switch {
	case !r.Keyed || !r.Reported || len(r.ReportMissing) == 0:
		return ""
	case len(r.EvidenceMissing) == 0:
		return "the writer left out facts the agents handed it"
	case r.Shown != nil && len(r.ShownMissing) == 0:
		return "the agents were shown the facts and did not hand them on"
	case slices.ContainsFunc(r.Expect, func(e string) bool { return slices.Contains(r.Cited, e) }):
		return "an expected document cited, the fact not quoted"
	case slices.ContainsFunc(r.Expect, func(e string) bool { return slices.Contains(r.Kept, e) }):
		return "an expected document kept, none cited"
	default:
		return "no expected document kept"
	}
}

// topics is how a question's cited documents bear on it.
type topics struct {
	expected, onTopic    int
	offTopic, secondHops []string
}

// checkTopics sorts the documents cited for question q: expected, sharing
// a key term with q, a second hop (see Result.SecondHops), or off the
// topic. doc reads a document.
func checkTopics(ctx context.Context, q string, expect, cited []string, doc func(ctx context.Context, id string) (Doc, error)) (topics, error) {
	var t topics
	docs := make([]Doc, len(cited))
	for i, id := range cited {
		var err error
		if docs[i], err = doc(ctx, id); err != nil {
			return t, fmt.Errorf("document %s: %w", id, err)
		}
	}
	for i, id := range cited {
		switch {
		case slices.Contains(expect, id):
			t.expected++
			t.onTopic++
		case relevance.SharesKeyTerm(q, docs[i].Title+"\n"+docs[i].Text):
			t.onTopic++
		default:
			if via := secondHop(q, cited, docs, i); via != "" {
				t.onTopic++
				t.secondHops = append(t.secondHops, id+" (via "+via+")")
			} else {
				t.offTopic = append(t.offTopic, id)
			}
		}
	}
	return t, nil
}

// secondHop says how cited document i, which shares no key term with
// question q, is a second hop: "NAME in ID" for the first cited document
// (other than i, sharing a key term with q) that quotes NAME, the name of
// document i, in a sentence bearing on q; "" when none does.
func secondHop(q string, cited []string, docs []Doc, i int) string {
	for j, d := range docs {
		if j == i || !relevance.SharesKeyTerm(q, d.Title+"\n"+d.Text) {
			continue
		}
		if name := extractive.SecondHop(q, d.Text, docs[i].Title, cited[i]); name != "" {
			return name + " in " + cited[j]
		}
	}
	return ""
}

// Table writes the summaries side by side, one row per metric.
func Table(w io.Writer, sums ...Summary) {
	fmt.Fprintf(w, "| metric |")
	for _, s := range sums {
		fmt.Fprintf(w, " %s |", s.Name)
	}
	fmt.Fprintf(w, "\n|---|")
	for range sums {
		fmt.Fprintf(w, "---:|")
	}
	fmt.Fprintln(w)
	row := func(name string, f func(Summary) string) {
		fmt.Fprintf(w, "| %s |", name)
		for _, s := range sums {
			fmt.Fprintf(w, " %s |", f(s))
		}
		fmt.Fprintln(w)
	}
	pct := func(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }
	row("questions", func(s Summary) string { return fmt.Sprint(s.Questions) })
	row("hit rate (an expected document cited)", func(s Summary) string { return pct(s.HitRate) })
	row("recall of expected documents", func(s Summary) string { return pct(s.Recall) })
	row("questions with an answer key", func(s Summary) string { return fmt.Sprint(s.Keyed) })
	keyed := func(x float64, ok bool) func(Summary) string {
		return func(s Summary) string {
			if s.Keyed == 0 || !ok {
				return "—"
			}
			return pct(x)
		}
	}
	if slices.ContainsFunc(sums, func(s Summary) bool { return s.RecordsShown }) {
		row("facts shown to the agents (every fact in their search results and opened texts)", func(s Summary) string { return keyed(s.ShownRecall, s.RecordsShown)(s) })
	}
	row("evidence recall (every fact in what the agents handed the writer; plain search: in its documents)", func(s Summary) string { return keyed(s.EvidenceRecall, true)(s) })
	row("answered (every fact in the report)", func(s Summary) string { return keyed(s.Answered, s.Reported)(s) })
	row(fmt.Sprintf("answered up front (every fact in the report's first %d words)", OpeningWords), func(s Summary) string { return keyed(s.AnsweredUpFront, s.Reported)(s) })
	row("precision (expected, sharing a key term, or a second hop)", func(s Summary) string { return pct(s.Precision) })
	row("strict precision (expected)", func(s Summary) string { return pct(s.StrictPrecision) })
	row("documents cited per question", func(s Summary) string {
		if s.Questions == 0 {
			return "0"
		}
		return fmt.Sprintf("%.2f", float64(s.Cited)/float64(s.Questions))
	})
	row("report words (median)", func(s Summary) string {
		if !s.Reported {
			return "—"
		}
		return fmt.Sprint(s.ReportWords)
	})
	row("cited documents sharing no key term (off-topic)", func(s Summary) string { return fmt.Sprint(s.OffTopic) })
	row("second hops (no key term; the document of a name a cited passage quotes)", func(s Summary) string { return fmt.Sprint(s.SecondHops) })
	row(`"no evidence" answers (an expected document kept)`, func(s Summary) string {
		return fmt.Sprintf("%d (%d)", s.NoEvidence, s.NoEvidenceKept)
	})
	row(`parts saying "no evidence for this part" (answers with an expected document kept, not cited)`, func(s Summary) string {
		return fmt.Sprintf("%d (%d)", s.NoEvidenceParts, s.NoEvidencePartsKept)
	})
}

// Baseline answers with the first k distinct documents of one plain
// search of the question's own words.
func Baseline(b search.Backend, k int) Answerer {
	return func(ctx context.Context, question string) (Answer, error) {
		res, err := b.Search(ctx, question, 4*k)
		if err != nil {
			return Answer{}, err
		}
		var out []string
		for _, r := range res {
			if !slices.Contains(out, r.DocID) {
				out = append(out, r.DocID)
			}
			if len(out) == k {
				break
			}
		}
		return Answer{Cited: out, Kept: out}, nil
	}
}

// DocumentTexts answers as answer does, with the full texts (title and
// text) of the documents it cites as its evidence: what a reader of a
// plain search's result list could find the facts in. doc reads a
// document.
func DocumentTexts(answer Answerer, doc func(ctx context.Context, id string) (Doc, error)) Answerer {
	return func(ctx context.Context, question string) (Answer, error) {
		a, err := answer(ctx, question)
		if err != nil {
			return a, err
		}
		for _, id := range a.Cited {
			d, err := doc(ctx, id)
			if err != nil {
				return a, fmt.Errorf("document %s: %w", id, err)
			}
			a.Evidence = append(a.Evidence, d.Title+"\n"+d.Text)
		}
		return a, nil
	}
}

// whatIsRe reads the X of a "What is X?" or "What are X?" task.
var whatIsRe = regexp.MustCompile(`(?i)^what (?:is|are) (?:an? |the )?(.+?)\??$`)

// numberWords are numbers written as words, never a subject alone.
var numberWords = terms.Set("one two three four five six seven eight nine ten eleven twelve first second third")

// NoSubject reports whether task is a "What is X?" task whose X is no
// subject of question (a task that opens as the question does is the
// question narrowed, not a task on X): X is not in the question, word for word; or every
// word of X is a function word or a number written as a word; or X is one
// plain word (no capital inside, digit, or joining mark) that only opens
// the question or one of its sentences ("According", "Two") — how a
// sentence starts, not what it asks about.
func NoSubject(question, task string) bool {
	m := whatIsRe.FindStringSubmatch(strings.TrimSpace(task))
	if m == nil || strings.EqualFold(strings.TrimSpace(task), strings.TrimSpace(question)) {
		return false // no "What is" task, or the question as asked
	}
	if tw, qw := strings.Fields(strings.ToLower(task)), strings.Fields(strings.ToLower(question)); len(qw) >= 3 && len(tw) >= 3 && slices.Equal(tw[:3], qw[:3]) {
		return false // the question narrowed to one side of a comparison
	}
	x := strings.TrimSpace(m[1])
	bare := func(ws []string) []string {
		out := make([]string, len(ws))
		for i, w := range ws {
			out[i] = strings.ToLower(strings.Trim(w, ".,;:?!\"'()“”‘’"))
		}
		return out
	}
	words := bare(strings.Fields(x))
	qWords := strings.Fields(question)
	lower := bare(qWords)
	at := -1
	for i := 0; i+len(words) <= len(lower); i++ {
		if slices.Equal(lower[i:i+len(words)], words) {
			at = i
			break
		}
	}
	if at < 0 {
		return true
	}
	key := false
	for _, w := range words {
		if terms.IsKey(w) && !numberWords[w] {
			key = true
		}
	}
	if !key {
		return true
	}
	if len(words) == 1 && !strings.ContainsAny(x, "-_./0123456789") && !strings.ContainsFunc(x[1:], unicode.IsUpper) {
		// The word only where a sentence starts.
		for i, w := range lower {
			if w != words[0] {
				continue
			}
			opens := i == 0 || strings.ContainsAny(qWords[i-1][len(qWords[i-1])-1:], ".?!:")
			if !opens {
				return false
			}
		}
		return true
	}
	return false
}

// OpeningWords is how much of a report Opening keeps: about the first
// screen of it, what a reader who stops there has read.
const OpeningWords = 100

// Opening is the first OpeningWords words of a Markdown report, its
// title line and link targets left out.
func Opening(report string) string {
	body := report
	if strings.HasPrefix(body, "# ") {
		_, body, _ = strings.Cut(body, "\n")
	}
	ws := strings.Fields(linkTarget.ReplaceAllString(body, "]"))
	return strings.Join(ws[:min(len(ws), OpeningWords)], " ")
}
