package eval_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/eval"
	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/internal/mdtext"
	"github.com/tmc/langchaingo/llms"
)

func TestMissingFacts(t *testing.T) {
	facts := [][]string{{"bufio.Scanner", "Scanner"}, {"NewScanner"}}
	tests := []struct {
		name  string
		texts []string
		want  []string
	}{
		{"both, another spelling", []string{"Use a Scanner made by NewScanner."}, nil},
		{"case and white space", []string{"use a\n  SCANNER from\tnewscanner"}, nil},
		{"one missing", []string{"bufio.Scanner reads lines."}, []string{"NewScanner"}},
		{"none", []string{"Read the file with os.ReadFile."}, []string{"bufio.Scanner", "NewScanner"}},
		{"in different texts", []string{"a Scanner", "call NewScanner"}, nil},
		{"split across two texts is no match", []string{"a bufio.Scanner from New", "Scanner"}, []string{"NewScanner"}},
		{"no texts", nil, []string{"bufio.Scanner", "NewScanner"}},
		{"only in link targets", []string{"Read lines [[1]](file:///c/pkg/bufio.Scanner.md) [b](https://x/NewScanner_(x) \"t\")."}, []string{"bufio.Scanner", "NewScanner"}},
		{"in link text", []string{"See [NewScanner](https://x/a) and [bufio.Scanner][1]."}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := eval.MissingFacts(facts, tt.texts...); !slices.Equal(got, tt.want) {
				t.Errorf("MissingFacts = %q, want %q", got, tt.want)
			}
		})
	}
	// A report escapes markdown; the fact is still there.
	for _, f := range []string{"O_NONBLOCK", "memory.max", "<start>,<end>:<file>", "``s`` Will attempt", "a & b", "http://example.org/x_y"} {
		if m := eval.MissingFacts([][]string{{f}}, "see "+mdtext.Escape(f)+" here"); m != nil {
			t.Errorf("%q escaped as %q: missing", f, mdtext.Escape(f))
		}
	}
	if m := eval.MissingFacts(nil, "anything"); m != nil {
		t.Errorf("no facts: missing %q", m)
	}
}

func TestLoadQuestionsChecksKeys(t *testing.T) {
	tests := []struct {
		name, facts string
		err         string // "" for none
	}{
		{"good key", `[["bufio.Scanner", "Scanner"], ["NewScanner"]]`, ""},
		{"a flag whose word the question has", `[["-race"]]`, ""},
		{"a dotted name whose words the question has", `[["read.file"]]`, ""},
		{"no key", `null`, ""},
		{"a word of the question", `[["Scanner"], ["file"]]`, `fact 2's spelling "file" is in the question`},
		{"a word of the question in another case", `[["LINE BY LINE"]]`, "is in the question"},
		{"an empty fact", `[["Scanner"], []]`, "fact 2 has no spelling"},
		{"an empty spelling", `[["Scanner", " "]]`, "fact 1 has an empty spelling"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "q.json")
			js := `{"questions": [{"id": "n01", "question": "How do I read a file line by line with the race detector?", "expect": ["pkg/bufio.md"], "facts": ` + tt.facts + `}]}`
			if err := os.WriteFile(path, []byte(js), 0o644); err != nil {
				t.Fatal(err)
			}
			qs, err := eval.LoadQuestions(path)
			switch {
			case tt.err == "" && err != nil:
				t.Fatalf("err = %v", err)
			case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), "n01")):
				t.Fatalf("err = %v, want one naming n01 and saying %q", err, tt.err)
			case tt.err == "" && len(qs) != 1:
				t.Fatalf("%d questions", len(qs))
			}
		})
	}
	path := filepath.Join(t.TempDir(), "q.json")
	os.WriteFile(path, []byte(`{"questions": [{"id": "a", "question": "x?", "expect": ["d"]}, {"id": "a", "question": "y?", "expect": ["d"]}]}`), 0o644)
	if _, err := eval.LoadQuestions(path); err == nil || !strings.Contains(err.Error(), `"a" is used twice`) {
		t.Errorf("a repeated ID: err = %v", err)
	}
}

