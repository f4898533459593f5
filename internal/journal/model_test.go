package journal_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tmc/langchaingo/llms"
	"go.uber.org/goleak"

	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/internal/journal"
	"github.com/deepresearch/deepresearch/internal/provider"
	"github.com/deepresearch/deepresearch/internal/usage"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var t0 = time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)

func clock() func() time.Time { return func() time.Time { return t0 } }

// openAI is the real OpenAI provider client talking to the OpenAI double
// (the offline extractive model behind OpenAI's wire format).
func openAI(t *testing.T) (llms.Model, *deepresearchtest.OpenAIServer) {
	t.Helper()
	srv := deepresearchtest.NewOpenAIServer(deepresearchtest.Model(0), deepresearchtest.OpenAIOptions{ChunkBytes: 5})
	t.Cleanup(srv.Close)
	m, err := provider.New(context.Background(), provider.Config{Provider: provider.OpenAI, Name: "extractive",
		BaseURL: srv.URL + "/v1", APIKey: "sk-test", Tools: provider.ToolsNative}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	return m, srv
}

var searchTool = llms.Tool{Type: "function", Function: &llms.FunctionDefinition{Name: "search", Description: "Search.",
	Parameters: map[string]any{"type": "object", "properties": map[string]any{"query": map[string]any{"type": "string"}}, "required": []string{"query"}}}}

// conversation is a research turn and a report turn, as an agent makes
// them.
func researchTurn() []llms.MessageContent {
	return []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "You research. Call search, then report."),
		llms.TextParts(llms.ChatMessageTypeHuman, "Task: How does the Go garbage collector pace itself?"),
	}
}

func reportTurn() []llms.MessageContent {
	return []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, "Write a short report citing sources as [n]."),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.ToolCall{ID: "call_1", Type: "function",
			FunctionCall: &llms.FunctionCall{Name: "search", Arguments: `{"query":"gc pacer"}`}}}},
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "call_1", Name: "search",
			Content: "[1] GC pacer\nURL: https://go.dev/doc/gc-guide\nThe pacer decides when the next collection starts so that the heap reaches its goal as marking ends."}}},
		llms.TextParts(llms.ChatMessageTypeHuman, "Write the report now."),
	}
}

// call makes one call, streaming when stream is set, and returns what the
// caller saw: the chunks and the response.
func call(ctx context.Context, m llms.Model, msgs []llms.MessageContent, stream bool, opts ...llms.CallOption) ([]string, *llms.ContentResponse, error) {
	var chunks []string
	if stream {
		opts = append(opts, llms.WithStreamingFunc(func(_ context.Context, c []byte) error {
			chunks = append(chunks, string(c))
			return nil
		}))
	}
	resp, err := m.GenerateContent(ctx, msgs, opts...)
	return chunks, resp, err
}

