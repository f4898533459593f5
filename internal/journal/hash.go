package journal

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"strconv"

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

// A model request's canonical form, hashed for its key, is a sequence of
// length-prefixed fields (a uvarint length, then the bytes), so that no
// two requests share one: the message count, then each message's role,
// part count and parts (each a type tag and its fields), then the call
// options as JSON (canonOptions). The text is hashed as it is, byte for
// byte, without escaping: a late turn's conversation is tens of kilobytes.

// canonOptions are the call options that shape an answer, zero values
// left out (so that an option added later, left at zero, changes no key),
// and whether the answer streams. Maps encode with sorted keys; nothing
// depends on the process, the time or the order of a map.
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

type canonTool struct {
	Type        string `json:"type"`
	Name        string `json:"name,omitempty"`
	Description string `json:"description,omitempty"`
	Parameters  any    `json:"parameters,omitempty"`
	Strict      bool   `json:"strict,omitempty"`
}

// keyWriter writes length-prefixed fields into a hash.
type keyWriter struct {
	h   hash.Hash
	buf [binary.MaxVarintLen64]byte
}

func (w *keyWriter) field(s string) {
	w.h.Write(w.buf[:binary.PutUvarint(w.buf[:], uint64(len(s)))])
	io.WriteString(w.h, s)
}

func (w *keyWriter) count(n int) { w.field(strconv.Itoa(n)) }

// ModelKey returns the key of a model request: the hex SHA-256 of its
// canonical form (see above). It fails only for an option or part JSON
// cannot encode (a channel in Metadata).
func ModelKey(msgs []llms.MessageContent, o llms.CallOptions) (string, error) {
	w := &keyWriter{h: sha256.New()}
	w.h.Write([]byte(modelDomain))
	w.count(len(msgs))
	for i, m := range msgs {
		w.field(string(m.Role))
		w.count(len(m.Parts))
		for j, p := range m.Parts {
			if err := w.part(p); err != nil {
				return "", fmt.Errorf("journal: message %d part %d: %w", i, j, err)
			}
		}
	}
	opts := canonOptions{
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
		opts.Tools = append(opts.Tools, ct)
	}
	for _, f := range o.Functions {
		opts.Functions = append(opts.Functions, canonTool{Type: "function", Name: f.Name,
			Description: f.Description, Parameters: f.Parameters, Strict: f.Strict})
	}
	b, err := marshal(opts)
	if err != nil {
		return "", fmt.Errorf("journal: call options: %w", err)
	}
	w.field(string(b))
	return hex.EncodeToString(w.h.Sum(nil)), nil
}

// part writes one message part: its type, then its fields.
func (w *keyWriter) part(p llms.ContentPart) error {
	switch p := p.(type) {
	case llms.TextContent:
		w.field("text")
		w.field(p.Text)
	case llms.ImageURLContent:
		w.field("image_url")
		w.field(p.URL)
		w.field(p.Detail)
	case llms.BinaryContent:
		w.field("binary")
		w.field(p.MIMEType)
		w.field(string(p.Data))
	case llms.ToolCall:
		w.field("tool_call")
		w.field(p.ID)
		w.field(p.Type)
		if f := p.FunctionCall; f != nil {
			w.field("function")
			w.field(f.Name)
			w.field(f.Arguments)
		} else {
			w.field("")
		}
	case llms.ToolCallResponse:
		w.field("tool_response")
		w.field(p.ToolCallID)
		w.field(p.Name)
		w.field(p.Content)
	default:
		b, err := marshal(p)
		if err != nil {
			return err
		}
		w.field("other")
		w.field(fmt.Sprintf("%T", p))
		w.field(string(b))
	}
	return nil
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
