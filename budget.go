package deepresearch

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/usage"
)

// meter adds up one run's usage across every model call, by role, and
// says when a run budget is spent: it is the one count of what a run
// spent (Report.Usage is its total). It is safe for concurrent use.
type meter struct {
	maxTokens int
	maxCost   float64
	price     func(role string, u events.Usage) float64
	names     map[string]string // the model of each role, for spans (Config.Telemetry.ModelNames)
	// maxTime, when set, is a time budget from start, by now.
	maxTime time.Duration
	start   time.Time
	now     func() time.Time

	mu      sync.Mutex
	used    events.Usage // every call's, summed
	cost    float64
	spentBy string // the budget that was reached first, "" while none
}

func (m *meter) add(role string, u events.Usage) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.used = m.used.Add(u)
	if m.price != nil {
		m.cost += m.price(role, u)
	}
	switch {
	case m.spentBy != "":
	case m.maxTokens > 0 && m.used.Total() >= m.maxTokens:
		m.spentBy = fmt.Sprintf("the run's token budget (%d tokens) was reached", m.maxTokens)
	case m.maxCost > 0 && m.cost >= m.maxCost:
		m.spentBy = fmt.Sprintf("the run's cost budget ($%.2f) was reached", m.maxCost)
	}
}

// spent says which budget is spent; "" while none is.
func (m *meter) spent() string {
	if m == nil {
		return ""
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.spentBy == "" && m.maxTime > 0 && m.now().Sub(m.start) >= m.maxTime {
		m.spentBy = fmt.Sprintf("the run's time budget (%v) was reached", m.maxTime)
	}
	return m.spentBy
}

// usage is what the run's calls spent so far.
func (m *meter) usage() events.Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.used
}

// costOf is the dollars spent so far.
func (m *meter) costOf() float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.cost
}

// metered is a model whose calls are counted by a run's meter under a role.
type metered struct {
	llms.Model
	role string
	m    *meter
}

func (m metered) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	ctx, end := m.chatSpan(ctx)
	resp, err := m.Model.GenerateContent(ctx, msgs, opts...)
	end(resp, err)
	if err == nil && resp != nil && len(resp.Choices) > 0 {
		m.m.add(m.role, usage.Of(resp.Choices[0]))
	}
	return resp, err
}

func (m metered) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}
