package recheck_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/deepresearch/deepresearch/recheck"
)

// A report with one page that still holds, one whose passage went, and
// one gone: the claim that cited only the gone page lost its support.
func ExampleResult_WriteText() {
	res := &recheck.Result{RunID: "run-1", Question: "How do tanks\nhold water?", Checked: time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC),
		Sources: []recheck.Source{
			{Number: 1, Title: "Tanks", URL: "https://example.org/tanks", Status: recheck.Unchanged, Detail: "the same text"},
			{Number: 2, Title: "Round tanks", URL: "https://example.org/round", Status: recheck.Changed, Detail: "1 of 1 passage checked is no longer in the page",
				Passages: []recheck.Passage{{Status: recheck.PassageGone, Text: "Circular   tanks resist pressure.", NewStart: -1}}},
			{Number: 3, Title: "Old tanks", URL: "https://example.org/old", Status: recheck.Gone, Detail: "410 Gone"},
			{Number: 4, Title: "Notes", Status: recheck.Skipped, Detail: "not a web page"},
		},
		Claims: []recheck.Claim{{Line: 3, Sentence: "Old tanks\nleaked.", Cites: []int{3}}},
	}
	res.Tally()
	if err := res.WriteText(os.Stdout); err != nil {
		panic(err)
	}
	// Output:
	// Run run-1: How do tanks hold water?
	// Sources read again 2026-11-29T08:00:00Z
	//
	// [1] UNCHANGED   Tanks <https://example.org/tanks>
	//       the same text
	// [2] CHANGED     Round tanks <https://example.org/round>
	//       1 of 1 passage checked is no longer in the page
	//       gone: "Circular tanks resist pressure."
	// [3] GONE        Old tanks <https://example.org/old>
	//       410 Gone
	// [4] SKIPPED     Notes
	//       not a web page
	//
	// 1 unchanged, 1 changed, 1 gone, 0 unreachable, 1 skipped
	//
	// 1 claim lost their support:
	//   line 3 [3]: Old tanks leaked.
	//
	// NO LONGER HOLDS: a claim's only support changed or went.
}

// TestTally: each status counts where it belongs, an unknown one as
// skipped, and the report holds exactly when no claim lost its support.
func TestTally(t *testing.T) {
	res := &recheck.Result{Holds: false, Summary: recheck.Summary{Gone: 9}, Sources: []recheck.Source{
		{Status: recheck.Unchanged}, {Status: recheck.Changed}, {Status: recheck.Changed}, {Status: recheck.Gone},
		{Status: recheck.Unreachable}, {Status: recheck.Skipped}, {Status: "new-kind"},
	}}
	res.Tally()
	want := recheck.Summary{Unchanged: 1, Changed: 2, Gone: 1, Unreachable: 1, Skipped: 2}
	if res.Summary != want || !res.Holds {
		t.Errorf("Tally: %+v holds=%v, want %+v holds=true", res.Summary, res.Holds, want)
	}
	res.Claims = []recheck.Claim{{Line: 1}, {Line: 2}}
	res.Tally()
	if want.Claims = 2; res.Summary != want || res.Holds {
		t.Errorf("Tally with claims: %+v holds=%v, want %+v holds=false", res.Summary, res.Holds, want)
	}
}

// TestReadWeb: a re-check read the web unless every source was skipped.
func TestReadWeb(t *testing.T) {
	for _, tc := range []struct {
		statuses []recheck.Status
		want     bool
	}{
		{nil, false},
		{[]recheck.Status{recheck.Skipped, recheck.Skipped}, false},
		{[]recheck.Status{recheck.Skipped, recheck.Unreachable}, true},
		{[]recheck.Status{recheck.Gone}, true},
	} {
		res := &recheck.Result{}
		for _, s := range tc.statuses {
			res.Sources = append(res.Sources, recheck.Source{Status: s})
		}
		if got := res.ReadWeb(); got != tc.want {
			t.Errorf("ReadWeb with %v = %v, want %v", tc.statuses, got, tc.want)
		}
	}
}

// TestWriteTextClips: a long passage or sentence is cut on a word
// boundary, never inside a character, and a report that holds says so.
func TestWriteTextClips(t *testing.T) {
	long := strings.Repeat("é", 99) + " " + strings.Repeat("ü", 200) // 198 bytes, a space, 400 bytes
	res := &recheck.Result{Checked: time.Unix(0, 0),
		Sources: []recheck.Source{{Number: 1, Status: recheck.Changed, Passages: []recheck.Passage{{Status: recheck.PassageMoved, Text: long}}}},
		Claims:  []recheck.Claim{{Line: 1, Sentence: "a" + strings.Repeat("ß", 400), Cites: []int{1}}}}
	var b strings.Builder
	if err := res.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !utf8.ValidString(out) {
		t.Errorf("WriteText cut a character:\n%q", out)
	}
	if want := `moved: "` + strings.Repeat("é", 99) + `"`; !strings.Contains(out, want) {
		t.Errorf("the passage is not cut at its space (200 bytes at the most):\n%s", out)
	}
	if want := ": a" + strings.Repeat("ß", 149) + "\n"; !strings.Contains(out, want) {
		t.Errorf("the sentence without a space is not cut before its 300th byte, between characters:\n%s", out)
	}
	res.Claims = nil
	res.Tally()
	b.Reset()
	if err := res.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(b.String(), "\nHOLDS: every claim still has its support.\n") || strings.Contains(b.String(), "Run ") {
		t.Errorf("a report that holds, without a run:\n%s", b.String())
	}
}

// TestWireFormat: the JSON of a Result is the wire format of `recheck
// --json`, the HTTP endpoint and the store (Store.PutRecheck): its names
// stay.
func TestWireFormat(t *testing.T) {
	res := recheck.Result{RunID: "r", Checked: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), Holds: true,
		Sources: []recheck.Source{{Number: 1, URL: "https://example.org", Status: recheck.Changed, Detail: "d", FinalURL: "https://example.org/",
			SHA256: "a", NewSHA256: "b", Passages: []recheck.Passage{{Status: recheck.PassageMoved, Text: "t", SHA256: "s", Start: 1, End: 2, NewStart: 5}}}},
		Claims: []recheck.Claim{{Line: 2, Sentence: "x", Cites: []int{1}}}}
	res.Tally()
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"run_id":"r","checked":"2026-01-02T03:04:05Z","holds":false,` +
		`"summary":{"unchanged":0,"changed":1,"gone":0,"unreachable":0,"skipped":0,"claims_flagged":1},` +
		`"sources":[{"number":1,"url":"https://example.org","status":"changed","detail":"d","final_url":"https://example.org/",` +
		`"text_sha256":"a","new_text_sha256":"b","passages":[{"status":"moved","text":"t","sha256":"s","start":1,"end":2,"new_start":5}]}],` +
		`"claims":[{"line":2,"sentence":"x","cites":[1]}]}`
	if string(b) != want {
		t.Errorf("JSON:\n got %s\nwant %s", b, want)
	}
}
