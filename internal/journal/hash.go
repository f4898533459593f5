package journal

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/tmc/langchaingo/llms"
)

// The domains of the request hashes, one per kind and format version: a
// change to what a canonical request holds is a new domain, so a key can
// never be mistaken for one computed another way.
const (
	modelDomain    = "deepresearch/journal/model/1\n"
	searchDomain   = "deepresearch/journal/search/1\n"
	documentDomain = "deepresearch/journal/document/1\n"
	pageDomain     = "deepresearch/journal/page/1\n"
)

// canonRequest is the canonical form of a model request: every message
// part and every call option that shapes the answer, with zero values left
// out (so that an option added later, left at zero, changes no key), and
// whether the answer streams. Maps encode with sorted keys; no field
// depends on the process, the time or the order of a map.
type canonRequest struct {
	Messages []canonMessage `json:"messages"`
	Options  canonOptions   `json:"options,omitzero"`
}

type canonMessage struct {
	Role  string      `json:"role"`
	Parts []canonPart `json:"parts"`
}

type canonPart struct {
	Type       string  `json:"type"`
	Text       *String `json:"text,omitempty"`
	URL        string  `json:"url,omitempty"`
	Detail     string  `json:"detail,omitempty"`
	MIMEType   string  `json:"mime_type,omitempty"`
	Data       []byte  `json:"data,omitempty"`
	ID         String  `json:"id,omitempty"`
	CallType   string  `json:"call_type,omitempty"`
	Name       String  `json:"name,omitempty"`
	Arguments  *String `json:"arguments,omitempty"`
	ToolCallID String  `json:"tool_call_id,omitempty"`
	Content    *String `json:"content,omitempty"`
	// Other is a part of a type this package does not know: its Go type
	// and JSON form.
	Other string `json:"other,omitempty"`
}

