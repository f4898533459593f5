package deepresearch

import "github.com/deepresearch/deepresearch/internal/agent"

// Budget bounds one research agent: tool calls, tokens and time
// (Config.Budget, Request.Budget; zero fields take the defaults).
type Budget = agent.Budget