// TestQuestionFiles loads every question set of every corpus: the keys
// are well formed and no fact repeats its question.
func TestQuestionFiles(t *testing.T) {
	for _, c := range corpora() {
		for _, file := range c.QuestionSets() {
			qs, err := eval.LoadQuestions(filepath.Join(questionsDir, file))
			if err != nil {
				t.Error(err)
				continue
			}
			keyed := 0
			for _, q := range qs {
				if len(q.Facts) > 0 {
					keyed++
				}
			}
			if keyed == 0 {
				t.Errorf("%s: no question has an answer key", file)
			}
		}
	}
}

func TestKeyProblems(t *testing.T) {
	docs := map[string]eval.Doc{
		"pkg/bufio.md": {Title: "Package bufio", Text: "Use a Scanner, made by NewScanner, to read lines."},
		"pkg/os.md":    {Title: "Package os", Text: "Open opens a file."},
	}
	errBroken := errors.New("disk on fire")
	doc := func(_ context.Context, id string) (eval.Doc, error) {
		if id == "broken.md" {
			return eval.Doc{}, errBroken
		}
		d, ok := docs[id]
		if !ok {
			return d, fmt.Errorf("%s: %w", id, os.ErrNotExist)
		}
		return d, nil
	}
	absent := func(err error) bool { return errors.Is(err, os.ErrNotExist) }
	qs := []eval.Question{
		{ID: "n01", Question: "How do I read a file line by line?", Expect: []string{"pkg/os.md", "pkg/bufio.md"}, Facts: [][]string{{"NewScanner"}, {"Scanner"}}},
		{ID: "n02", Question: "How do I open a file?", Expect: []string{"pkg/os.md"}, Facts: [][]string{{"os.Open", "Open"}, {"O_RDONLY"}}},
		{ID: "n03", Question: "How do I run my tests with the race detector?", Expect: []string{"cmd/go/test.md"}, Facts: [][]string{{"-race"}}},
		{ID: "n04", Question: "An unkeyed question", Expect: []string{"broken.md"}},
	}
	problems, missing, err := eval.KeyProblems(context.Background(), qs, doc, absent)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 1 || !strings.Contains(problems[0], "n02") || !strings.Contains(problems[0], `"O_RDONLY"`) {
		t.Errorf("problems %q, want one naming n02 and O_RDONLY", problems)
	}
	if !slices.Equal(missing, []string{"n03: cmd/go/test.md"}) {
		t.Errorf("absent %q", missing)
	}
	qs[3].Facts = [][]string{{"x"}}
	if _, _, err := eval.KeyProblems(context.Background(), qs, doc, absent); !errors.Is(err, errBroken) {
		t.Errorf("a document that cannot be read: err = %v", err)
	}
}

