package relevance

import (
	"reflect"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/source"
)

// TestQueryScores: every verdict scores its passage against each search
// of the task so far (seed 001's q_relevance), numbered in search order,
// whatever the judge.
func TestQueryScores(t *testing.T) {
	var reports []Report
	f := New(Config{Question: "How does a mutex provide mutual exclusion in Go?", Report: func(r Report) { reports = append(reports, r) }})
	cands := []Candidate{{Key: "sync.md", Title: "Package sync", Text: mutexText}, {Key: "rw.md", Title: "RWMutex", Text: rwText}}
	if _, err := f.Apply(t.Context(), "mutex zero value", cands[:1]); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Apply(t.Context(), "reader writer lock", cands[1:]); err != nil {
		t.Fatal(err)
	}
	if len(reports) != 2 || len(reports[0].Kept) != 1 || len(reports[1].Kept) != 1 {
		t.Fatalf("reports: %+v", reports)
	}
	want := [][]source.QueryScore{
		{{QID: "1", Query: "mutex zero value", Score: 1}},
		{{QID: "1", Query: "mutex zero value", Score: 1}, {QID: "2", Query: "reader writer lock", Score: 1}},
	}
	for i, r := range reports {
		if got := r.Kept[0].Queries; !reflect.DeepEqual(got, want[i]) {
			t.Errorf("search %d: q_relevance = %+v, want %+v", i+1, got, want[i])
		}
	}
	// A passage with part of a query's terms scores its share.
	got := queryScores([]string{"mutex contest", "the of and"}, Candidate{Text: contestText})
	if want := []source.QueryScore{{QID: "1", Query: "mutex contest", Score: 0.5}, {QID: "2", Query: "the of and", Score: 0}}; !reflect.DeepEqual(got, want) {
		t.Errorf("queryScores = %+v, want %+v", got, want)
	}
}

func TestWantsRecent(t *testing.T) {
	for q, want := range map[string]bool{
		"What is the latest Go release?":                    true,
		"Which cables are currently being laid?":            true,
		"What changed this year in the memory model?":       true,
		"Is the up-to-date guidance different?":             true,
		"What is the state of the art in repeaters?":        true,
		"How does a mutex work?":                            false,
		"Who laid the first transatlantic cable in 1858?":   false,
		"What does the current-carrying conductor do?":      false, // a compound, not a request for news
		"Describe the currency of Mali":                     false,
		"Which new cables reached New Zealand after 2010?":  false,
		"Recent: what are the newest undersea cable ships?": true,
	} {
		if got := wantsRecent(q); got != want {
			t.Errorf("wantsRecent(%q) = %v, want %v", q, got, want)
		}
	}
}

// TestFreshness: for a question asking for recent information, a dated
// source scores less the older it is than the newest the task has seen
// (half at two years), which can drop it under the task's relative
// floor; undated sources, and every source of a question that asks for
// no recency, keep their scores.
func TestFreshness(t *testing.T) {
	cands := func() []Candidate {
		return []Candidate{
			{Key: "new", Title: "Package sync", Text: mutexText, Date: "2024-06-01T10:00:00Z"},
			{Key: "old", Title: "Package sync (archive)", Text: strings.Replace(mutexText, "A Mutex is", "In Go a Mutex is", 1), Date: "2018-06-01"},
			{Key: "two", Title: "Package sync (2022)", Text: strings.Replace(mutexText, "A Mutex is", "Today a Mutex is", 1), Date: "2022-06-01"},
			{Key: "undated", Title: "Package sync (mirror)", Text: strings.Replace(mutexText, "A Mutex is", "Still, a Mutex is", 1)},
		}
	}
	judge := func(question string) []Decision {
		t.Helper()
		// The passages repeat each other: no duplicate check here, only scores.
		f := New(Config{Question: question})
		j, err := f.Judge(t.Context(), "mutex", nil, cands())
		if err != nil {
			t.Fatal(err)
		}
		f.freshness(j)
		return j.out
	}
	plain := judge("How does a mutex provide mutual exclusion?")
	recent := judge("How does a mutex provide mutual exclusion in the latest Go?")
	base := judge("How does a mutex provide mutual exclusion in the fastest Go?") // as many key terms, no recency
	for i := range plain {
		if plain[i].Score != judge("How does a mutex provide mutual exclusion?")[i].Score || plain[i].Score == 0 {
			t.Fatalf("scores are not stable: %+v", plain)
		}
	}
	for i, d := range recent {
		b := base[i]
		switch d.Key {
		case "new", "undated":
			if d.Score != b.Score || strings.Contains(d.Reason, "years before") {
				t.Errorf("%s: %v (%s), want %v unchanged", d.Key, d.Score, d.Reason, b.Score)
			}
		case "two":
			if want := round(b.Score / 2); d.Score != want {
				t.Errorf("two years older: score %v, want %v", d.Score, want)
			}
		case "old":
			if d.Score >= b.Score/3 || !strings.HasPrefix(d.Reason, "dated 2018-06-01, 6.0 years before the newest source (2024-06-01), for a question asking for recent information; ") {
				t.Errorf("six years older: %v (%s), want below a third of %v", d.Score, d.Reason, b.Score)
			}
		}
	}
	// In the filter, the old source falls under the task's relative floor.
	f := New(Config{Question: "How does a mutex provide mutual exclusion in the latest Go?"})
	ds, err := f.Apply(t.Context(), "mutex", []Candidate{cands()[0], {Key: "rw", Title: "RWMutex", Text: rwText, Date: "2018-06-01"}})
	if err != nil {
		t.Fatal(err)
	}
	if !ds[0].Keep || ds[1].Keep || !strings.Contains(ds[1].Reason, "much weaker than the best source") {
		t.Errorf("decisions %+v: want the 2024 source kept and the 2018 one dropped", ds)
	}
}
