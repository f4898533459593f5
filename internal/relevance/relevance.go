// Package relevance is the quality stage between search and writing: the
// sources reconciler and the content filter of the citation design (seed
// "Citations & Sources system": sources_reconciler, sources_content_filter).
//
// A Filter belongs to one research task. Every batch of search results
// passes through Apply before any of them is numbered or shown to the
// model. Each candidate passage is
//
//   - dropped when it has no substance (a heading, a link list, a code
//     fragment: too few words of prose);
//   - scored for relevance to the task and to the user's original question
//     by a Judge (offline: Lexical, key-term coverage with the question's
//     terms counting most; with a model: LLMJudge, one batched call) and
//     dropped when it is not relevant;
//   - dropped when it is a near-duplicate (word shingles, Jaccard or
//     containment) of a passage of another source already kept, so the
//     same text under two names or sites is cited once (when the whole
//     documents can be read cheaply, Config.Whole, only if they repeat
//     each other whole too).
//
// A Filter sees one agent's searches; CopiesAcross is the same check
// across the agents of a run, at the merge.
//
// What was kept and dropped, with scores and reasons, goes to the Report
// hook after every batch; the run turns it into a sources.filtered event.
package relevance

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/deepresearch/deepresearch/events"
)

// The filter's checks, as Verdict.Check names them.
const (
	CheckSubstance = "substance"
	CheckRelevance = "relevance"
	CheckDuplicate = "duplicate"
)

// Candidate is one search result offered to the filter: a passage (the
// seed's short "text") of a source.
type Candidate struct {
	// Key identifies the source: its canonical URL or document ID.
	// Passages of one source share it.
	Key   string
	Title string
	URL   string
	// Text is the passage the relevance judgement reads.
	Text string
	// Date is the source's date in ISO 8601 (its publication date, else
	// its last modification), "" when unknown: the freshness judgement's.
	Date string
	// DocID is the backend's ID of the document, set when reading it
	// whole is cheap (a local file): Config.Whole reads it to tell a copy
	// of a document from a document that shares one passage with another.
	DocID string
}

// Request is what a Judge scores: the candidates against the user's
// question, the task's question and the searches that found them.
type Request struct {
	Question   string
	Task       string
	Queries    []string
	Candidates []Candidate
}

// Judgement is a Judge's verdict on one candidate.
type Judgement struct {
	// Score is the relevance, 0 (none) to 1.
	Score float64
	// Relevant says whether the candidate may be cited.
	Relevant bool
	// Reason is one line saying why.
	Reason string
}

// Judge scores candidates for relevance. Judge returns one Judgement per
// candidate, in order. A Judge must be safe for concurrent use; an error
// makes the Filter fall back to Lexical for that batch.
type Judge interface {
	Judge(ctx context.Context, req Request) ([]Judgement, error)
}

// Verdict is what the filter decided about one candidate: the payload
// entry of a sources.filtered event, one type for both (Check is one of
// CheckSubstance, CheckRelevance, CheckDuplicate).
type Verdict = events.FilterVerdict

// Report is what one Apply did: the payload of a sources.filtered event.
type Report struct {
	// Query is the search whose results were filtered.
	Query string `json:"query"`
	// Judge names the judge that scored the batch ("lexical", "llm", or
	// "lexical (llm failed: …)").
	Judge   string    `json:"judge"`
	Kept    []Verdict `json:"kept"`
	Dropped []Verdict `json:"dropped"`
}

// Config configures a Filter.
type Config struct {
	// Question is the user's original question; Task the task's question.
	// Either may be empty (then the other stands for both).
	Question string
	Task     string
	// Judge scores relevance; nil means Lexical{}.
	Judge Judge
	// Report, when set, is called after every Apply with what it did,
	// on Apply's goroutine.
	Report func(Report)
	// Whole, when set, returns the whole text of the document DocID.
	// A passage that repeats a kept passage of another source is then
	// dropped only when the two documents repeat each other as a whole
	// (the same check on their whole texts): two documents that share a
	// passage — a package and its next version, a page quoting another —
	// are both kept. Without it (or without DocIDs, or when reading
	// fails) the passages decide.
	Whole func(ctx context.Context, docID string) (string, error)
}

