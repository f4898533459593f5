package eval

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/corpus"
	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/search"
)

// Run is one research run as the evaluation drives it: it researches
// question and reports every event of the run to sink, in order. The root
// package's Researcher.Start, waited for, is one.
type Run func(ctx context.Context, question string, sink func(events.Event)) error

// Research answers with what a research run did: the documents its final
// report cites (report.finished), the documents the relevance filter
// kept (every source an agent registered, agent.source: a dropped result
// is never registered), and whether its report says the sources hold no
// evidence or no direct answer (extractive.NoReportEvidence or
// extractive.NoDirectAnswer in the streamed or verified text). Its evidence is each agent's intermediate report (the
// agent.delta texts of one agent, from its agent.started on), its report
// the final report's text (report.delta), or the verifier's revision of
// it (report.verified) when there is one.
func Research(run Run) Answerer {
	return func(ctx context.Context, question string) (Answer, error) {
		var a Answer
		var text strings.Builder
		var agents []*strings.Builder
		current := map[int]*strings.Builder{} // by plan index, the agent's latest start
		revised := ""
		err := run(ctx, question, func(e events.Event) {
			switch d := e.Data.(type) {
			case events.PlanData:
				if len(a.Tasks) == 0 {
					for _, t := range d.Tasks {
						a.Tasks = append(a.Tasks, t.Question)
					}
				}
			case events.AgentStartedData:
				b := new(strings.Builder)
				agents = append(agents, b)
				current[e.Agent] = b
			case events.DeltaData:
				b := current[e.Agent]
				if b == nil {
					b = new(strings.Builder)
					agents = append(agents, b)
					current[e.Agent] = b
				}
				b.WriteString(d.Text)
			case events.SourceData:
				if !slices.Contains(a.Kept, d.Source.ID) {
					a.Kept = append(a.Kept, d.Source.ID)
				}
			case events.ReportDeltaData:
				text.WriteString(d.Text)
			case events.ReportFinishedData:
				for _, r := range d.References {
					if !slices.Contains(a.Cited, r.Source.ID) {
						a.Cited = append(a.Cited, r.Source.ID)
					}
				}
			case events.VerifiedData:
				revised = d.Revised
			}
		})
		if err != nil {
			return a, err
		}
		final := text.String()
		if revised != "" {
			final = revised
		}
		for _, b := range agents {
			a.Evidence = append(a.Evidence, b.String())
		}
		a.Report, a.Reported = final, true
		a.NoEvidence = strings.Contains(final, extractive.NoReportEvidence) || strings.Contains(final, extractive.NoDirectAnswer)
		a.NoEvidenceParts = strings.Count(final, extractive.NoSectionEvidence)
		return a, nil
	}
}

// Prepared is an evaluation corpus written and indexed in a folder.
type Prepared struct {
	Corpus Corpus
	// Docs is the corpus folder; IndexPath its index database, synced.
	Docs, IndexPath string
	Index           *corpus.Index
	Stats           CorpusStats
	// Took is how long writing and indexing took.
	Took time.Duration
}

// Prepare writes c's documents into dir/corpus and indexes them into
// dir/index.db. It fails with ErrMissing when c's source is not
// installed. The caller closes the Prepared.
func Prepare(ctx context.Context, c Corpus, dir string) (*Prepared, error) {
	start := time.Now()
	p := &Prepared{Corpus: c, Docs: filepath.Join(dir, "corpus"), IndexPath: filepath.Join(dir, "index.db")}
	var err error
	if p.Stats, err = c.Write(ctx, p.Docs); err != nil {
		return nil, err
	}
	if p.Index, err = corpus.Open(ctx, p.IndexPath); err != nil {
		return nil, err
	}
	if _, err := p.Index.Sync(ctx, p.Docs); err != nil {
		p.Index.Close()
		return nil, err
	}
	p.Took = time.Since(start)
	return p, nil
}