// TestModelRecordReplay records a tool-calling turn and a streamed report
// turn made through the real OpenAI client, then answers both offline:
// the caller sees the same chunks and the same response, and the provider
// is not called again.
func TestModelRecordReplay(t *testing.T) {
	inner, srv := openAI(t)
	log := &journal.MemLog{}
	rec, err := journal.New("run1", nil, journal.Options{Log: log, Clock: clock()})
	if err != nil {
		t.Fatal(err)
	}
	m := journal.Model{Model: inner}
	ctx := journal.NewContext(context.Background(), rec)
	type outcome struct {
		chunks []string
		resp   *llms.ContentResponse
	}
	var live []outcome
	for _, c := range []struct {
		scope  string
		msgs   []llms.MessageContent
		stream bool
		opts   []llms.CallOption
	}{
		{"researcher/t1", researchTurn(), false, []llms.CallOption{llms.WithTools([]llms.Tool{searchTool})}},
		{"researcher/t1", reportTurn(), true, []llms.CallOption{llms.WithMaxTokens(400)}},
	} {
		chunks, resp, err := call(journal.WithScope(ctx, c.scope), m, c.msgs, c.stream, c.opts...)
		if err != nil {
			t.Fatal(err)
		}
		live = append(live, outcome{chunks, resp})
	}
	if len(live[0].resp.Choices[0].ToolCalls) == 0 {
		t.Fatalf("the research turn called no tool: %+v", live[0].resp.Choices[0])
	}
	if len(live[1].chunks) < 2 || strings.Join(live[1].chunks, "") != live[1].resp.Choices[0].Content {
		t.Fatalf("the report turn streamed %q for content %q", live[1].chunks, live[1].resp.Choices[0].Content)
	}
	raw, _ := log.Entries(ctx, "run1")
	if len(raw) != 2 || srv.Calls() != 2 {
		t.Fatalf("%d entries recorded for %d provider calls, want 2 and 2", len(raw), srv.Calls())
	}
	if s := rec.Stats(); s.Recorded != 2 || s.Replayed != 0 {
		t.Errorf("recording stats %+v", s)
	}

	// Offline, with no model at all behind the journal.
	rep, err := journal.New("run1", raw, journal.Options{Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	off := journal.NewContext(context.Background(), rep)
	m = journal.Model{}
	for i, c := range []struct {
		msgs   []llms.MessageContent
		stream bool
		opts   []llms.CallOption
	}{
		{researchTurn(), false, []llms.CallOption{llms.WithTools([]llms.Tool{searchTool})}},
		{reportTurn(), true, []llms.CallOption{llms.WithMaxTokens(400)}},
	} {
		chunks, resp, err := call(journal.WithScope(off, "researcher/t1"), m, c.msgs, c.stream, c.opts...)
		if err != nil {
			t.Fatalf("replay %d: %v", i, err)
		}
		if !reflect.DeepEqual(chunks, live[i].chunks) {
			t.Errorf("replay %d streamed %q, live %q", i, chunks, live[i].chunks)
		}
		if !sameResponse(resp, live[i].resp) {
			t.Errorf("replay %d answered %+v, live %+v", i, resp.Choices[0], live[i].resp.Choices[0])
		}
	}
	if srv.Calls() != 2 {
		t.Errorf("the provider was called %d times, want 2: replay must not call it", srv.Calls())
	}
	if s := rep.Stats(); s.Replayed != 2 || s.Unused != 0 || s.Missed != 0 {
		t.Errorf("replay stats %+v", s)
	}

	// A request that differs in anything is not found.
	_, _, err = call(journal.WithScope(off, "researcher/t1"), m, reportTurn(), true, llms.WithMaxTokens(401))
	var miss *journal.MissError
	if !errors.Is(err, journal.ErrNotJournaled) || !errors.As(err, &miss) || miss.Scope != "researcher/t1" || miss.Kind != journal.KindModel {
		t.Errorf("an unrecorded request offline: %v", err)
	}
}

func sameResponse(a, b *llms.ContentResponse) bool {
	if a == nil || b == nil || len(a.Choices) != len(b.Choices) {
		return a == b
	}
	for i := range a.Choices {
		x, y := *a.Choices[i], *b.Choices[i]
		if usage.Of(&x) != usage.Of(&y) {
			return false
		}
		if len(x.ToolCalls) == 0 && len(y.ToolCalls) == 0 {
			x.ToolCalls, y.ToolCalls = nil, nil
		}
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}

// scripted is a model whose n-th answer says n, so a test can tell which
// recorded answer a replay gave. It streams its answer in two pieces.
type scripted struct {
	mu    sync.Mutex
	calls int
	err   func(ctx context.Context) error // if set, each call fails with its result
}

func (s *scripted) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	s.mu.Lock()
	s.calls++
	n := s.calls
	s.mu.Unlock()
	text := fmt.Sprintf("answer %d to %s", n, msgs[len(msgs)-1].Parts[0].(llms.TextContent).Text)
	if o.StreamingFunc != nil {
		if err := o.StreamingFunc(ctx, []byte(text[:7])); err != nil {
			return nil, err
		}
	}
	if s.err != nil {
		if err := s.err(ctx); err != nil {
			return nil, err
		}
	}
	if o.StreamingFunc != nil {
		if err := o.StreamingFunc(ctx, []byte(text[7:])); err != nil {
			return nil, err
		}
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: text, StopReason: "stop",
		GenerationInfo: map[string]any{"PromptTokens": 10, "CompletionTokens": n}}}}, nil
}

func (s *scripted) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, s, prompt, opts...)
}

