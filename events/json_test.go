package events

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch/source"
)

var t0 = time.Date(2025, 1, 2, 15, 4, 5, 123456789, time.UTC)

var src = source.Source{ID: "doc/go1.html", URL: "https://go.dev/doc/go1", Title: "Go 1 & <you>", Channel: "corpus"}

// samples holds one payload of every known type, with every field set.
var samples = []Payload{
	ClarificationData{Questions: []Clarification{{Question: "Which Mercury?", Assumption: "the planet"}}},
	ClarificationAnsweredData{Questions: []Clarification{{Question: "Which Mercury?", Assumption: "the planet", Answer: "the element"}}, Answered: true},
	PlanReviewData{Tasks: []PlanTask{{Index: 0, ID: "t1", Title: "History", Question: "When?"}}, MaxCycles: 2},
	PlanAcceptedData{Tasks: []PlanTask{{Index: 0, ID: "t1", Title: "People", Question: "Who?"}}, Edited: true, Added: []string{"People"}, Removed: []string{"History"}, Reworded: []string{"x"}},
	RunStartedData{Question: "Who laid the 1858 cable?", Config: map[string]any{"provider": "extractive", "max_tasks": 4.0}},
	PlanData{Tasks: []PlanTask{{Index: 0, ID: "t1", Title: "History", Question: "When?"}, {Index: 1, ID: "t2", Title: "People", Question: "Who?"}}},
	CycleStartedData{Cycle: 2, Tasks: []PlanTask{{Index: 4, ID: "t5", Title: "Cyrus Field", Question: "Who was Cyrus Field?", Cycle: 2, Part: "t2", Gap: "reference: Cyrus Field, named in [3]"}}},
	AssessedData{Cycle: 1, Covered: []string{"t1"}, Gaps: []Gap{{Kind: GapReference, Part: "t2", Detail: "Cyrus Field, named in [3]"}, {Kind: GapUncovered, Detail: "repair ships"}},
		Done: false, Decision: LoopContinue, Reason: "2 gaps left"},
	AgentStartedData{Task: PlanTask{Index: 1, ID: "t2", Title: "People", Question: "Who?", Cycle: 1}},
	SearchData{Query: "telegraph cable 1858", Results: 5},
	SourceData{Number: 3, Source: src},
	DeltaData{Text: "The cable [1] failed.\n"},
	CitedData{Sources: []CitedSource{{Number: 1, Source: src}, {Number: 4, Source: source.Source{ID: "x"}}}},
	AgentFinishedData{ToolCalls: 3, Cited: 2, Usage: Usage{PromptTokens: 100, CompletionTokens: 20, Calls: 2}, DurationMS: 4200},
	AgentFailedData{Error: "context deadline exceeded", Kind: FailTimeout},
	MergedData{Sources: []MergedSource{{Number: 1, Source: src, CanonicalURL: "https://go.dev/doc/go1", FirstSeenSection: "History", UsedInSections: []string{"History", "People"}}}, Unknown: 2},
	FilteredData{Query: "telegraph cable", Judge: "lexical",
		Kept: []FilterVerdict{{Key: "https://go.dev/doc/go1", Title: "Go 1", URL: "https://go.dev/doc/go1", Score: 0.8, Reason: "covers 4 of 5 key terms", Check: "relevance",
			Queries: []source.QueryScore{{QID: "1", Query: "go 1 compatibility", Score: 0.67}}}},
		Dropped: []FilterVerdict{{Key: "id:x", Score: 0.1, Reason: "repeats a kept source", Check: "duplicate", DuplicateOf: "https://go.dev/doc/go1"}}},
	ReportDeltaData{Text: "<sup>[1]</sup>"},
	VerifiedData{Citations: 12, Supported: 10, Unsupported: 1, Fabricated: 1, Duplicates: 1, Score: 0.83, Action: "flag",
		Problems: []VerifyProblem{{Line: 7, Severity: "warning", Kind: "unsupported", Number: 3, Message: "[3] does not support the sentence"}}},
	CitationData{Number: 1, Source: src},
	ReportFinishedData{References: []Reference{{Number: 1, Source: src}}},
	RunFinishedData{Usage: Usage{PromptTokens: 1000, CompletionTokens: 200, Calls: 9}, DurationMS: 42100, Agents: 4, AgentsFailed: 1, Sources: 18, Citations: 14,
		Timings: map[Stage]int64{StagePlan: 100, StageResearch: 40000, StageMerge: 5, StageReport: 1995}, Stopped: "the run's token budget (100 tokens) was reached", CostUSD: 0.25,
		Cycles: 2, LoopEnd: LoopBudget},
	ErrorData{Error: "planner: no tasks", Stage: StagePlan},
}

