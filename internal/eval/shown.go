package eval

import (
	"context"
	"sync"

	"github.com/tmc/langchaingo/llms"
)

// Shown is a model that records what it was shown of the sources: the
// tool results in the conversations it is given — the search results
// and the opened texts an agent reads, as the agent's tools gave them —
// each once. It answers as its Model does: it is the agents' model,
// watched. Safe for concurrent use (a run's agents share it).
type Shown struct {
	llms.Model
	mu    sync.Mutex
	seen  map[string]bool
	texts []string
}

// NewShown watches m.
func NewShown(m llms.Model) *Shown { return &Shown{Model: m, seen: map[string]bool{}} }

// GenerateContent records the tool results of msgs and asks the model.
func (s *Shown) GenerateContent(ctx context.Context, msgs []llms.MessageContent, options ...llms.CallOption) (*llms.ContentResponse, error) {
	s.mu.Lock()
	for _, m := range msgs {
		for _, p := range m.Parts {
			if r, ok := p.(llms.ToolCallResponse); ok && !s.seen[r.Content] {
				s.seen[r.Content] = true
				s.texts = append(s.texts, r.Content)
			}
		}
	}
	s.mu.Unlock()
	return s.Model.GenerateContent(ctx, msgs, options...)
}

// Take returns what was recorded since the last Take, and forgets it.
func (s *Shown) Take() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	texts := s.texts
	s.texts, s.seen = nil, map[string]bool{}
	return texts
}

// Showing answers with answer and sets each Answer's Shown to what s
// recorded while it answered. The questions must be answered one at a
// time (Evaluate does).
func Showing(s *Shown, answer Answerer) Answerer {
	return func(ctx context.Context, question string) (Answer, error) {
		s.Take()
		a, err := answer(ctx, question)
		a.Shown = s.Take()
		return a, err
	}
}