func human(text string) []llms.MessageContent {
	return []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, text)}
}

func answer(t *testing.T, ctx context.Context, m llms.Model, text string) string {
	t.Helper()
	resp, err := m.GenerateContent(ctx, human(text))
	if err != nil {
		t.Fatal(err)
	}
	return resp.Choices[0].Content
}

// TestOccurrencesAndScopes: identical requests are answered in the order
// they were recorded, counted per scope, whatever order the scopes run
// in.
func TestOccurrencesAndScopes(t *testing.T) {
	log := &journal.MemLog{}
	j, _ := journal.New("r", nil, journal.Options{Log: log})
	m := journal.Model{Model: &scripted{}}
	ctx := journal.NewContext(context.Background(), j)
	a, b := journal.WithScope(ctx, "researcher/t1"), journal.WithScope(ctx, "researcher/t2")
	want := []string{answer(t, a, m, "q"), answer(t, b, m, "q"), answer(t, a, m, "q"), answer(t, a, m, "other"), answer(t, b, m, "q")}
	raw, _ := log.Entries(ctx, "r")

	j2, err := journal.New("r", raw, journal.Options{Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	m = journal.Model{}
	ctx = journal.NewContext(context.Background(), j2)
	a, b = journal.WithScope(ctx, "researcher/t1"), journal.WithScope(ctx, "researcher/t2")
	// t2 first this time, then t1.
	got := map[int]string{1: answer(t, b, m, "q"), 4: answer(t, b, m, "q"), 3: answer(t, a, m, "other"), 0: answer(t, a, m, "q"), 2: answer(t, a, m, "q")}
	for i, w := range want {
		if got[i] != w {
			t.Errorf("call %d answered %q, want %q", i, got[i], w)
		}
	}
	if _, err := m.GenerateContent(a, human("q")); !errors.Is(err, journal.ErrNotJournaled) {
		t.Errorf("a third identical request in t1 offline: %v, want ErrNotJournaled", err)
	}
}

// TestResume: a journal reopened with a log answers what it holds and
// makes and records only the rest.
func TestResume(t *testing.T) {
	log := &journal.MemLog{}
	inner := &scripted{}
	m := journal.Model{Model: inner}
	j, _ := journal.New("r", nil, journal.Options{Log: log})
	ctx := journal.WithScope(journal.NewContext(context.Background(), j), "planner")
	first := []string{answer(t, ctx, m, "one"), answer(t, ctx, m, "two")}

	j, err := journal.Open(context.Background(), log, "r", journal.Options{Log: log})
	if err != nil {
		t.Fatal(err)
	}
	ctx = journal.WithScope(journal.NewContext(context.Background(), j), "planner")
	got := []string{answer(t, ctx, m, "one"), answer(t, ctx, m, "two"), answer(t, ctx, m, "three")}
	if got[0] != first[0] || got[1] != first[1] || got[2] != "answer 3 to three" {
		t.Errorf("resumed answers %q after %q", got, first)
	}
	if inner.calls != 3 {
		t.Errorf("the model was called %d times, want 3: nothing completed is made twice", inner.calls)
	}
	if raw, _ := log.Entries(ctx, "r"); len(raw) != 3 {
		t.Errorf("%d entries, want 3", len(raw))
	}
}

// TestErrors: a call's failure is recorded and replayed with its message;
// a deadline replays as a deadline; a call cut off by cancellation was not
// completed and is not recorded.
func TestErrors(t *testing.T) {
	boom := errors.New("openai: 400 invalid request")
	log := &journal.MemLog{}
	j, _ := journal.New("r", nil, journal.Options{Log: log})
	ctx := journal.WithScope(journal.NewContext(context.Background(), j), "writer")

	var streamed []string
	stream := llms.WithStreamingFunc(func(_ context.Context, c []byte) error { streamed = append(streamed, string(c)); return nil })
	failing := journal.Model{Model: &scripted{err: func(context.Context) error { return boom }}}
	if _, err := failing.GenerateContent(ctx, human("bad"), stream); !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	expired, cancel := context.WithDeadline(ctx, t0) // long past: done at once
	defer cancel()
	waiting := journal.Model{Model: &scripted{err: func(ctx context.Context) error { <-ctx.Done(); return ctx.Err() }}}
	if _, err := waiting.GenerateContent(expired, human("slow")); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v", err)
	}
	canceled, stop := context.WithCancel(ctx)
	stop()
	if _, err := waiting.GenerateContent(canceled, human("stopped")); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
	raw, _ := log.Entries(ctx, "r")
	if len(raw) != 2 {
		t.Fatalf("%d entries, want 2 (the canceled call is not recorded)", len(raw))
	}

	j2, _ := journal.New("r", raw, journal.Options{Offline: true})
	ctx = journal.WithScope(journal.NewContext(context.Background(), j2), "writer")
	var replayed []string
	_, err := journal.Model{}.GenerateContent(ctx, human("bad"), llms.WithStreamingFunc(func(_ context.Context, c []byte) error {
		replayed = append(replayed, string(c))
		return nil
	}))
	if err == nil || err.Error() != boom.Error() || !reflect.DeepEqual(replayed, streamed) {
		t.Errorf("replayed failure %v after %q; want %v after %q", err, replayed, boom, streamed)
	}
	_, err = journal.Model{}.GenerateContent(ctx, human("slow"))
	var rerr *journal.ReplayedError
	if !errors.Is(err, context.DeadlineExceeded) || !errors.As(err, &rerr) {
		t.Errorf("replayed deadline: %v", err)
	}
	if _, err := (journal.Model{}).GenerateContent(ctx, human("stopped")); !errors.Is(err, journal.ErrNotJournaled) {
		t.Errorf("the canceled call offline: %v, want ErrNotJournaled", err)
	}
}

// TestStreamingFuncError: a caller that stops a replayed stream gets its
// own error back, as from a provider.
func TestStreamingFuncError(t *testing.T) {
	log := &journal.MemLog{}
	j, _ := journal.New("r", nil, journal.Options{Log: log})
	ctx := journal.NewContext(context.Background(), j)
	if _, _, err := call(ctx, journal.Model{Model: &scripted{}}, human("x"), true); err != nil {
		t.Fatal(err)
	}
	raw, _ := log.Entries(ctx, "r")
	j2, _ := journal.New("r", raw, journal.Options{Offline: true})
	stop := errors.New("too much")
	n := 0
	_, err := journal.Model{}.GenerateContent(journal.NewContext(context.Background(), j2), human("x"),
		llms.WithStreamingFunc(func(context.Context, []byte) error { n++; return stop }))
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("err %v after %d chunks, want %v after 1", err, n, stop)
	}
}