// Filter filters the search results of one research task. It remembers
// the passages it kept, so duplicates are caught across searches. A
// Filter is not safe for concurrent use; each agent has its own.
type Filter struct {
	cfg     Config
	queries []string
	kept    []kept
	best    float64                    // the best relevance score kept so far
	newest  string                     // the newest date of a candidate judged so far
	whole   map[string]map[uint64]bool // shingles of whole documents read, by DocID; nil: unreadable
}

type kept struct {
	key, docID string
	shingles   map[uint64]bool
}

// New returns a Filter for one task.
func New(cfg Config) *Filter {
	if cfg.Judge == nil {
		cfg.Judge = Lexical{}
	}
	if strings.TrimSpace(cfg.Question) == "" {
		cfg.Question = cfg.Task
	}
	if strings.TrimSpace(cfg.Task) == "" {
		cfg.Task = cfg.Question
	}
	return &Filter{cfg: cfg}
}

// Decision is the filter's answer for one candidate.
type Decision struct {
	Keep bool
	Verdict
}

// Apply filters the results of the search query and returns one Decision
// per candidate, in order. Candidates of a source already kept by an
// earlier Apply are judged again like any other (a later passage of a
// good source may be off-topic). The error is non-nil only when ctx is
// done; a failing Judge falls back to Lexical. Apply is Judge then Decide.
//
// Cost: the Judge's call (Lexical: linear in the text), plus shingling
// each surviving passage and comparing it with every passage kept so
// far.
func (f *Filter) Apply(ctx context.Context, query string, cands []Candidate) ([]Decision, error) {
	j, err := f.Judge(ctx, query, nil, cands)
	if err != nil {
		return nil, err
	}
	return f.Decide(j), nil
}

// Judged is the first half of an Apply: what the substance check and the
// judge said of one search's candidates, before the filter's state
// (queries seen, best score, passages kept) takes them in.
type Judged struct {
	ctx    context.Context // the Judge call's, for Config.Whole in Decide
	query  string
	cands  []Candidate
	out    []Decision
	judged []int
	judge  string
}

// Judge runs the substance check and the judge on one search's candidates
// and changes nothing: several Judge calls may run at once (the searches
// of one turn, each judgement a model call), then Decide takes their
// results in the order the searches were made. prior are the queries made
// before this one that no Decide has taken in yet (the turn's earlier
// searches), so that the judge sees what a sequential Apply would show it.
// The error is non-nil only when ctx is done.
func (f *Filter) Judge(ctx context.Context, query string, prior []string, cands []Candidate) (*Judged, error) {
	queries := append(slices.Clone(f.queries), prior...)
	if query != "" {
		queries = append(queries, query)
	}
	j := &Judged{ctx: ctx, query: query, cands: cands, out: make([]Decision, len(cands)), judge: judgeName(f.cfg.Judge)}
	out := j.out

	// 1. Substance.
	for i, c := range cands {
		out[i].Verdict = Verdict{Key: c.Key, Title: c.Title, URL: c.URL}
		if why := noSubstance(c.Text); why != "" {
			out[i].Check, out[i].Reason = CheckSubstance, why
			continue
		}
		j.judged = append(j.judged, i)
	}

	// 2. Relevance, one batched judgement.
	if len(j.judged) > 0 {
		req := Request{Question: f.cfg.Question, Task: f.cfg.Task, Queries: queries}
		for _, i := range j.judged {
			req.Candidates = append(req.Candidates, cands[i])
		}
		js, err := f.cfg.Judge.Judge(ctx, req)
		if err == nil && len(js) != len(j.judged) {
			err = fmt.Errorf("judge returned %d judgements for %d candidates", len(js), len(j.judged))
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, context.Cause(ctx)
			}
			j.judge = fmt.Sprintf("lexical (%s failed: %s)", j.judge, oneLine(err.Error(), 160))
			js, _ = Lexical{}.Judge(ctx, req)
		}
		for k, i := range j.judged {
			out[i].Check, out[i].Score, out[i].Reason = CheckRelevance, round(js[k].Score), oneLine(js[k].Reason, 320)
			out[i].Queries = queryScores(queries, cands[i])
			out[i].Keep = js[k].Relevant
		}
	}
	return j, nil
}

