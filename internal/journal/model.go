package journal

import (
	"context"
	"errors"
	"maps"
	"sync"

	"github.com/tmc/langchaingo/llms"
)

// ErrNoModel reports a call that had to be made live (not journaled, or of
// a live stage) through a Model that wraps none.
var ErrNoModel = errors.New("journal: no model to call")

// Model journals the calls made to the model it wraps: a call made in a
// context that carries a Journal (NewContext) is answered from the journal
// when it holds it, and made and recorded otherwise; a call in any other
// context passes through. Wrap a model once, outside its retries (a call
// is recorded once it has succeeded or finally failed) and inside any
// metering (a replayed call's usage counts like a live one's).
//
// A streamed call is recorded chunk by chunk as the provider delivers it,
// and replayed by handing the caller's streaming funcs the same chunks in
// the same order. Model is safe for concurrent use when the wrapped model
// is.
type Model struct {
	llms.Model
}

// GenerateContent implements llms.Model.
func (m Model) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	j := FromContext(ctx)
	if j == nil {
		return m.live(ctx, msgs, opts)
	}
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	key, err := ModelKey(msgs, o)
	if err != nil {
		// A request this package cannot key cannot be found again: it is
		// made, and not recorded.
		if j.opts.Offline {
			return nil, err
		}
		return m.live(ctx, msgs, opts)
	}
	d := j.decide(ctx, KindModel, key)
	switch {
	case d.entry != nil:
		return replayModel(ctx, d.entry, o)
	case d.miss:
		return nil, d.missed()
	case !d.keep:
		return m.live(ctx, msgs, opts)
	}

	rec := &ModelRecord{}
	var mu sync.Mutex // guards rec.Chunks, should a provider stream from two goroutines
	if f := o.StreamingFunc; f != nil {
		opts = append(opts, llms.WithStreamingFunc(func(ctx context.Context, chunk []byte) error {
			mu.Lock()
			rec.Chunks = append(rec.Chunks, Chunk{Text: String(chunk)})
			mu.Unlock()
			return f(ctx, chunk)
		}))
	}
	if f := o.StreamingReasoningFunc; f != nil {
		opts = append(opts, llms.WithStreamingReasoningFunc(func(ctx context.Context, reasoning, chunk []byte) error {
			mu.Lock()
			rec.Chunks = append(rec.Chunks, Chunk{Text: String(chunk), Reasoning: String(reasoning), ReasoningFunc: true})
			mu.Unlock()
			return f(ctx, reasoning, chunk)
		}))
	}
	resp, err := m.live(ctx, msgs, opts)
	mu.Lock()
	defer mu.Unlock()
	if err != nil {
		erec, ok := errorRecord(ctx, err)
		if !ok {
			return resp, err
		}
		e := Entry{Error: erec}
		if len(rec.Chunks) > 0 {
			e.Model = &ModelRecord{Chunks: rec.Chunks}
		}
		j.record(ctx, d, e)
		return resp, err
	}
	rec.Response = responseRecord(resp)
	j.record(ctx, d, Entry{Model: rec})
	return resp, nil
}

// Call implements llms.Model.
func (m Model) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

func (m Model) live(ctx context.Context, msgs []llms.MessageContent, opts []llms.CallOption) (*llms.ContentResponse, error) {
	if m.Model == nil {
		return nil, ErrNoModel
	}
	return m.Model.GenerateContent(ctx, msgs, opts...)
}

// replayModel answers a call from its entry: the chunks to the caller's
// streaming funcs, then the response or the error.
func replayModel(ctx context.Context, e *Entry, o llms.CallOptions) (*llms.ContentResponse, error) {
	if e.Model != nil {
		for _, c := range e.Model.Chunks {
			var err error
			switch {
			case c.ReasoningFunc && o.StreamingReasoningFunc != nil:
				err = o.StreamingReasoningFunc(ctx, []byte(c.Reasoning), []byte(c.Text))
			case !c.ReasoningFunc && o.StreamingFunc != nil:
				err = o.StreamingFunc(ctx, []byte(c.Text))
			}
			if err != nil {
				return nil, err
			}
		}
	}
	if e.Error != nil {
		return nil, e.Error.err()
	}
	if e.Model == nil || e.Model.Response == nil {
		return nil, nil
	}
	return e.Model.Response.contentResponse(), nil
}

func responseRecord(resp *llms.ContentResponse) *Response {
	if resp == nil {
		return nil
	}
	r := &Response{Choices: make([]*Choice, len(resp.Choices))}
	for i, c := range resp.Choices {
		if c == nil {
			continue
		}
		rc := &Choice{Content: String(c.Content), StopReason: String(c.StopReason),
			Reasoning: String(c.ReasoningContent), Info: c.GenerationInfo}
		if c.FuncCall != nil {
			rc.FuncCall = &FunctionCall{Name: String(c.FuncCall.Name), Arguments: String(c.FuncCall.Arguments)}
		}
		for _, tc := range c.ToolCalls {
			t := ToolCall{ID: String(tc.ID), Type: String(tc.Type)}
			if tc.FunctionCall != nil {
				t.Function = &FunctionCall{Name: String(tc.FunctionCall.Name), Arguments: String(tc.FunctionCall.Arguments)}
			}
			rc.ToolCalls = append(rc.ToolCalls, t)
		}
		r.Choices[i] = rc
	}
	return r
}

func (r *Response) contentResponse() *llms.ContentResponse {
	resp := &llms.ContentResponse{Choices: make([]*llms.ContentChoice, len(r.Choices))}
	for i, c := range r.Choices {
		if c == nil {
			continue
		}
		cc := &llms.ContentChoice{Content: string(c.Content), StopReason: string(c.StopReason),
			ReasoningContent: string(c.Reasoning), GenerationInfo: maps.Clone(c.Info)}
		if c.FuncCall != nil {
			cc.FuncCall = &llms.FunctionCall{Name: string(c.FuncCall.Name), Arguments: string(c.FuncCall.Arguments)}
		}
		for _, tc := range c.ToolCalls {
			t := llms.ToolCall{ID: string(tc.ID), Type: string(tc.Type)}
			if tc.Function != nil {
				t.FunctionCall = &llms.FunctionCall{Name: string(tc.Function.Name), Arguments: string(tc.Function.Arguments)}
			}
			cc.ToolCalls = append(cc.ToolCalls, t)
		}
		resp.Choices[i] = cc
	}
	return resp
}
