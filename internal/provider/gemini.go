package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// gemini speaks Gemini's REST API (v1beta generateContent, and
// streamGenerateContent with alt=sse) directly.
//
// langchaingo v0.1.14's googleai goes through generative-ai-go v0.15.1,
// whose client opens a gRPC connection for its cache service that its
// Close never closes (goroutines and a connection to Google kept for the
// life of the process, per client), and whose streaming loop swallows the
// callback's error. This small client implements llms.Model over the same
// wire format instead; it shares the transport (typed errors, key header)
// with the other providers.
type gemini struct {
	hc   *http.Client
	base string // scheme://host, without /v1beta
	name string
}

type gemPart struct {
	Text             string       `json:"text,omitempty"`
	Thought          bool         `json:"thought,omitempty"`
	FunctionCall     *gemCall     `json:"functionCall,omitempty"`
	FunctionResponse *gemResponse `json:"functionResponse,omitempty"`
}

type gemCall struct {
	ID   string         `json:"id,omitempty"`
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

type gemResponse struct {
	ID       string         `json:"id,omitempty"`
	Name     string         `json:"name"`
	Response map[string]any `json:"response"`
}

type gemContent struct {
	Role  string    `json:"role,omitempty"`
	Parts []gemPart `json:"parts"`
}

type gemRequest struct {
	SystemInstruction *gemContent      `json:"systemInstruction,omitempty"`
	Contents          []gemContent     `json:"contents"`
	Tools             []map[string]any `json:"tools,omitempty"`
	GenerationConfig  map[string]any   `json:"generationConfig,omitempty"`
}

type gemReply struct {
	Candidates []struct {
		Content      gemContent `json:"content"`
		FinishReason string     `json:"finishReason"`
	} `json:"candidates"`
	PromptFeedback *struct {
		BlockReason string `json:"blockReason"`
	} `json:"promptFeedback"`
	UsageMetadata *struct {
		PromptTokenCount     int `json:"promptTokenCount"`
		CandidatesTokenCount int `json:"candidatesTokenCount"`
		TotalTokenCount      int `json:"totalTokenCount"`
		ThoughtsTokenCount   int `json:"thoughtsTokenCount"`
	} `json:"usageMetadata"`
}

func (g *gemini) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	o := llms.CallOptions{Model: g.name}
	for _, opt := range opts {
		opt(&o)
	}
	req, err := geminiRequest(msgs, o)
	if err != nil {
		return nil, err
	}
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	method, query := "generateContent", ""
	if o.StreamingFunc != nil {
		method, query = "streamGenerateContent", "?alt=sse"
	}
	name := strings.TrimPrefix(firstNonBlank(o.Model, g.name), "models/")
	u := fmt.Sprintf("%s/v1beta/models/%s:%s%s", g.base, url.PathEscape(name), method, query)
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	resp, err := g.hc.Do(hreq)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	acc := &gemAccumulator{}
	if o.StreamingFunc == nil {
		var r gemReply
		if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
			return nil, &Error{Provider: GoogleAI, Kind: ErrMalformed, Err: err}
		}
		if err := acc.add(ctx, r, nil); err != nil {
			return nil, err
		}
		return acc.response()
	}
	lr := newLineReader(resp.Body)
	for {
		line, rerr := lr.line()
		if data, ok := strings.CutPrefix(strings.TrimSpace(line), "data:"); ok {
			var r gemReply
			if err := json.Unmarshal([]byte(strings.TrimSpace(data)), &r); err != nil {
				return nil, malformed(GoogleAI, []byte(data))
			}
			if err := acc.add(ctx, r, o.StreamingFunc); err != nil {
				return nil, err
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return nil, truncated(GoogleAI, rerr)
		}
	}
	if acc.finish == "" {
		// Gemini's stream has no end marker: the last event carries the
		// finish reason.
		return nil, truncated(GoogleAI, io.ErrUnexpectedEOF)
	}
	return acc.response()
}

func (g *gemini) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, g, prompt, opts...)
}

// gemAccumulator gathers a reply from one response or many stream events.
type gemAccumulator struct {
	text          strings.Builder
	calls         []llms.ToolCall
	finish        string
	prompt, compl int
	blocked       string
}