// CheckKeys checks the answer keys of the questions in file (under
// questionsDir) against the corpus's documents: see KeyProblems. An
// expected document the corpus does not hold is listed in absent, not
// checked.
func (p *Prepared) CheckKeys(ctx context.Context, questionsDir, file string) (problems, absent []string, err error) {
	qs, err := LoadQuestions(filepath.Join(questionsDir, file))
	if err != nil {
		return nil, nil, err
	}
	return KeyProblems(ctx, qs, p.Doc, func(err error) bool { return errors.Is(err, search.ErrNotFound) })
}

// Close closes the index.
func (p *Prepared) Close() error { return p.Index.Close() }

// Doc returns a document's title and text, for the key-term and
// second-hop checks.
func (p *Prepared) Doc(ctx context.Context, id string) (Doc, error) {
	d, err := p.Index.Fetch(ctx, id)
	return Doc{Title: d.Title, Text: d.Text}, err
}

// Comparison is one corpus's evaluation: research against the plain
// search, question by question.
type Comparison struct {
	Corpus Corpus
	// Questions is the questions file compared on.
	Questions          string
	Research, Baseline Summary
	// ResearchResults and BaselineResults are in question order.
	ResearchResults, BaselineResults []Result
}

// Compare answers the corpus's questions (read from questionsDir) with
// research and with the plain BM25 search of the question, top 5, on
// the same index.
func (p *Prepared) Compare(ctx context.Context, questionsDir string, research Answerer) (*Comparison, error) {
	return p.CompareSet(ctx, questionsDir, p.Corpus.Questions, research)
}

// QuestionSets are the corpus's questions files: Questions, then
// MoreQuestions.
func (c Corpus) QuestionSets() []string {
	return append([]string{c.Questions}, c.MoreQuestions...)
}

// CompareSet is Compare on the questions of one file of questionsDir.
// The plain search's evidence is its documents' full texts
// (DocumentTexts).
func (p *Prepared) CompareSet(ctx context.Context, questionsDir, file string, research Answerer) (*Comparison, error) {
	qs, err := LoadQuestions(filepath.Join(questionsDir, file))
	if err != nil {
		return nil, err
	}
	c := &Comparison{Corpus: p.Corpus, Questions: file}
	if c.Research, c.ResearchResults, err = Evaluate(ctx, "research", qs, research, p.Doc); err != nil {
		return nil, err
	}
	if c.Baseline, c.BaselineResults, err = Evaluate(ctx, "plain BM25 top 5", qs, DocumentTexts(Baseline(p.Index, 5), p.Doc), p.Doc); err != nil {
		return nil, err
	}
	return c, nil
}

// behindMargin is how far research's hit rate or recall may fall behind
// the plain search's top 5 before Problems reports it. The target
// is none (research never behind); reports that quote the passages that
// answer, from three or four documents where the plain search lists five,
// are behind by up to 12 points on some question sets today
// (docs/quality.md). The margin guards against a further fall; it is not
// the target met.
const behindMargin = 0.15

// Problems lists the ways c misses the targets: research behind the
// plain search on hit rate or recall, a "no evidence" answer beside a
// kept expected document, a cited document off the topic (sharing no
// key term with its question, and no second hop: see Result.SecondHops).
// Empty means every target is met.
func (c *Comparison) Problems() []string {
	var out []string
	if c.Research.HitRate < c.Baseline.HitRate-behindMargin || c.Research.Recall < c.Baseline.Recall-behindMargin {
		out = append(out, fmt.Sprintf("research is more than %.0f points behind the plain search: hit rate %.3f vs %.3f, recall %.3f vs %.3f",
			100*behindMargin, c.Research.HitRate, c.Baseline.HitRate, c.Research.Recall, c.Baseline.Recall))
	}
	for _, r := range c.ResearchResults {
		if r.NoEvidenceKept {
			out = append(out, fmt.Sprintf("%s %q: the report says \"no evidence\" although the filter kept an expected document (kept %v)", r.ID, r.Question.Question, r.Kept))
		}
		if r.NoEvidencePartKept {
			out = append(out, fmt.Sprintf("%s %q: a part of the report says \"no evidence\" although the filter kept an expected document it cites nowhere (kept %v, cited %v)", r.ID, r.Question.Question, r.Kept, r.Cited))
		}
		if len(r.JunkTasks) > 0 {
			out = append(out, fmt.Sprintf("%s %q: the plan asks what words are that are no subject of the question: %q", r.ID, r.Question.Question, r.JunkTasks))
		}
		if len(r.OffTopic) > 0 {
			out = append(out, fmt.Sprintf("%s %q cites documents sharing no key term with it, none a second hop: %v", r.ID, r.Question.Question, r.OffTopic))
		}
	}
	return out
}

