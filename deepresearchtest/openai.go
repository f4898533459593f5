package deepresearchtest

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/tmc/langchaingo/embeddings"
	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/internal/openaiwire"
	"github.com/deepresearch/deepresearch/internal/usage"
)

// OpenAIServer is a local server that speaks OpenAI's chat-completions
// API — POST /v1/chat/completions, with and without "stream" (server-sent
// events in OpenAI's chunk format, tool calls as indexed deltas, a usage
// chunk, "data: [DONE]") and GET /v1/models — in front of any llms.Model.
// Point an OpenAI-compatible client at URL()+"/v1" (for deepresearch:
// --provider openai --base-url URL/v1) to run the whole pipeline through
// the real provider client and wire format with no network, and with the
// deterministic offline model (Model) answering. A call the model fails
// is answered with OpenAI's error body and status 500, or the status of
// an error with a StatusCode() int method (a 400 is not retried).
type OpenAIServer struct {
	*httptest.Server
	model  llms.Model
	opts   OpenAIOptions
	calls  atomic.Int64
	embeds atomic.Int64
}

// OpenAIOptions shape how an OpenAIServer answers.
type OpenAIOptions struct {
	// Delay is waited before each answer, like a hosted model's latency
	// (the wait ends early when the request is canceled).
	Delay time.Duration
	// ChunkBytes is the most bytes of text or tool-call arguments in one
	// streamed chunk (default 3), so that markers and JSON arrive split.
	ChunkBytes int
	// Rewrite, if set, rewrites the text of every answer that calls no
	// tool before it is sent: a test makes the model write the awkward
	// citations real models write.
	Rewrite func(text string) string
	// Embedder, if set, answers POST /v1/embeddings in OpenAI's format
	// (for example NewConcepts' embedding), so that --embeddings
	// openai:NAME with --base-url URL/v1 embeds through the real client.
	Embedder embeddings.Embedder
}

// NewOpenAIServer starts an OpenAIServer answering with m. Close it when
// done.
func NewOpenAIServer(m llms.Model, opts OpenAIOptions) *OpenAIServer {
	if opts.ChunkBytes <= 0 {
		opts.ChunkBytes = 3
	}
	s := &OpenAIServer{model: m, opts: opts}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.complete)
	mux.HandleFunc("POST /v1/embeddings", s.embed)
	mux.HandleFunc("GET /v1/models", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"object":"list","data":[{"id":"extractive","object":"model","created":1700000000,"owned_by":"deepresearchtest"}]}`)
	})
	s.Server = httptest.NewServer(mux)
	return s
}

// Calls returns the number of chat completions answered.
func (s *OpenAIServer) Calls() int { return int(s.calls.Load()) }

type oaRequest struct {
	Model         string      `json:"model"`
	Messages      []oaMessage `json:"messages"`
	Tools         []oaTool    `json:"tools"`
	Stream        bool        `json:"stream"`
	MaxTokens     int         `json:"max_tokens"`
	MaxCompletion int         `json:"max_completion_tokens"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
}

type oaMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []oaToolCall    `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

type oaToolCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

type oaTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Parameters  any    `json:"parameters"`
	} `json:"function"`
}

func oaError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
}

// text reads a message's content: a string, or an array of text parts.
func (m oaMessage) text() (string, error) { return openaiwire.ContentText(m.Content) }

func (s *OpenAIServer) complete(w http.ResponseWriter, r *http.Request) {
	var req oaRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		oaError(w, http.StatusBadRequest, "malformed JSON: "+err.Error())
		return
	}
	if len(req.Messages) == 0 {
		oaError(w, http.StatusBadRequest, "messages must not be empty")
		return
	}
	msgs, err := toMessages(req.Messages)
	if err != nil {
		oaError(w, http.StatusBadRequest, err.Error())
		return
	}
	var opts []llms.CallOption
	if len(req.Tools) > 0 {
		tools := make([]llms.Tool, len(req.Tools))
		for i, t := range req.Tools {
			tools[i] = llms.Tool{Type: "function", Function: &llms.FunctionDefinition{Name: t.Function.Name, Description: t.Function.Description, Parameters: t.Function.Parameters}}
		}
		opts = append(opts, llms.WithTools(tools))
	}
	if n := max(req.MaxTokens, req.MaxCompletion); n > 0 {
		opts = append(opts, llms.WithMaxTokens(n))
	}
	if err := clock.Sleep(r.Context(), clock.Real(), s.opts.Delay); err != nil {
		return // the client went away
	}
	resp, err := s.model.GenerateContent(r.Context(), msgs, opts...)
	if err != nil {
		status := http.StatusInternalServerError
		var sc interface{ StatusCode() int }
		if errors.As(err, &sc) {
			status = sc.StatusCode()
		}
		oaError(w, status, err.Error())
		return
	}
	if len(resp.Choices) == 0 {
		oaError(w, http.StatusInternalServerError, "the model returned no choice")
		return
	}
	s.calls.Add(1)
	c := resp.Choices[0]
	text := c.Content
	if len(c.ToolCalls) == 0 && s.opts.Rewrite != nil {
		text = s.opts.Rewrite(text)
	}
	u := usage.Of(c)
	finish := "stop"
	if len(c.ToolCalls) > 0 {
		finish = "tool_calls"
	}
	model := cmp.Or(req.Model, "extractive")
	if !req.Stream {
		msg := map[string]any{"role": "assistant", "content": text}
		if len(c.ToolCalls) > 0 {
			msg["content"] = nil
			msg["tool_calls"] = wireCalls(c.ToolCalls)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-test", "object": "chat.completion", "created": 1700000000, "model": model,
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
			"usage":   map[string]int{"prompt_tokens": u.PromptTokens, "completion_tokens": u.CompletionTokens, "total_tokens": u.Total()},
		})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	fl, _ := w.(http.Flusher)
	send := func(delta map[string]any, finish any) {
		b, _ := json.Marshal(map[string]any{
			"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 1700000000, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		})
		fmt.Fprintf(w, "data: %s\n\n", b)
		if fl != nil {
			fl.Flush()
		}
	}
	send(map[string]any{"role": "assistant", "content": ""}, nil)
	// Text chunks are the bulk of a stream: written from a template, so
	// that the server's own cost does not weigh on what is measured.
	head := `data: {"id":"chatcmpl-test","object":"chat.completion.chunk","created":1700000000,"model":` + quote(model) + `,"choices":[{"index":0,"delta":{"content":`
	for _, piece := range pieces(text, s.opts.ChunkBytes) {
		fmt.Fprintf(w, "%s%s},\"finish_reason\":null}]}\n\n", head, quote(piece))
		if fl != nil {
			fl.Flush()
		}
	}
	for i, tc := range c.ToolCalls {
		args := ""
		if tc.FunctionCall != nil {
			args = tc.FunctionCall.Arguments
		}
		name := ""
		if tc.FunctionCall != nil {
			name = tc.FunctionCall.Name
		}
		send(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": tc.ID, "type": "function",
			"function": map[string]any{"name": name, "arguments": ""}}}}, nil)
		for _, piece := range pieces(args, s.opts.ChunkBytes) {
			send(map[string]any{"tool_calls": []any{map[string]any{"index": i, "function": map[string]any{"arguments": piece}}}}, nil)
		}
	}
	send(map[string]any{}, finish)
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		b, _ := json.Marshal(map[string]any{"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 1700000000, "model": model,
			"choices": []any{}, "usage": map[string]int{"prompt_tokens": u.PromptTokens, "completion_tokens": u.CompletionTokens, "total_tokens": u.Total()}})
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func wireCalls(calls []llms.ToolCall) []any {
	out := make([]any, len(calls))
	for i, tc := range calls {
		name, args := "", ""
		if tc.FunctionCall != nil {
			name, args = tc.FunctionCall.Name, tc.FunctionCall.Arguments
		}
		out[i] = map[string]any{"id": tc.ID, "type": "function", "function": map[string]any{"name": name, "arguments": args}}
	}
	return out
}

// toMessages turns wire messages into langchaingo's, naming each tool
// result by the call it answers.
func toMessages(in []oaMessage) ([]llms.MessageContent, error) {
	names := map[string]string{}
	var out []llms.MessageContent
	for i, m := range in {
		text, err := m.text()
		if err != nil {
			return nil, fmt.Errorf("messages[%d]: %v", i, err)
		}
		switch m.Role {
		case "system", "developer":
			out = append(out, llms.TextParts(llms.ChatMessageTypeSystem, text))
		case "user":
			out = append(out, llms.TextParts(llms.ChatMessageTypeHuman, text))
		case "assistant":
			msg := llms.MessageContent{Role: llms.ChatMessageTypeAI}
			if text != "" {
				msg.Parts = append(msg.Parts, llms.TextPart(text))
			}
			for _, tc := range m.ToolCalls {
				names[tc.ID] = tc.Function.Name
				msg.Parts = append(msg.Parts, llms.ToolCall{ID: tc.ID, Type: "function",
					FunctionCall: &llms.FunctionCall{Name: tc.Function.Name, Arguments: tc.Function.Arguments}})
			}
			out = append(out, msg)
		case "tool":
			if m.ToolCallID == "" {
				return nil, fmt.Errorf("messages[%d]: a tool message needs tool_call_id", i)
			}
			out = append(out, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
				llms.ToolCallResponse{ToolCallID: m.ToolCallID, Name: names[m.ToolCallID], Content: text}}})
		default:
			return nil, fmt.Errorf("messages[%d]: unknown role %q", i, m.Role)
		}
	}
	return out, nil
}

// pieces cuts s into pieces of at most n bytes, at rune boundaries.
func pieces(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		k := min(n, len(s))
		for k < len(s) && !utf8.RuneStart(s[k]) {
			k++
		}
		out = append(out, s[:k])
		s = s[k:]
	}
	return out
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