func TestSamplesCoverEveryType(t *testing.T) {
	seen := map[Type]bool{}
	for _, p := range samples {
		if _, ok := decoders[p.EventType()]; !ok {
			t.Errorf("%T: type %q has no decoder", p, p.EventType())
		}
		seen[p.EventType()] = true
	}
	for typ := range decoders {
		if !seen[typ] {
			t.Errorf("no sample payload for %q", typ)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for i, p := range samples {
		t.Run(string(p.EventType()), func(t *testing.T) {
			in := Event{RunID: "0123456789abcdef", Seq: uint64(i + 1), Time: t0, Type: p.EventType(), Agent: i - 1, Section: "History", Cycle: i % 3, Data: p}
			b, err := json.Marshal(in)
			if err != nil {
				t.Fatal(err)
			}
			var out Event
			if err := json.Unmarshal(b, &out); err != nil {
				t.Fatalf("unmarshal %s: %v", b, err)
			}
			if !out.Time.Equal(in.Time) {
				t.Errorf("time = %v, want %v", out.Time, in.Time)
			}
			out.Time = in.Time
			if !reflect.DeepEqual(out, in) {
				t.Errorf("round trip:\n got %#v\nwant %#v", out, in)
			}
		})
	}
}

func TestWireFormat(t *testing.T) {
	e := Event{RunID: "0123456789abcdef", Seq: 7, Time: t0, Type: SearchIssued, Agent: 2, Section: "History",
		Data: SearchData{Query: "telegraph <cable>", Results: 5}}
	b, err := e.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	want := `{"run_id":"0123456789abcdef","seq":7,"time":"2025-01-02T15:04:05.123456789Z","type":"agent.search","agent":2,"section":"History","data":{"query":"telegraph <cable>","results":5}}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

func TestMarshalTypeFromData(t *testing.T) {
	b, err := json.Marshal(Event{Agent: -1, Data: ErrorData{Error: "x", Stage: StageMerge}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"type":"error"`) {
		t.Errorf("type not taken from data: %s", b)
	}
}

func TestMarshalErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    Event
		want string
	}{
		{"mismatch", Event{Type: AgentDelta, Data: SearchData{}}, `event of type "agent.delta" carries a events.SearchData payload`},
		{"no type", Event{}, "event has no type"},
		{"bad config value", Event{Data: RunStartedData{Config: map[string]any{"f": func() {}}}}, "encoding run.started payload"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := json.Marshal(tc.e)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestUnmarshalUnknownType(t *testing.T) {
	in := `{"run_id":"r","seq":3,"time":"2025-01-02T15:04:05.123456789Z","type":"agent.thought","agent":1,"section":"S","data":{"text":"hmm","n":[1,2]}}`
	var e Event
	if err := json.Unmarshal([]byte(in), &e); err != nil {
		t.Fatal(err)
	}
	raw, ok := e.Data.(RawData)
	if !ok {
		t.Fatalf("Data = %T, want RawData", e.Data)
	}
	if raw.Type != "agent.thought" || string(raw.JSON) != `{"text":"hmm","n":[1,2]}` {
		t.Errorf("raw = %+v", raw)
	}
	out, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != in {
		t.Errorf("re-marshal:\n got %s\nwant %s", out, in)
	}
}

func TestUnmarshal(t *testing.T) {
	for _, tc := range []struct {
		name    string
		in      string
		want    Payload
		wantErr string
	}{
		{"unknown fields ignored", `{"type":"agent.search","data":{"query":"q","results":2,"engine":"new"},"extra":1}`, SearchData{Query: "q", Results: 2}, ""},
		{"null data", `{"type":"plan","data":null}`, PlanData{}, ""},
		{"missing data", `{"type":"report.delta"}`, ReportDeltaData{}, ""},
		{"missing data, unknown type", `{"type":"new.thing"}`, RawData{Type: "new.thing", JSON: json.RawMessage("null")}, ""},
		{"no type", `{"seq":1,"data":{}}`, nil, "event has no type"},
		{"data of wrong shape", `{"type":"agent.search","data":{"results":"five"}}`, nil, "decoding agent.search payload"},
		{"not an object", `[1]`, nil, "events: json"},
		{"bad time", `{"type":"plan","time":"yesterday"}`, nil, "events:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e Event
			err := json.Unmarshal([]byte(tc.in), &e)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(e.Data, tc.want) {
				t.Errorf("Data = %#v, want %#v", e.Data, tc.want)
			}
		})
	}
}

// FuzzUnmarshal checks that decoding never panics and that whatever decodes
// encodes again to something that decodes to the same event.
func FuzzUnmarshal(f *testing.F) {
	for i, p := range samples {
		b, err := json.Marshal(Event{RunID: "r", Seq: uint64(i), Time: t0, Agent: i, Data: p})
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"type":"x.y","data":[1,{"a":null}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var e Event
		if json.Unmarshal(b, &e) != nil {
			return
		}
		out, err := json.Marshal(e)
		if err != nil {
			t.Fatalf("re-marshal of %s: %v", b, err)
		}
		var e2 Event
		if err := json.Unmarshal(out, &e2); err != nil {
			t.Fatalf("decode of %s: %v", out, err)
		}
		out2, err := json.Marshal(e2)
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != string(out2) {
			t.Fatalf("not stable:\n%s\n%s", out, out2)
		}
	})
}