// TestAnswerMetrics: evidence recall counts the keyed questions whose
// facts are all in the evidence, answered those whose facts are all in
// the report; unkeyed questions count in neither; a system without
// reports has no "answered".
func TestAnswerMetrics(t *testing.T) {
	doc := func(context.Context, string) (eval.Doc, error) {
		return eval.Doc{Title: "Package bufio", Text: "Scanner"}, nil
	}
	qs := []eval.Question{
		{ID: "a", Question: "How do I read a file line by line?", Expect: []string{"pkg/bufio.md"}, Facts: [][]string{{"Scanner"}, {"NewScanner"}}},
		{ID: "b", Question: "How do I read words?", Expect: []string{"pkg/bufio.md"}, Facts: [][]string{{"ScanWords"}}},
		{ID: "c", Question: "What is bufio?", Expect: []string{"pkg/bufio.md"}},
		{ID: "d", Question: "How do I read runes?", Expect: []string{"pkg/bufio.md"}, Facts: [][]string{{"ReadRune"}}},
	}
	answers := map[string]eval.Answer{
		// Everything handed over, everything written.
		"How do I read a file line by line?": {Cited: []string{"pkg/bufio.md"}, Evidence: []string{"a Scanner", "from NewScanner"}, Report: "Use a Scanner from NewScanner [1].", Reported: true},
		// Handed over, not written.
		"How do I read words?": {Cited: []string{"pkg/bufio.md"}, Evidence: []string{"split with ScanWords"}, Report: "Use bufio [1].", Reported: true},
		"What is bufio?":       {Cited: []string{"pkg/bufio.md"}, Reported: true},
		// Neither.
		"How do I read runes?": {Reported: true, Report: "No evidence."},
	}
	answer := func(_ context.Context, q string) (eval.Answer, error) { return answers[q], nil }
	s, rs, err := eval.Evaluate(context.Background(), "research", qs, answer, doc)
	if err != nil {
		t.Fatal(err)
	}
	if s.Keyed != 3 || s.EvidenceRecall != 2.0/3 || s.Answered != 1.0/3 || !s.Reported {
		t.Errorf("keyed %d, evidence recall %v, answered %v, reported %v; want 3, 2/3, 1/3, true", s.Keyed, s.EvidenceRecall, s.Answered, s.Reported)
	}
	want := []struct {
		keyed              bool
		evidence, reported []string
	}{{true, nil, nil}, {true, nil, []string{"ScanWords"}}, {false, nil, nil}, {true, []string{"ReadRune"}, []string{"ReadRune"}}}
	for i, w := range want {
		if r := rs[i]; r.Keyed != w.keyed || !slices.Equal(r.EvidenceMissing, w.evidence) || !slices.Equal(r.ReportMissing, w.reported) {
			t.Errorf("%s: keyed %v, missing from the evidence %q, from the report %q; want %v, %q, %q", r.ID, r.Keyed, r.EvidenceMissing, r.ReportMissing, w.keyed, w.evidence, w.reported)
		}
	}
	for i, why := range []string{"", "the writer left out facts the agents handed it", "", "no expected document kept"} {
		if got := rs[i].Why(); got != why {
			t.Errorf("%s: Why() = %q, want %q", rs[i].ID, got, why)
		}
	}
	var b strings.Builder
	base, _, err := eval.Evaluate(context.Background(), "plain BM25 top 5", qs, eval.DocumentTexts(func(context.Context, string) (eval.Answer, error) {
		return eval.Answer{Cited: []string{"pkg/bufio.md"}}, nil
	}, func(context.Context, string) (eval.Doc, error) {
		return eval.Doc{Title: "Package bufio", Text: "Scanner, NewScanner and ScanWords"}, nil
	}), doc)
	if err != nil {
		t.Fatal(err)
	}
	if base.EvidenceRecall != 2.0/3 || base.Reported {
		t.Errorf("baseline: facts in its documents %v (reported %v), want 2/3", base.EvidenceRecall, base.Reported)
	}
	eval.Table(&b, s, base)
	for _, row := range []string{
		"| questions with an answer key | 3 | 3 |",
		"| evidence recall (every fact in what the agents handed the writer; plain search: in its documents) | 66.7% | 66.7% |",
		"| answered (every fact in the report) | 33.3% | — |",
	} {
		if !strings.Contains(b.String(), row+"\n") {
			t.Errorf("the table lacks the row %q:\n%s", row, b.String())
		}
	}
	c := eval.Comparison{Research: s, Baseline: base, ResearchResults: rs, BaselineResults: rs}
	b.Reset()
	c.Print(&b, true)
	if !strings.Contains(b.String(), `facts "Scanner", "NewScanner"; missing from the evidence none, from the report none`) ||
		!strings.Contains(b.String(), `missing from the evidence "ReadRune", from the report "ReadRune"`) ||
		!strings.Contains(b.String(), "not answered: the writer left out facts the agents handed it\n") {
		t.Errorf("verbose output lacks the missing facts:\n%s", b.String())
	}
}