func (a *gemAccumulator) add(ctx context.Context, r gemReply, stream func(context.Context, []byte) error) error {
	if r.UsageMetadata != nil {
		a.prompt = r.UsageMetadata.PromptTokenCount
		a.compl = r.UsageMetadata.CandidatesTokenCount + r.UsageMetadata.ThoughtsTokenCount
	}
	if r.PromptFeedback != nil && r.PromptFeedback.BlockReason != "" {
		a.blocked = r.PromptFeedback.BlockReason
	}
	if len(r.Candidates) == 0 {
		return nil
	}
	c := r.Candidates[0]
	if c.FinishReason != "" {
		a.finish = c.FinishReason
	}
	for _, p := range c.Content.Parts {
		switch {
		case p.FunctionCall != nil:
			args, _ := json.Marshal(p.FunctionCall.Args)
			if p.FunctionCall.Args == nil {
				args = []byte("{}")
			}
			id := p.FunctionCall.ID
			if id == "" {
				id = fmt.Sprintf("call_gemini_%d", len(a.calls)+1)
			}
			a.calls = append(a.calls, llms.ToolCall{ID: id, Type: "function",
				FunctionCall: &llms.FunctionCall{Name: p.FunctionCall.Name, Arguments: string(args)}})
		case p.Text != "" && !p.Thought:
			a.text.WriteString(p.Text)
			if stream != nil {
				if err := stream(ctx, []byte(p.Text)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (a *gemAccumulator) response() (*llms.ContentResponse, error) {
	if a.blocked != "" && a.text.Len() == 0 && len(a.calls) == 0 {
		return nil, &Error{Provider: GoogleAI, Kind: ErrBadRequest, Message: "prompt blocked: " + a.blocked}
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{
		Content:    a.text.String(),
		StopReason: a.finish,
		ToolCalls:  a.calls,
		GenerationInfo: map[string]any{
			"PromptTokens":     a.prompt,
			"CompletionTokens": a.compl,
			"TotalTokens":      a.prompt + a.compl,
		},
	}}}, nil
}

// geminiRequest turns a langchaingo conversation into Gemini's request:
// system messages into systemInstruction, assistant turns into "model"
// contents, tool results into functionResponse parts of a "user" content,
// consecutive contents of one role merged.
func geminiRequest(msgs []llms.MessageContent, o llms.CallOptions) (*gemRequest, error) {
	req := &gemRequest{}
	names := map[string]string{} // tool call ID → name, for results without one
	var system []gemPart
	add := func(role string, parts []gemPart) {
		if len(parts) == 0 {
			return
		}
		if n := len(req.Contents); n > 0 && req.Contents[n-1].Role == role {
			req.Contents[n-1].Parts = append(req.Contents[n-1].Parts, parts...)
			return
		}
		req.Contents = append(req.Contents, gemContent{Role: role, Parts: parts})
	}
	for _, m := range msgs {
		var parts []gemPart
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llms.TextContent:
				if p.Text != "" {
					parts = append(parts, gemPart{Text: p.Text})
				}
			case llms.ToolCall:
				if p.FunctionCall == nil {
					continue
				}
				var args map[string]any
				if err := json.Unmarshal([]byte(firstNonBlank(p.FunctionCall.Arguments, "{}")), &args); err != nil {
					return nil, fmt.Errorf("%s: tool call %s: arguments are not a JSON object: %w", GoogleAI, p.FunctionCall.Name, err)
				}
				names[p.ID] = p.FunctionCall.Name
				parts = append(parts, gemPart{FunctionCall: &gemCall{Name: p.FunctionCall.Name, Args: args}})
			case llms.ToolCallResponse:
				name := firstNonBlank(p.Name, names[p.ToolCallID])
				parts = append(parts, gemPart{FunctionResponse: &gemResponse{Name: name,
					Response: map[string]any{"content": p.Content}}})
			default:
				return nil, fmt.Errorf("%s: %w: message part %T", GoogleAI, errUnsupportedPart, p)
			}
		}
		switch m.Role {
		case llms.ChatMessageTypeSystem:
			system = append(system, parts...)
		case llms.ChatMessageTypeAI:
			add("model", parts)
		default:
			add("user", parts)
		}
	}
	if len(system) > 0 {
		req.SystemInstruction = &gemContent{Parts: system}
	}
	var decls []map[string]any
	for _, t := range o.Tools {
		if t.Function == nil {
			continue
		}
		d := map[string]any{"name": t.Function.Name, "description": t.Function.Description}
		if t.Function.Parameters != nil {
			d["parameters"] = geminiSchema(t.Function.Parameters)
		}
		decls = append(decls, d)
	}
	if len(decls) > 0 {
		req.Tools = []map[string]any{{"functionDeclarations": decls}}
	}
	gc := map[string]any{}
	if o.Temperature != 0 {
		gc["temperature"] = o.Temperature
	}
	if o.MaxTokens > 0 {
		gc["maxOutputTokens"] = o.MaxTokens
	}
	if o.TopP > 0 {
		gc["topP"] = o.TopP
	}
	if o.TopK > 0 {
		gc["topK"] = o.TopK
	}
	if len(o.StopWords) > 0 {
		gc["stopSequences"] = o.StopWords
	}
	if o.JSONMode {
		gc["responseMimeType"] = "application/json"
	}
	if len(gc) > 0 {
		req.GenerationConfig = gc
	}
	return req, nil
}

var errUnsupportedPart = errors.New("unsupported message part")

// geminiSchema converts a JSON Schema into the OpenAPI subset Gemini's
// function declarations take: the keys it knows, types in upper case.
func geminiSchema(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var m any
	if json.Unmarshal(b, &m) != nil {
		return v
	}
	return schemaKeys(m)
}

func schemaKeys(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	out := map[string]any{}
	for k, val := range m {
		switch k {
		case "type":
			if s, ok := val.(string); ok {
				out[k] = strings.ToUpper(s)
			}
		case "properties":
			if props, ok := val.(map[string]any); ok {
				p := map[string]any{}
				for name, s := range props {
					p[name] = schemaKeys(s)
				}
				out[k] = p
			}
		case "items":
			out[k] = schemaKeys(val)
		case "description", "required", "enum", "format", "nullable", "minItems", "maxItems", "minimum", "maximum":
			out[k] = val
		}
	}
	return out
}
