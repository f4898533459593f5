package deepresearch

import (
	"time"

	"github.com/deepresearch/deepresearch/internal/agent"
)

// Budget bounds one research agent: tool calls, tokens and time
// (Config.Budget, Request.Budget; zero fields take the defaults). Its
// JSON form (a journal's manifest) names the fields as Go does, the
// Timeout in nanoseconds.
type Budget struct {
	// MaxToolCalls caps the tool calls executed (default 8). Calls past
	// the cap are answered with a budget message instead of run, and the
	// agent goes on to write its report.
	MaxToolCalls int
	// MaxTokens caps the tokens (prompt + completion, as the model reports
	// them) of the agent (default 16000): it stops calling tools when the
	// next turn would leave less than a quarter of the budget for its
	// report, and the report turn's completion is capped at what remains.
	// It caps each completion of the final report's writer too.
	MaxTokens int
	// Timeout bounds the agent (default 2 minutes). Past it, the agent
	// fails with ErrTimeout (events.FailTimeout).
	Timeout time.Duration
}

// withDefaults returns b with its zero (or negative) fields set to the
// defaults (research.max_tool_calls, .max_tokens, .agent_timeout).
func (b Budget) withDefaults() Budget { return Budget(agent.Budget(b).WithDefaults()) }