// TestLiveStage: offline, the model calls of a live stage are made (and
// only those); the other stages replay.
func TestLiveStage(t *testing.T) {
	log := &journal.MemLog{}
	j, _ := journal.New("r", nil, journal.Options{Log: log})
	ctx := journal.NewContext(context.Background(), j)
	m := journal.Model{Model: &scripted{}}
	answer(t, journal.WithScope(ctx, "planner"), m, "plan")
	answer(t, journal.WithScope(ctx, "researcher/t1"), m, "research")
	answer(t, journal.WithScope(ctx, "writer"), m, "write")
	raw, _ := log.Entries(ctx, "r")

	live := &scripted{calls: 100}
	j2, _ := journal.New("r", raw, journal.Options{Offline: true, Live: []string{"writer"}})
	ctx = journal.NewContext(context.Background(), j2)
	m = journal.Model{Model: live}
	got := []string{answer(t, journal.WithScope(ctx, "planner"), m, "plan"), answer(t, journal.WithScope(ctx, "researcher/t1"), m, "research"),
		answer(t, journal.WithScope(ctx, "writer"), m, "write"), answer(t, journal.WithScope(ctx, "writer"), m, "write again")}
	want := []string{"answer 1 to plan", "answer 2 to research", "answer 101 to write", "answer 102 to write again"}
	if !reflect.DeepEqual(got, want) || live.calls != 102 {
		t.Errorf("answers %q (%d live calls), want %q", got, live.calls-100, want)
	}
	if s := j2.Stats(); s.Replayed != 2 || s.Live != 2 || s.Unused != 1 {
		t.Errorf("stats %+v", s)
	}
}

// failingLog refuses every append.
type failingLog struct{ journal.MemLog }