// TestWhy: where a keyed question's fact was lost.
func TestWhy(t *testing.T) {
	keyed := eval.Question{ID: "k", Expect: []string{"a.md"}, Facts: [][]string{{"X"}}}
	for _, tc := range []struct {
		name string
		r    eval.Result
		want string
	}{
		{"answered", eval.Result{Question: keyed, Keyed: true, Answer: eval.Answer{Reported: true}}, ""},
		{"unkeyed", eval.Result{Question: eval.Question{ID: "u"}, Answer: eval.Answer{Reported: true}}, ""},
		{"no report", eval.Result{Question: keyed, Keyed: true, EvidenceMissing: []string{"X"}}, ""},
		{"dropped by the writer", eval.Result{Question: keyed, Keyed: true, ReportMissing: []string{"X"}, Answer: eval.Answer{Reported: true}}, "the writer left out facts the agents handed it"},
		{"cited, not quoted", eval.Result{Question: keyed, Keyed: true, EvidenceMissing: []string{"X"}, ReportMissing: []string{"X"}, Answer: eval.Answer{Reported: true, Cited: []string{"b.md", "a.md"}, Kept: []string{"a.md"}}}, "an expected document cited, the fact not quoted"},
		{"kept, not cited", eval.Result{Question: keyed, Keyed: true, EvidenceMissing: []string{"X"}, ReportMissing: []string{"X"}, Answer: eval.Answer{Reported: true, Cited: []string{"b.md"}, Kept: []string{"a.md"}}}, "an expected document kept, none cited"},
		{"never kept", eval.Result{Question: keyed, Keyed: true, EvidenceMissing: []string{"X"}, ReportMissing: []string{"X"}, Answer: eval.Answer{Reported: true, Cited: []string{"b.md"}, Kept: []string{"b.md"}}}, "no expected document kept"},
	} {
		if got := tc.r.Why(); got != tc.want {
			t.Errorf("%s: Why() = %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestResearchCollectsEvidence: each agent's deltas make one evidence
// text, however the agents' events interleave and even when a later
// cycle reuses a plan index; the report is the verifier's revision when
// there is one.
func TestResearchCollectsEvidence(t *testing.T) {
	ev := func(agent int, d events.Payload) events.Event {
		return events.Event{Agent: agent, Type: d.EventType(), Data: d}
	}
	run := func(revised string) eval.Run {
		return func(_ context.Context, _ string, sink func(events.Event)) error {
			for _, e := range []events.Event{
				ev(0, events.AgentStartedData{}),
				ev(1, events.AgentStartedData{}),
				ev(0, events.DeltaData{Text: "Use New"}),
				ev(1, events.DeltaData{Text: "Other "}),
				ev(0, events.DeltaData{Text: "Scanner [1]."}),
				ev(1, events.DeltaData{Text: "text."}),
				ev(0, events.AgentStartedData{}), // a second cycle's agent
				ev(0, events.DeltaData{Text: "Follow-up."}),
				ev(-1, events.ReportDeltaData{Text: "Use NewScanner "}),
				ev(-1, events.ReportDeltaData{Text: "[1]."}),
				ev(-1, events.VerifiedData{Revised: revised}),
			} {
				sink(e)
			}
			return nil
		}
	}
	a, err := eval.Research(run(""))(context.Background(), "q")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"Use NewScanner [1].", "Other text.", "Follow-up."}; !slices.Equal(a.Evidence, want) {
		t.Errorf("evidence %q, want %q", a.Evidence, want)
	}
	if a.Report != "Use NewScanner [1]." || !a.Reported {
		t.Errorf("report %q (reported %v)", a.Report, a.Reported)
	}
	if a, _ = eval.Research(run("Revised."))(context.Background(), "q"); a.Report != "Revised." {
		t.Errorf("report %q, want the revision", a.Report)
	}
}

// TestNoSubject: the evaluation's check that a plan's "What is X?" tasks
// are on subjects of the question.
func TestNoSubject(t *testing.T) {
	q := "According to the manual, two options control the loaded write-up of drop_caches: which one frees page cache?"
	for task, want := range map[string]bool{
		"What is According?":    true,  // opens the question
		"What is two?":          true,  // a number written as a word
		"What are the?":         true,  // a function word
		"What is swap?":         true,  // not in the question
		"What is drop_caches?":  false, // code-like
		"What is write-up?":     false, // in the question, a compound
		"What is page cache?":   false, // a noun phrase of the question
		"What is loaded?":       false, // a word of the question, mid-sentence: the planner's call
		"How do I free memory?": false, // no "What is" task
	} {
		if got := eval.NoSubject(q, task); got != want {
			t.Errorf("NoSubject(%q) = %v, want %v", task, got, want)
		}
	}
}

// TestShown: a watched model records the tool results of the
// conversations it is given, each once, answers as the model it watches,
// and Showing hands each answer what was recorded while it answered.
func TestShown(t *testing.T) {
	shown := eval.NewShown(extractive.New(extractive.Options{}))
	ctx := context.Background()
	conv := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Question: How do I read a file line by line?"),
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "c1", Name: "search", Content: "[1] bufio\nUse a bufio.Scanner."}}},
	}
	answer := eval.Showing(shown, func(ctx context.Context, q string) (eval.Answer, error) {
		for range 2 { // the same result twice: recorded once
			if _, err := shown.GenerateContent(ctx, conv); err != nil {
				return eval.Answer{}, err
			}
		}
		return eval.Answer{Evidence: []string{"none"}}, nil
	})
	a, err := answer(ctx, "q")
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Shown) != 1 || !strings.Contains(a.Shown[0], "bufio.Scanner") {
		t.Fatalf("shown %q, want the one search result", a.Shown)
	}
	qs := []eval.Question{{ID: "s1", Question: "q", Expect: []string{"d"}, Facts: [][]string{{"bufio.Scanner"}}}}
	s, rs, err := eval.Evaluate(ctx, "watched", qs, answer, func(context.Context, string) (eval.Doc, error) { return eval.Doc{}, nil })
	if err != nil {
		t.Fatal(err)
	}
	if !s.RecordsShown || s.ShownRecall != 1 || s.EvidenceRecall != 0 || len(rs[0].ShownMissing) != 0 {
		t.Errorf("shown recall %v (recorded %v), evidence recall %v; want 1, true, 0", s.ShownRecall, s.RecordsShown, s.EvidenceRecall)
	}
	if a, _ := answer(ctx, "again"); len(a.Shown) != 1 {
		t.Errorf("a second answer shows %d texts, want its own one", len(a.Shown))
	}
}

