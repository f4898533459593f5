package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/telemetry"
	"github.com/deepresearch/deepresearch/internal/usage"
)

// Meter adds up one run's usage across every model call, by role, and
// says when a run budget is spent: it is the one count of what a run
// spent (Report.Usage is its total). Its exported fields are set before
// its first use and not changed after. It is safe for concurrent use.
type Meter struct {
	MaxTokens int                                       // a token budget; 0: none
	MaxCost   float64                                   // a cost budget in dollars, by Price; 0: none
	Price     func(role string, u events.Usage) float64 // nil: calls cost nothing
	Names     map[string]string                         // the model of each role, for spans (Config.Telemetry.ModelNames)
	// MaxTime, when set, is a time budget from Start, by Now.
	MaxTime time.Duration
	Start   time.Time
	Now     func() time.Time

	mu      sync.Mutex
	used    events.Usage // every call's, summed
	cost    float64
	spentBy string // the budget that was reached first, "" while none
}

// Add counts a call of role that spent u.
func (m *Meter) Add(role string, u events.Usage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.used = m.used.Add(u)
	if m.Price != nil {
		m.cost += m.Price(role, u)
	}
	switch {
	case m.spentBy != "":
	case m.MaxTokens > 0 && m.used.Total() >= m.MaxTokens:
		m.spentBy = fmt.Sprintf("the run's token budget (%d tokens) was reached", m.MaxTokens)
	case m.MaxCost > 0 && m.cost >= m.MaxCost:
		m.spentBy = fmt.Sprintf("the run's cost budget ($%.2f) was reached", m.MaxCost)
	}
}

// Spent says which budget is spent; "" while none is (or m is nil).
func (m *Meter) Spent() string {
	if m == nil {
		return ""
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.spentBy == "" && m.MaxTime > 0 && m.Now().Sub(m.Start) >= m.MaxTime {
		m.spentBy = fmt.Sprintf("the run's time budget (%v) was reached", m.MaxTime)
	}
	return m.spentBy
}

// Usage is what the run's calls spent so far.
func (m *Meter) Usage() events.Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.used
}

// Cost is the dollars spent so far.
func (m *Meter) Cost() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cost
}

// Model is model with its calls counted by m under role.
func (m *Meter) Model(role string, model llms.Model) llms.Model { return metered{model, role, m} }

// metered is a model whose calls are counted by a run's meter under a role.
type metered struct {
	llms.Model
	role string
	m    *Meter
}

func (m metered) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	ctx, end := m.chatSpan(ctx)
	resp, err := m.Model.GenerateContent(ctx, msgs, opts...)
	end(resp, err)
	if err == nil && resp != nil && len(resp.Choices) > 0 {
		m.m.Add(m.role, usage.Of(resp.Choices[0]))
	}
	return resp, err
}

func (m metered) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

// chatSpan opens the span of one model call of role, named as the GenAI
// semantic conventions name it ("chat gpt-4o"), and returns the function
// that ends it with the call's usage and cost, and records the call's
// metrics (its duration by the run's clock, tokens and cost) with the
// Metrics in ctx.
func (m metered) chatSpan(ctx context.Context) (context.Context, func(*llms.ContentResponse, error)) {
	name := m.m.Names[m.role]
	attrs := append([]attribute.KeyValue{telemetry.GenAIOperation.String(telemetry.OpChat), telemetry.Role.String(m.role)},
		telemetry.Model(name)...)
	spanName := telemetry.OpChat
	if model := name[strings.Index(name, ":")+1:]; model != "" {
		spanName += " " + model
	}
	ctx, span := telemetry.Start(ctx, spanName, trace.SpanKindClient, attrs...)
	metrics, start := telemetry.MetricsFrom(ctx), m.m.Now()
	return ctx, func(resp *llms.ContentResponse, err error) {
		call := telemetry.Call{Model: name, Role: m.role, Seconds: m.m.Now().Sub(start).Seconds(), Err: err}
		if err == nil && resp != nil && len(resp.Choices) > 0 {
			u := usage.Of(resp.Choices[0])
			call.In, call.Out = u.PromptTokens, u.CompletionTokens
			span.SetAttributes(telemetry.GenAIInputTokens.Int(u.PromptTokens), telemetry.GenAIOutputTokens.Int(u.CompletionTokens))
			if m.m.Price != nil {
				call.Cost, call.Priced = m.m.Price(m.role, u), true
				span.SetAttributes(telemetry.CostUSD.Float64(call.Cost))
			}
		} else if err == nil {
			call.Err = errNoChoices
		}
		telemetry.End(span, err)
		metrics.RecordCall(ctx, call)
	}
}

// errNoChoices is the error.type of a model call that returned no choice.
var errNoChoices = errors.New("the model returned no choices")
