// Package provider builds the models deepresearch talks to: OpenAI and
// every OpenAI-compatible server (vLLM, llama.cpp, LM Studio, OpenRouter),
// Anthropic, Google's Gemini, Ollama through its OpenAI-compatible /v1, and
// the built-in offline extractive model.
//
// OpenAI, Ollama and Anthropic go through langchaingo v0.1.14's clients,
// with their known faults designed around: an HTTP transport under each
// client types its errors (status, Retry-After, what the provider said),
// checks that streams end properly and are JSON, and assembles OpenAI tool
// calls by index; a wrapper over each model keeps tool-calling turns'
// streams from callers, splits multi-part messages for the anthropic
// adapter and merges its one-choice-per-block replies, and counts tokens
// offline when a provider reports none. Gemini is a small client of its
// REST API (see gemini), because langchaingo's googleai leaks a gRPC
// connection per client and swallows streaming-callback errors.
//
// Retrying is internal/retry's: wrap the model in a retry.Model, whose
// classifier understands this package's *Error.
package provider

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/internal/retry"
	"github.com/deepresearch/deepresearch/internal/usage"
)

// New builds the model cfg describes, reading keys and addresses through
// getenv (os.Getenv in production; nil reads nothing). It does no I/O: a
// wrong key or address shows on the first call, or on Check.
//
// The model returned is safe for concurrent use, caps its concurrent calls
// at cfg.MaxConcurrent (or through cfg.Limiter), does not retry, and, unless
// cfg.Tools is ToolsNative, falls back to the text tool protocol of
// ToolFallback when the provider rejects tools. Its errors wrap *Error or
// *KeyError.
func New(ctx context.Context, cfg Config, getenv func(string) string) (llms.Model, error) {
	ep, err := resolve(cfg, getenv)
	if err != nil {
		return nil, err
	}
	if ep.provider == Extractive {
		return extractive.New(extractive.Options{}), nil
	}
	base := http.DefaultTransport
	if cfg.HTTPClient != nil && cfg.HTTPClient.Transport != nil {
		base = cfg.HTTPClient.Transport
	}
	hc := &http.Client{Transport: &transport{base: base, ep: ep, keepZeroTemp: cfg.Temperature != nil, clock: clock.Real()}}
	if cfg.HTTPClient != nil {
		hc.Timeout = cfg.HTTPClient.Timeout
		hc.CheckRedirect = cfg.HTTPClient.CheckRedirect
	}
	var inner llms.Model
	switch ep.provider {
	case OpenAI, Ollama:
		token := ep.apiKey
		if token == "" {
			token = "none" // langchaingo insists on one; the transport drops it
		}
		inner, err = openai.New(openai.WithToken(token), openai.WithBaseURL(ep.baseURL),
			openai.WithModel(ep.name), openai.WithHTTPClient(hc))
	case Anthropic:
		inner, err = anthropic.New(anthropic.WithToken(ep.apiKey), anthropic.WithBaseURL(ep.baseURL),
			anthropic.WithModel(ep.name), anthropic.WithHTTPClient(hc))
	case GoogleAI:
		inner = &gemini{hc: hc, base: ep.baseURL, name: ep.name}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ep.provider, err)
	}
	var m llms.Model = &Model{inner: inner, ep: ep, cfg: cfg}
	lim := cfg.Limiter
	if lim == nil {
		lim = retry.NewLimiter(cfg.MaxConcurrent)
	}
	if lim != nil {
		m = &retry.Limited{Model: m, Limiter: lim}
	}
	switch cfg.Tools {
	case ToolsNative:
	case ToolsText:
		m = &ToolFallback{Model: m, Always: true}
	default:
		m = &ToolFallback{Model: m}
	}
	return m, nil
}

// Model is one provider's langchaingo model with this package's fixes
// around it; New returns it wrapped in a concurrency cap and ToolFallback.
type Model struct {
	inner llms.Model
	ep    endpoint
	cfg   Config
}

// Provider returns the provider's name ("openai", "anthropic", ...).
func (m *Model) Provider() string { return m.ep.provider }

// Name returns the model's name.
func (m *Model) Name() string { return m.ep.name }

