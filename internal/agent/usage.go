package agent

import (
	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/usage"
)

// Usage counts the model calls of a Run or Plan and the tokens the model
// reported for them.
type Usage = usage.Usage

func usageOf(c *llms.ContentChoice) Usage { return usage.Of(c) }