// TestAnsweredUpFront: a report answers up front when its facts are in
// its first OpeningWords words, title line and link targets aside; one
// whose facts come later is answered, not up front.
func TestAnsweredUpFront(t *testing.T) {
	doc := func(context.Context, string) (eval.Doc, error) {
		return eval.Doc{Title: "Package bufio", Text: "Scanner NewScanner"}, nil
	}
	qs := []eval.Question{
		{ID: "a", Question: "How do I read a file line by line?", Expect: []string{"pkg/bufio.md"}, Facts: [][]string{{"Scanner"}}},
		{ID: "b", Question: "How do I read lines of input?", Expect: []string{"pkg/bufio.md"}, Facts: [][]string{{"NewScanner"}}},
	}
	long := strings.Repeat("word ", eval.OpeningWords)
	answers := map[string]eval.Answer{
		"How do I read a file line by line?": {Reported: true, Report: "# Scanning files\n\nUse a Scanner [[1]](" + strings.Repeat("https://pkg.go.dev/bufio/", 30) + ").\n\n" + long},
		"How do I read lines of input?":      {Reported: true, Report: "# NewScanner\n\n" + long + "\n\nCall NewScanner [1]."},
	}
	answer := func(_ context.Context, q string) (eval.Answer, error) { return answers[q], nil }
	s, rs, err := eval.Evaluate(context.Background(), "research", qs, answer, doc)
	if err != nil {
		t.Fatal(err)
	}
	if s.Answered != 1 || s.AnsweredUpFront != 0.5 || !rs[0].UpFront || rs[1].UpFront {
		t.Errorf("answered %v, up front %v (%v, %v); want 1, 0.5 (true, false)", s.Answered, s.AnsweredUpFront, rs[0].UpFront, rs[1].UpFront)
	}
	if got := eval.Opening("# T\n\nOne [[1]](https://x.example/a) two.\n\n## Part\n\nthree"); got != "One [[1]] two. ## Part three" {
		t.Errorf("Opening = %q", got)
	}
}