// GenerateContent calls the provider.
//
// A call that offers tools never streams: langchaingo v0.1.14 pushes
// tool-call JSON into the streaming callback, so such a turn's callback
// gets the reply's text once, at the end, and only if the model called no
// tool. An error the streaming callback returns ends the call and is
// returned, wrapped. Usage a provider did not report is counted offline
// and marked "UsageEstimated" in GenerationInfo.
func (m *Model) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	toolTurn := len(o.Tools) > 0 || len(o.Functions) > 0
	if m.ep.provider == Anthropic {
		msgs = onePartEach(msgs)
	}
	if m.cfg.LegacyMaxTokens && (m.ep.provider == OpenAI || m.ep.provider == Ollama) {
		opts = append(opts, openai.WithLegacyMaxTokensField())
	}
	if m.cfg.Temperature != nil && o.Temperature == 0 {
		opts = append(opts, llms.WithTemperature(*m.cfg.Temperature))
	}
	user := o.StreamingFunc
	var cbErr error
	if user != nil {
		opts = append(opts, llms.WithStreamingFunc(func(ctx context.Context, chunk []byte) error {
			switch {
			case cbErr != nil:
				return cbErr
			case toolTurn || len(chunk) == 0:
				return nil
			}
			if err := user(ctx, chunk); err != nil {
				cbErr = err
				return err
			}
			return nil
		}))
	}
	st := &callState{}
	resp, err := m.inner.GenerateContent(withState(ctx, st), msgs, opts...)
	switch {
	case cbErr != nil:
		return nil, fmt.Errorf("%s: streaming callback: %w", m.ep.provider, cbErr)
	case ctx.Err() != nil && err != nil:
		return nil, fmt.Errorf("%s: %w", m.ep.provider, context.Cause(ctx))
	case st.get() != nil:
		return nil, st.get()
	case err != nil:
		return nil, &Error{Provider: m.ep.provider, Err: err}
	case resp == nil || len(resp.Choices) == 0:
		return nil, &Error{Provider: m.ep.provider, Kind: ErrMalformed, Message: "reply has no choices"}
	}
	if m.ep.provider == Anthropic {
		mergeChoices(resp)
	}
	c := resp.Choices[0]
	if toolTurn && user != nil && len(c.ToolCalls) == 0 && c.FuncCall == nil && c.Content != "" {
		if err := user(ctx, []byte(c.Content)); err != nil {
			return nil, fmt.Errorf("%s: streaming callback: %w", m.ep.provider, err)
		}
	}
	estimateUsage(msgs, c)
	return resp, nil
}

// Call implements llms.Model through GenerateContent.
func (m *Model) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// estimateUsage counts tokens offline into c.GenerationInfo when the
// provider reported none.
func estimateUsage(msgs []llms.MessageContent, c *llms.ContentChoice) {
	if u := usage.Of(c); u.PromptTokens > 0 || u.CompletionTokens > 0 {
		return
	}
	u := usage.Estimate(msgs, c)
	if c.GenerationInfo == nil {
		c.GenerationInfo = map[string]any{}
	}
	c.GenerationInfo["PromptTokens"] = u.PromptTokens
	c.GenerationInfo["CompletionTokens"] = u.CompletionTokens
	c.GenerationInfo["UsageEstimated"] = true
}

// mergeChoices makes one choice of the one-per-content-block choices
// langchaingo's anthropic adapter returns (text, tool_use, thinking): the
// text joined, every tool call (typed "function"), the first block's
// GenerationInfo, which carries the message's usage once.
func mergeChoices(resp *llms.ContentResponse) {
	if len(resp.Choices) < 2 {
		for _, c := range resp.Choices {
			setToolType(c.ToolCalls)
		}
		return
	}
	merged := &llms.ContentChoice{StopReason: resp.Choices[0].StopReason, GenerationInfo: map[string]any{}}
	var text strings.Builder
	for _, c := range resp.Choices {
		text.WriteString(c.Content)
		merged.ToolCalls = append(merged.ToolCalls, c.ToolCalls...)
		for k, v := range c.GenerationInfo {
			if _, ok := merged.GenerationInfo[k]; !ok || k == "ThinkingContent" && v != "" {
				merged.GenerationInfo[k] = v
			}
		}
	}
	merged.Content = text.String()
	setToolType(merged.ToolCalls)
	resp.Choices = []*llms.ContentChoice{merged}
}

func setToolType(calls []llms.ToolCall) {
	for i := range calls {
		if calls[i].Type == "" {
			calls[i].Type = "function"
		}
	}
}

// onePartEach splits assistant and tool messages into one message per
// part, and joins a system message's text parts: langchaingo's anthropic
// adapter reads only the first part of these. The transport merges the
// turns back into one message per role.
func onePartEach(msgs []llms.MessageContent) []llms.MessageContent {
	out := make([]llms.MessageContent, 0, len(msgs))
	for _, msg := range msgs {
		switch {
		case msg.Role == llms.ChatMessageTypeSystem && len(msg.Parts) > 1:
			var texts []string
			for _, p := range msg.Parts {
				if t, ok := p.(llms.TextContent); ok {
					texts = append(texts, t.Text)
				}
			}
			out = append(out, llms.TextParts(msg.Role, strings.Join(texts, "\n\n")))
		case (msg.Role == llms.ChatMessageTypeAI || msg.Role == llms.ChatMessageTypeTool) && len(msg.Parts) > 1:
			for _, p := range msg.Parts {
				if t, ok := p.(llms.TextContent); ok && strings.TrimSpace(t.Text) == "" {
					continue // Anthropic rejects empty text blocks
				}
				out = append(out, llms.MessageContent{Role: msg.Role, Parts: []llms.ContentPart{p}})
			}
		default:
			out = append(out, msg)
		}
	}
	return out
}

// Check makes one cheap call (a one-word answer, at most 16 tokens) to see
// that model answers: the key is good, the address reachable, the model
// known. For `deepresearch doctor`.
func Check(ctx context.Context, model llms.Model) error {
	resp, err := model.GenerateContent(ctx, []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Reply with the single word: ok"),
	}, llms.WithMaxTokens(16))
	if err != nil {
		return err
	}
	if resp == nil || len(resp.Choices) == 0 {
		return ErrNoAnswer
	}
	return nil
}