type canonTool struct {
	Type        string `json:"type"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	Parameters  any    `json:"parameters,omitempty"`
	Strict      bool   `json:"strict,omitempty"`
}

type canonOptions struct {
	Model             string         `json:"model,omitempty"`
	CandidateCount    int            `json:"candidate_count,omitempty"`
	MaxTokens         int            `json:"max_tokens,omitempty"`
	Temperature       Float          `json:"temperature,omitempty"`
	StopWords         []string       `json:"stop_words,omitempty"`
	TopK              int            `json:"top_k,omitempty"`
	TopP              Float          `json:"top_p,omitempty"`
	Seed              int            `json:"seed,omitempty"`
	MinLength         int            `json:"min_length,omitempty"`
	MaxLength         int            `json:"max_length,omitempty"`
	N                 int            `json:"n,omitempty"`
	RepetitionPenalty Float          `json:"repetition_penalty,omitempty"`
	FrequencyPenalty  Float          `json:"frequency_penalty,omitempty"`
	PresencePenalty   Float          `json:"presence_penalty,omitempty"`
	JSONMode          bool           `json:"json_mode,omitempty"`
	Tools             []canonTool    `json:"tools,omitempty"`
	ToolChoice        any            `json:"tool_choice,omitempty"`
	Functions         []canonTool    `json:"functions,omitempty"`
	FunctionCall      string         `json:"function_call,omitempty"`
	Metadata          map[string]any `json:"metadata,omitempty"`
	ResponseMIMEType  string         `json:"response_mime_type,omitempty"`
	// Stream: the caller streams the answer (StreamingFunc);
	// StreamReasoning: with StreamingReasoningFunc.
	Stream          bool `json:"stream,omitempty"`
	StreamReasoning bool `json:"stream_reasoning,omitempty"`
}

// ModelKey returns the key of a model request: the hex SHA-256 of its
// canonical form (see canonRequest). It fails only for an option or part
// JSON cannot encode (a channel in Metadata).
func ModelKey(msgs []llms.MessageContent, o llms.CallOptions) (string, error) {
	req := canonRequest{Messages: make([]canonMessage, len(msgs))}
	for i, m := range msgs {
		cm := canonMessage{Role: string(m.Role), Parts: make([]canonPart, len(m.Parts))}
		for j, p := range m.Parts {
			cp, err := canonPartOf(p)
			if err != nil {
				return "", fmt.Errorf("journal: message %d part %d: %w", i, j, err)
			}
			cm.Parts[j] = cp
		}
		req.Messages[i] = cm
	}
	req.Options = canonOptions{
		Model: o.Model, CandidateCount: o.CandidateCount, MaxTokens: o.MaxTokens, Temperature: Float(o.Temperature),
		StopWords: o.StopWords, TopK: o.TopK, TopP: Float(o.TopP), Seed: o.Seed, MinLength: o.MinLength,
		MaxLength: o.MaxLength, N: o.N, RepetitionPenalty: Float(o.RepetitionPenalty),
		FrequencyPenalty: Float(o.FrequencyPenalty), PresencePenalty: Float(o.PresencePenalty), JSONMode: o.JSONMode,
		ToolChoice: o.ToolChoice, FunctionCall: string(o.FunctionCallBehavior), Metadata: o.Metadata,
		ResponseMIMEType: o.ResponseMIMEType, Stream: o.StreamingFunc != nil, StreamReasoning: o.StreamingReasoningFunc != nil,
	}
	for _, t := range o.Tools {
		ct := canonTool{Type: t.Type}
		if f := t.Function; f != nil {
			ct.Name, ct.Description, ct.Parameters, ct.Strict = f.Name, f.Description, f.Parameters, f.Strict
		}
		req.Options.Tools = append(req.Options.Tools, ct)
	}
	for _, f := range o.Functions {
		req.Options.Functions = append(req.Options.Functions, canonTool{Type: "function", Name: f.Name,
			Description: f.Description, Parameters: f.Parameters, Strict: f.Strict})
	}
	// Encoded straight into the hash: a late turn's conversation is tens
	// of kilobytes.
	h := sha256.New()
	h.Write([]byte(modelDomain))
	enc := json.NewEncoder(h)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(req); err != nil {
		return "", fmt.Errorf("journal: canonical request: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func canonPartOf(p llms.ContentPart) (canonPart, error) {
	str := func(s string) *String { v := String(s); return &v }
	switch p := p.(type) {
	case llms.TextContent:
		return canonPart{Type: "text", Text: str(p.Text)}, nil
	case llms.ImageURLContent:
		return canonPart{Type: "image_url", URL: p.URL, Detail: p.Detail}, nil
	case llms.BinaryContent:
		return canonPart{Type: "binary", MIMEType: p.MIMEType, Data: p.Data}, nil
	case llms.ToolCall:
		cp := canonPart{Type: "tool_call", ID: String(p.ID), CallType: p.Type}
		if f := p.FunctionCall; f != nil {
			cp.Name, cp.Arguments = String(f.Name), str(f.Arguments)
		}
		return cp, nil
	case llms.ToolCallResponse:
		return canonPart{Type: "tool_response", ToolCallID: String(p.ToolCallID), Name: String(p.Name), Content: str(p.Content)}, nil
	}
	b, err := marshal(p)
	if err != nil {
		return canonPart{}, err
	}
	return canonPart{Type: "other", Other: fmt.Sprintf("%T %s", p, b)}, nil
}

// SearchKey returns the key of a search for query with limit results.
func SearchKey(query string, limit int) string {
	b, _ := marshal([]any{String(query), limit}) // cannot fail
	return hashOf(searchDomain, b)
}

// DocumentKey returns the key of a search backend's fetch of docID.
func DocumentKey(docID string) string {
	b, _ := marshal(String(docID))
	return hashOf(documentDomain, b)
}

// PageKey returns the key of a page fetch of rawURL.
func PageKey(rawURL string) string {
	b, _ := marshal(String(rawURL))
	return hashOf(pageDomain, b)
}

func hashOf(domain string, b []byte) string {
	h := sha256.New()
	h.Write([]byte(domain))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}
