package httpapi

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/runstore"
)

func TestChatCompletion(t *testing.T) {
	e := newEnv(t, envOpts{})
	res := e.do("POST", "/v1/chat/completions", `{"model":"deepresearch","temperature":0.2,"messages":[
		{"role":"system","content":"You are helpful."},
		{"role":"user","content":"an earlier question"},
		{"role":"assistant","content":"an earlier answer"},
		{"role":"user","content":[{"type":"text","text":"How are undersea cables repaired?"}]}]}`)
	if res.StatusCode != 200 {
		b, _ := io.ReadAll(res.Body)
		t.Fatalf("%s %s", res.Status, b)
	}
	var c struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Model   string `json:"model"`
		Choices []struct {
			Message struct {
				Role, Content string
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage        map[string]int `json:"usage"`
		DeepResearch chatResult     `json:"deepresearch"`
	}
	readJSON(t, res, &c)
	if c.Object != "chat.completion" || c.Model != ModelID || len(c.Choices) != 1 || c.Choices[0].FinishReason != "stop" ||
		c.Choices[0].Message.Role != "assistant" || c.Usage["total_tokens"] == 0 || c.DeepResearch.Status != "finished" {
		t.Fatalf("completion = %+v", c)
	}
	md := e.do("GET", "/v1/research/"+c.DeepResearch.RunID+"?format=md", "")
	want, _ := io.ReadAll(md.Body)
	md.Body.Close()
	if c.Choices[0].Message.Content != string(want) || len(c.DeepResearch.References) == 0 {
		t.Fatalf("the answer is not the run's report with its sources:\n%s", c.Choices[0].Message.Content)
	}
	run, _ := e.store.Get(t.Context(), c.DeepResearch.RunID)
	if run.Question != "How are undersea cables repaired?" {
		t.Fatalf("the question was %q, want the last user message", run.Question)
	}
}

func TestChatCompletionStream(t *testing.T) {
	e := newEnv(t, envOpts{})
	res := e.do("POST", "/v1/chat/completions", `{"model":"deepresearch","stream":true,"messages":[{"role":"user","content":"How are undersea cables repaired?"}]}`)
	if res.StatusCode != 200 || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("%s %s", res.Status, res.Header.Get("Content-Type"))
	}
	run := res.Header.Get("X-Deepresearch-Run")
	var content strings.Builder
	var datas []string
	readSSE(t, res.Body, func(s sse) bool {
		if !s.comment {
			datas = append(datas, s.data)
		}
		return true
	})
	res.Body.Close()
	if len(datas) < 3 || datas[len(datas)-1] != "[DONE]" {
		t.Fatalf("stream of %d chunks ends %q", len(datas), datas[len(datas)-1])
	}
	progress, finish := 0, ""
	for i, d := range datas[:len(datas)-1] {
		var c chatChunk
		if err := json.Unmarshal([]byte(d), &c); err != nil {
			t.Fatalf("chunk %d: %v", i, err)
		}
		if c.Object != "chat.completion.chunk" || c.ID != "chatcmpl-"+run || len(c.Choices) != 1 {
			t.Fatalf("chunk %d = %s", i, d)
		}
		if i == 0 && c.Choices[0].Delta.Role != "assistant" {
			t.Fatalf("the first chunk has no assistant role: %s", d)
		}
		if c.Choices[0].Delta.Content != nil {
			content.WriteString(*c.Choices[0].Delta.Content)
		}
		if c.DeepResearch != nil {
			progress++
		}
		if c.Choices[0].FinishReason != nil {
			finish = *c.Choices[0].FinishReason
			if c.Usage == nil || c.Usage.TotalTokens == 0 || i != len(datas)-2 {
				t.Fatalf("the finishing chunk is %d of %d: %s", i, len(datas), d)
			}
		}
	}
	md := e.do("GET", "/v1/research/"+run+"?format=md", "")
	want, _ := io.ReadAll(md.Body)
	md.Body.Close()
	if content.String() != string(want) || finish != "stop" || progress == 0 {
		t.Fatalf("streamed content (finish %q, %d progress chunks) differs from the report:\n%s\n---\n%s", finish, progress, content.String(), want)
	}
}

// TestChatClientGone (issue 29): a non-streaming chat client that goes
// away was never told its run's ID, so its run ends with it (canceled)
// and frees its slot, rather than holding it until the run's time limit.
func TestChatClientGone(t *testing.T) {
	model := &holdAfter{Model: deepresearchtest.Model(0), n: 1, held: make(chan struct{})}
	e := newEnv(t, envOpts{model: model, maxRuns: 1})
	ctx, cancel := context.WithCancel(t.Context())
	req, _ := http.NewRequestWithContext(ctx, "POST", e.http.URL+"/v1/chat/completions",
		strings.NewReader(`{"model":"deepresearch","messages":[{"role":"user","content":"How are undersea cables repaired?"}]}`))
	req.Header.Set("Content-Type", "application/json")
	gone := make(chan error, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			res.Body.Close()
		}
		gone <- err
	}()
	<-model.held // the run is researching
	runs, err := e.store.List(t.Context(), 1)
	if err != nil || len(runs) != 1 {
		t.Fatalf("the store lists %d runs (%v)", len(runs), err)
	}
	id := runs[0].ID
	cancel()
	<-gone
	e.ended(id)
	if run, _ := e.store.Get(t.Context(), id); run.Status != runstore.Canceled {
		t.Errorf("the run of a chat client that went away is %s (%s)", run.Status, run.Error)
	}
	res := e.do("POST", "/v1/research", `{"question":"How are undersea cables laid?"}`)
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted {
		t.Errorf("a new run after the chat client went away: %s (its run still holds the slot?)", res.Status)
	}
}
