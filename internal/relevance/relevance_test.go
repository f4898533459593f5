package relevance

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms/openai"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const (
	mutexText   = "A Mutex is a mutual exclusion lock. The zero value for a Mutex is an unlocked mutex. A Mutex must not be copied after first use, and Lock blocks until the mutex is available."
	contestText = "The programming contest was held in the spring, and the winning team solved nine of the ten problems in the five hours allowed by the judges."
	rwText      = "An RWMutex is a reader/writer mutual exclusion lock. The lock can be held by an arbitrary number of readers or a single writer, and the zero value is an unlocked mutex."
)

func TestLexicalDropsOffTopic(t *testing.T) {
	var reports []Report
	f := New(Config{
		Question: "How does a mutex provide mutual exclusion in Go?",
		Task:     "What is a mutex?",
		Report:   func(r Report) { reports = append(reports, r) },
	})
	ds, err := f.Apply(context.Background(), "mutex mutual exclusion", []Candidate{
		{Key: "sync.md", Title: "Package sync", Text: mutexText},
		{Key: "contest.md", Title: "Contest results", Text: contestText},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !ds[0].Keep || ds[1].Keep {
		t.Fatalf("keep = %v, %v; want the mutex passage kept and the contest dropped", ds[0].Keep, ds[1].Keep)
	}
	if len(reports) != 1 {
		t.Fatalf("got %d reports, want 1", len(reports))
	}
	r := reports[0]
	if r.Query != "mutex mutual exclusion" || r.Judge != "lexical" || len(r.Kept) != 1 || len(r.Dropped) != 1 {
		t.Fatalf("report = %+v", r)
	}
	d := r.Dropped[0]
	if d.Key != "contest.md" || d.Check != CheckRelevance || d.Reason != "shares no key term with the question" || d.Score != 0 {
		t.Errorf("dropped = %+v", d)
	}
	if k := r.Kept[0]; k.Score <= 0 || !strings.HasPrefix(k.Reason, "matches question terms mutex") {
		t.Errorf("kept = %+v", k)
	}
}

func TestLexicalScores(t *testing.T) {
	tests := []struct {
		name     string
		question string
		text     string
		relevant bool
		reason   string
	}{
		{"compound joined", "How is a SHA-256 checksum computed?", "Sum256 returns the SHA256 checksum of the data.", true, "matches question terms sha-256, checksum"},
		{"compound in parts", "What does happens-before mean?", "One event happens before another when it is ordered first.", true, "matches question terms happens-before"},
		{"one of many terms", "How do goroutines, channels, select statements and timers interact in Go?", "The go command builds packages.", false, "covers too few key terms"},
		{"no key term", "What is a mutex?", contestText, false, "shares no key term with the question"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			js, err := Lexical{}.Judge(context.Background(), Request{Question: tt.question, Task: tt.question, Candidates: []Candidate{{Text: tt.text}}})
			if err != nil {
				t.Fatal(err)
			}
			if js[0].Relevant != tt.relevant || !strings.HasPrefix(js[0].Reason, tt.reason) {
				t.Errorf("got %+v, want relevant=%v reason %q…", js[0], tt.relevant, tt.reason)
			}
		})
	}
}

func TestDuplicatesKeptOnce(t *testing.T) {
	var reports []Report
	f := New(Config{Question: "What is a mutex?", Report: func(r Report) { reports = append(reports, r) }})
	copyText := strings.ReplaceAll(strings.ToUpper(mutexText[:1])+mutexText[1:], ". ", ".\n")
	ds, err := f.Apply(context.Background(), "mutex", []Candidate{
		{Key: "a/sync.md", Title: "sync", Text: mutexText},
		{Key: "b/mirror.md", Title: "Mirror of sync", Text: copyText},
		{Key: "a/sync.md", Title: "sync", Text: mutexText}, // the same source again is not a duplicate
	})
	if err != nil {
		t.Fatal(err)
	}
	if !ds[0].Keep || ds[1].Keep || !ds[2].Keep {
		t.Fatalf("keep = %v %v %v, want true false true", ds[0].Keep, ds[1].Keep, ds[2].Keep)
	}
	if ds[1].Check != CheckDuplicate || ds[1].DuplicateOf != "a/sync.md" {
		t.Errorf("duplicate verdict = %+v", ds[1].Verdict)
	}
	// A later search meets the copy again: still a duplicate.
	ds, _ = f.Apply(context.Background(), "mutual exclusion", []Candidate{{Key: "b/mirror.md", Text: mutexText + " Unlock releases it."}})
	if ds[0].Keep || ds[0].Check != CheckDuplicate {
		t.Errorf("second search: %+v", ds[0])
	}
	// A different text of another source is kept.
	ds, _ = f.Apply(context.Background(), "rwmutex", []Candidate{{Key: "c/rw.md", Text: rwText}})
	if !ds[0].Keep {
		t.Errorf("distinct text dropped: %+v", ds[0])
	}
}

func TestNoSubstance(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"heading only", "# Mutex", "no substance: 1 words of prose"},
		{"link list", "mutex: sync.md, rwmutex: rw.md", "no substance: 2 words of prose"},
		{"symbols", "alpha beta gamma delta epsilon zeta eta theta iota ==== ==== ==== ==== ==== ==== ==== ==== ==== ==== ==== ====", "no substance: mostly symbols, not prose"},
		{"prose", mutexText, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := noSubstance(tt.text); got != tt.want {
				t.Errorf("noSubstance = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestWeakerThanBestDropped(t *testing.T) {
	f := New(Config{Question: "What do Lock, Unlock, TryLock and the zero value of a sync mutex do?"})
	ds, _ := f.Apply(context.Background(), "q", []Candidate{
		{Key: "a", Text: mutexText + " Package sync also offers TryLock."},
		{Key: "b", Text: "Lock the door with the key before you leave the house; its value is higher than you think."},
	})
	if !ds[0].Keep || ds[1].Keep || !strings.HasPrefix(ds[1].Reason, "much weaker than the best source") {
		t.Errorf("decisions = %+v", ds)
	}
}

// openAIServer speaks the OpenAI chat completions wire format and answers
// every request with content; it records the requests' messages.
func openAIServer(t *testing.T, content string, got *[]string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/chat/completions" {
			http.Error(w, `{"error":{"message":"not found"}}`, http.StatusNotFound)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		json.Unmarshal(body, &req)
		for _, m := range req.Messages {
			*got = append(*got, m.Content)
		}
		w.Header().Set("Content-Type", "application/json")
		resp := map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": 1700000000, "model": "judge",
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": content}}},
			"usage": map[string]any{"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
		}
		json.NewEncoder(w).Encode(resp)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestLLMJudge(t *testing.T) {
	tests := []struct {
		name      string
		reply     string
		wantKeep  []bool
		wantJudge string
	}{
		{"json array", `[{"id":1,"score":0.92,"reason":"defines the mutex"},{"id":2,"score":0.05,"reason":"about a contest"}]`,
			[]bool{true, false}, "llm"},
		{"fenced object, string ids", "Here you are:\n```json\n{\"results\":[{\"sid\":\"2\",\"score\":\"0.1\"},{\"sid\":\"1\",\"score\":0.7,\"reasoning\":\"on topic\"}]}\n```",
			[]bool{true, false}, "llm"},
		{"prose falls back to lexical", "Both passages look fine to me.",
			[]bool{true, false}, "lexical (llm failed: relevance: judge reply holds no JSON judgements)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var prompts []string
			srv := openAIServer(t, tt.reply, &prompts)
			m, err := openai.New(openai.WithBaseURL(srv.URL), openai.WithToken("test-key"), openai.WithModel("judge"))
			if err != nil {
				t.Fatal(err)
			}
			var rep Report
			f := New(Config{Question: "What is a mutex?", Judge: &LLMJudge{Model: m}, Report: func(r Report) { rep = r }})
			ds, err := f.Apply(context.Background(), "mutex", []Candidate{
				{Key: "sync.md", Title: "Package sync", Text: mutexText, Date: "2024-03-15T10:00:00Z"},
				{Key: "contest.md", Title: "Contest", Text: contestText},
			})
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range tt.wantKeep {
				if ds[i].Keep != want {
					t.Errorf("candidate %d keep = %v, want %v (%+v)", i, ds[i].Keep, want, ds[i].Verdict)
				}
			}
			if rep.Judge != tt.wantJudge {
				t.Errorf("judge = %q, want %q", rep.Judge, tt.wantJudge)
			}
			if len(prompts) != 2 || !strings.Contains(prompts[1], `<passage id="2">`) || !strings.Contains(prompts[1], "User's question: What is a mutex?") ||
				!strings.Contains(prompts[1], "<passage id=\"1\">\nTitle: Package sync\nDate: 2024-03-15\nA Mutex") {
				t.Errorf("prompt sent:\n%s", strings.Join(prompts, "\n---\n"))
			}
		})
	}
}

func TestSharesKeyTerm(t *testing.T) {
	if !SharesKeyTerm("What is a mutex?", "Package sync provides Mutexes.") {
		t.Error("mutex/Mutexes not matched")
	}
	if SharesKeyTerm("What is a mutex?", contestText) {
		t.Error("contest matched")
	}
	if got := KeyTerms("How does the Go memory model define happens-before?"); strings.Join(got, " ") != "go memory model happen" {
		t.Errorf("KeyTerms = %q", got)
	}
}

func TestCopiesAcross(t *testing.T) {
	page := strings.Repeat("A Mutex is a mutual exclusion lock and the zero value for a Mutex is an unlocked mutex. ", 4)
	tests := []struct {
		name  string
		reads []Read
		want  map[int]int
	}{
		{"copy under another key", []Read{{"a", page}, {"b", "Other text about channels and select statements in Go programs."}, {"c", page}}, map[int]int{2: 0}},
		{"excerpt of a page read whole", []Read{{"a", "Intro. " + page + " More about RWMutex and Once."}, {"c", page}}, map[int]int{1: 0}},
		{"same key is no copy", []Read{{"a", page}, {"a", page}}, map[int]int{}},
		{"three copies, one original", []Read{{"a", page}, {"b", page}, {"c", page}}, map[int]int{1: 0, 2: 0}},
		{"empty text", []Read{{"a", ""}, {"b", ""}}, map[int]int{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CopiesAcross(tt.reads); !maps.Equal(got, tt.want) {
				t.Errorf("CopiesAcross = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestSharedPassageIsNoCopy: with Whole, a passage that repeats another
// source's kept passage is dropped only when the documents repeat each
// other as a whole; a document sharing its opening with another (a
// package and its next version) is kept.
func TestSharedPassageIsNoCopy(t *testing.T) {
	opening := "Package rand implements pseudo-random number generators suitable for tasks such as simulation, but it should not be used for security-sensitive work. Random numbers are generated by a Source, usually wrapped in a Rand."
	docs := map[string]string{
		"rand.md":    opening + strings.Repeat(" Seed uses the provided seed value to initialize the default Source to a deterministic state.", 3),
		"v2.md":      opening + strings.Repeat(" The v2 package has no Seed function; its generators are seeded from the operating system at start-up.", 3),
		"mirror.md":  opening + strings.Repeat(" Seed uses the provided seed value to initialize the default Source to a deterministic state.", 3),
		"missing.md": "",
	}
	whole := func(_ context.Context, id string) (string, error) {
		if docs[id] == "" {
			return "", errors.New("no such document")
		}
		return docs[id], nil
	}
	tests := []struct {
		name  string
		whole func(context.Context, string) (string, error)
		doc   string
		keep  bool
	}{
		{"next version shares a passage", whole, "v2.md", true},
		{"a copy of the whole document", whole, "mirror.md", false},
		{"unreadable: the passages decide", whole, "missing.md", false},
		{"without Whole: the passages decide", nil, "v2.md", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := New(Config{Question: "How do I generate pseudo-random numbers for a simulation?", Whole: tt.whole})
			cand := func(id string) Candidate {
				return Candidate{Key: id, Title: "Package rand", Text: opening, DocID: id}
			}
			ds, err := f.Apply(context.Background(), "random numbers", []Candidate{cand("rand.md"), cand(tt.doc)})
			if err != nil {
				t.Fatal(err)
			}
			if !ds[0].Keep || ds[1].Keep != tt.keep {
				t.Errorf("kept %v and %v, want true and %v (%s)", ds[0].Keep, ds[1].Keep, tt.keep, ds[1].Reason)
			}
		})
	}
}