// Decide takes a Judged search into the filter's state and returns its
// decisions: a candidate far weaker than the task's best is dropped, then
// near-duplicates of passages already kept. Call it in the order the
// searches were made.
func (f *Filter) Decide(j *Judged) []Decision {
	if j.query != "" {
		f.queries = append(f.queries, j.query)
	}
	out, cands := j.out, j.cands
	rep := Report{Query: j.query, Judge: j.judge}
	f.freshness(j)
	// A candidate far weaker than the best one of the task is noise next
	// to it.
	for _, i := range j.judged {
		if out[i].Keep && out[i].Score > f.best {
			f.best = out[i].Score
		}
	}
	for _, i := range j.judged {
		if out[i].Keep && out[i].Score < f.best*relativeFloor {
			out[i].Keep = false
			out[i].Reason = fmt.Sprintf("much weaker than the best source of the task (%.2f < %.2f × %.2f); %s",
				out[i].Score, relativeFloor, f.best, out[i].Reason)
		}
	}

	// 3. Near-duplicates of passages of other sources already kept.
	for i, c := range cands {
		if !out[i].Keep {
			continue
		}
		sh := shingles(c.Text)
		if dup, ok := f.duplicate(c.Key, sh); ok && f.sameDocument(j.ctx, c.DocID, dup.docID) {
			out[i].Keep = false
			out[i].Check, out[i].DuplicateOf = CheckDuplicate, dup.key
			out[i].Reason = "near-duplicate of a passage of " + dup.key + " already kept"
			continue
		}
		f.kept = append(f.kept, kept{key: c.Key, docID: c.DocID, shingles: sh})
	}

	for _, d := range out {
		if d.Keep {
			rep.Kept = append(rep.Kept, d.Verdict)
		} else {
			rep.Dropped = append(rep.Dropped, d.Verdict)
		}
	}
	if f.cfg.Report != nil {
		f.cfg.Report(rep)
	}
	return out
}

// relativeFloor: a candidate scoring below this share of the task's best
// kept score is dropped.
const relativeFloor = 0.34

func judgeName(j Judge) string {
	switch j.(type) {
	case Lexical, *Lexical:
		return "lexical"
	case *LLMJudge:
		return "llm"
	}
	return fmt.Sprintf("%T", j)
}

// minProseWords is the fewest words of prose a passage needs to count as
// substance: a heading or a bare link has fewer; a terse definition ("RAID:
// Redundant Arrays of Independent Disks") has as many.
const minProseWords = 4

// noSubstance says why text has no substance, or "" when it has.
func noSubstance(text string) string {
	words, letters, total := 0, 0, 0
	for _, f := range strings.Fields(text) {
		alpha := 0
		for _, r := range f {
			total++
			if unicode.IsLetter(r) {
				letters++
				alpha++
			}
		}
		if alpha >= 2 && alpha*2 >= len([]rune(f)) && !strings.ContainsAny(strings.Trim(f, ".,;:!?\"'()[]{}"), "./:=_") {
			words++ // a word of prose, not a file name, path or identifier
		}
	}
	switch {
	case words < minProseWords:
		return fmt.Sprintf("no substance: %d words of prose", words)
	case letters*2 < total:
		return "no substance: mostly symbols, not prose"
	}
	return ""
}

func round(x float64) float64 { return math.Round(x*100) / 100 }

// oneLine folds whitespace and cuts s to about n bytes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}
