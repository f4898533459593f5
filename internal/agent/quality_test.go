package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/internal/relevance"
	"github.com/deepresearch/deepresearch/search"
)

const mutexDoc = `A Mutex is a mutual exclusion lock. The zero value for a Mutex is an unlocked mutex, and a Mutex must not be copied after first use.

## Locking

Lock locks the mutex; if the lock is already in use, the calling goroutine blocks until the mutex is available. Unlock unlocks it, and it is a run-time error if the mutex is not locked on entry to Unlock.`

var qualityDocs = []search.Document{
	{DocID: "sync.md", URL: "file:///corpus/sync.md", Title: "Package sync", Text: mutexDoc},
	// The same text under another name and place.
	{DocID: "mirror/locks.md", URL: "file:///corpus/mirror/locks.md", Title: "Locks (mirror)", Text: mutexDoc},
	// Off-topic: shares only the word "lock" with nothing of the question's.
	{DocID: "contest.md", URL: "file:///corpus/contest.md", Title: "Programming contest results", Text: "The programming contest was held in the spring, and the winning team solved nine of the ten problems in the five hours the judges allowed; the mutual admiration of the teams was plain."},
}

const mutexQuestion = "How does a mutex lock provide mutual exclusion between goroutines?"

// runPlanned plans question with the extractive model and runs every
// task, returning the results and every filter report.
func runPlanned(t *testing.T, question string, docs ...search.Document) ([]*Result, []relevance.Report, []string) {
	t.Helper()
	m := extractive.New(extractive.Options{})
	tasks, _, err := Plan(context.Background(), m, question, 4)
	if err != nil {
		t.Fatal(err)
	}
	var results []*Result
	var reports []relevance.Report
	var queries []string
	for _, task := range tasks {
		res, err := Run(context.Background(), Config{
			Model: m, Search: newMemBackend(docs...),
			Hooks: Hooks{
				Filtered: func(r relevance.Report) { reports = append(reports, r) },
				Search:   func(q string, _ int) { queries = append(queries, q) },
			},
		}, task)
		if err != nil {
			t.Fatal(err)
		}
		checkCitations(t, res)
		results = append(results, res)
	}
	return results, reports, queries
}

func TestOffTopicSourceDroppedWithReason(t *testing.T) {
	results, reports, _ := runPlanned(t, mutexQuestion, qualityDocs...)
	var dropped *relevance.Verdict
	for _, r := range reports {
		for i, d := range r.Dropped {
			if d.Key == "url:file:///corpus/contest.md" {
				dropped = &r.Dropped[i]
			}
		}
		for _, k := range r.Kept {
			if strings.Contains(k.Key, "contest") {
				t.Errorf("off-topic source kept: %+v", k)
			}
		}
	}
	if dropped == nil {
		t.Fatalf("the contest page was never reported dropped; reports: %+v", reports)
	}
	if dropped.Check != relevance.CheckRelevance || dropped.Reason == "" || dropped.Title != "Programming contest results" {
		t.Errorf("dropped verdict = %+v", *dropped)
	}
	for _, res := range results {
		for n, src := range res.Sources {
			if src.ID == "contest.md" {
				t.Errorf("the off-topic source was numbered [%d]", n)
			}
		}
	}
}

func TestCopiesCitedOnce(t *testing.T) {
	results, reports, _ := runPlanned(t, mutexQuestion, qualityDocs...)
	dups := 0
	for _, r := range reports {
		for _, d := range r.Dropped {
			if d.Check == relevance.CheckDuplicate {
				dups++
			}
		}
	}
	if dups == 0 {
		t.Errorf("no duplicate was reported dropped: %+v", reports)
	}
	for _, res := range results {
		ids := map[string]bool{}
		for _, c := range res.Cited {
			ids[c.Source.ID] = true
		}
		for _, src := range res.Sources {
			ids[src.ID] = true
		}
		if ids["sync.md"] && ids["mirror/locks.md"] {
			t.Errorf("task %s retrieved or cited both copies of one text: %v\n%s", res.Task.Title, ids, res.Report)
		}
		if len(res.Cited) == 0 {
			t.Errorf("task %s cited nothing:\n%s", res.Task.Title, res.Report)
		}
	}
}

func TestUnanswerableTaskCitesNothing(t *testing.T) {
	results, _, _ := runPlanned(t, "What is the airspeed velocity of an unladen swallow?", qualityDocs...)
	for _, res := range results {
		if len(res.Cited) != 0 || res.Report != extractive.NoEvidence {
			t.Errorf("task %s: report %q cites %v; want it to say the sources hold no evidence", res.Task.Title, res.Report, res.Cited)
		}
	}
}

func TestQueriesComeFromTheQuestion(t *testing.T) {
	for _, q := range []string{mutexQuestion, "Compare Raft and Paxos for replicated state machines.", "How were transatlantic telegraph cables laid and repaired?"} {
		_, _, queries := runPlanned(t, q, corpusDocs...)
		if len(queries) == 0 {
			t.Fatalf("%q: no searches", q)
		}
		qw := map[string]bool{}
		for _, w := range words(q) {
			qw[w] = true
		}
		for _, query := range queries {
			for _, w := range words(query) {
				if !qw[w] {
					t.Errorf("%q: query %q has %q, which is not a word of the question", q, query, w)
				}
			}
		}
	}
}