func (*failingLog) Append(context.Context, string, []byte) error { return errors.New("disk full") }

func TestAppendFailure(t *testing.T) {
	var reported []error
	j, _ := journal.New("r", nil, journal.Options{Log: &failingLog{}, Hooks: journal.Hooks{
		AppendFailed: func(err error) { reported = append(reported, err) }}})
	ctx := journal.WithScope(journal.NewContext(context.Background(), j), "verify")
	if got := answer(t, ctx, journal.Model{Model: &scripted{}}, "q"); got != "answer 1 to q" {
		t.Errorf("answer %q", got)
	}
	var aerr *journal.AppendError
	if len(reported) != 1 || !errors.As(reported[0], &aerr) || aerr.Scope != "verify" || !strings.Contains(aerr.Error(), "disk full") {
		t.Errorf("reported %v", reported)
	}
}

// TestNoJournal: outside a run's context every call passes through.
func TestNoJournal(t *testing.T) {
	inner := &scripted{}
	m := journal.Model{Model: inner}
	answer(t, context.Background(), m, "a")
	if inner.calls != 1 {
		t.Errorf("%d calls", inner.calls)
	}
	if _, err := (journal.Model{}).GenerateContent(context.Background(), human("a")); !errors.Is(err, journal.ErrNoModel) {
		t.Errorf("no model: %v", err)
	}
	if s, err := m.Call(context.Background(), "prompt"); err != nil || s != "answer 2 to prompt" {
		t.Errorf("Call: %q, %v", s, err)
	}
}

// TestConcurrentAgents records eight agents calling at once, and replays
// them interleaved anew: each gets its own answers.
func TestConcurrentAgents(t *testing.T) {
	const agents, turns = 8, 12
	log := &journal.MemLog{}
	j, _ := journal.New("r", nil, journal.Options{Log: log})
	run := func(j *journal.Journal, m llms.Model) [agents][turns]string {
		var out [agents][turns]string
		var wg sync.WaitGroup
		for a := range agents {
			wg.Go(func() {
				ctx := journal.WithScope(journal.NewContext(context.Background(), j), fmt.Sprintf("researcher/t%d", a+1))
				for i := range turns {
					// Every agent asks the same thing at times: scopes keep
					// their answers apart.
					resp, err := m.GenerateContent(ctx, human(fmt.Sprintf("turn %d", i%3)))
					if err != nil {
						t.Error(err)
						return
					}
					out[a][i] = resp.Choices[0].Content
				}
			})
		}
		wg.Wait()
		return out
	}
	want := run(j, journal.Model{Model: &scripted{}})
	raw, _ := log.Entries(context.Background(), "r")
	j2, err := journal.New("r", raw, journal.Options{Offline: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := run(j2, journal.Model{}); got != want {
		t.Errorf("replayed answers differ:\n got %q\nwant %q", got, want)
	}
}

// BenchmarkRecord is the journal's cost of one model call of an agent's
// late turn (a conversation of 12 tool results of 2 KB each): keying the
// request, encoding the answer and appending it (to memory), on top of
// the call itself (a model that answers at once).
func BenchmarkRecord(b *testing.B) {
	msgs := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeSystem, "You research.")}
	for i := range 12 {
		id := fmt.Sprintf("call_%d", i)
		msgs = append(msgs, llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.ToolCall{ID: id, Type: "function",
			FunctionCall: &llms.FunctionCall{Name: "search", Arguments: `{"query":"q"}`}}}},
			llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: id, Name: "search",
				Content: strings.Repeat("Source text of a page, fenced. ", 64)}}})
	}
	msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeHuman, "Write the report."))
	inner := &scripted{}
	for _, journaled := range []bool{false, true} {
		name := "bare"
		if journaled {
			name = "journaled"
		}
		b.Run(name, func(b *testing.B) {
			ctx := context.Background()
			if journaled {
				j, _ := journal.New("r", nil, journal.Options{Log: &journal.MemLog{}})
				ctx = journal.WithScope(journal.NewContext(ctx, j), "researcher/t1")
			}
			m := journal.Model{Model: inner}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.GenerateContent(ctx, msgs, llms.WithTools([]llms.Tool{searchTool})); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