// Print writes the corpus's table, and with verbose each question's
// citations.
func (c *Comparison) Print(w io.Writer, verbose bool) {
	held := ""
	if c.Corpus.HeldOut {
		held = " (held out of tuning)"
	}
	set := ""
	if c.Questions != "" && c.Questions != c.Corpus.Questions {
		set = ": " + c.Questions
	}
	fmt.Fprintf(w, "\n### %s%s%s\n\n", c.Corpus.Name, set, held)
	Table(w, c.Research, c.Baseline)
	if !verbose {
		return
	}
	fmt.Fprintln(w)
	for i, r := range c.ResearchResults {
		b := c.BaselineResults[i]
		mark := " "
		switch {
		case r.Recall < b.Recall:
			mark = "-"
		case r.Recall > b.Recall:
			mark = "+"
		}
		fmt.Fprintf(w, "%s %s %q recall %.2f (baseline %.2f)\n  expected %v\n  research %v\n  baseline %v\n", mark, r.ID, r.Question.Question, r.Recall, b.Recall, r.Expect, r.Cited, b.Cited)
		if r.NoEvidence {
			fmt.Fprintf(w, "  research said no evidence; kept %v\n", r.Kept)
		}
		if r.NoEvidenceParts > 0 {
			fmt.Fprintf(w, "  %d parts said no evidence; kept %v\n", r.NoEvidenceParts, r.Kept)
		}
		if len(r.OffTopic) > 0 {
			fmt.Fprintf(w, "  off-topic %v\n", r.OffTopic)
		}
		if len(r.SecondHops) > 0 {
			fmt.Fprintf(w, "  second hops %v\n", r.SecondHops)
		}
		if r.Keyed {
			fmt.Fprintf(w, "  facts %s; missing from the evidence %s, from the report %s, from the baseline's documents %s",
				factList(r.Facts), factList(r.EvidenceMissing), factList(r.ReportMissing), factList(b.EvidenceMissing))
			if r.Shown != nil {
				fmt.Fprintf(w, ", from what the agents were shown %s", factList(r.ShownMissing))
			}
			fmt.Fprintln(w)
			if why := r.Why(); why != "" {
				fmt.Fprintf(w, "  not answered: %s\n", why)
			} else if r.Reported && !r.UpFront {
				fmt.Fprintf(w, "  answered below the first %d words: %q\n", OpeningWords, Opening(r.Report))
			}
		}
	}
}

// TempDir makes a folder for Prepare under the system's temporary
// folder; the caller removes it.
func TempDir(name string) (string, error) {
	return os.MkdirTemp("", "deepresearch-eval-"+name+"-")
}

// factList writes facts for a person: each fact's first spelling, or
// "none".
func factList[T string | []string](facts []T) string {
	if len(facts) == 0 {
		return "none"
	}
	out := make([]string, len(facts))
	for i, f := range facts {
		switch f := any(f).(type) {
		case string:
			out[i] = strconv.Quote(f)
		case []string:
			out[i] = strconv.Quote(f[0])
		}
	}
	return strings.Join(out, ", ")
}
