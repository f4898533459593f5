package deepresearch

import (
	"github.com/deepresearch/deepresearch/cite"
	"github.com/deepresearch/deepresearch/internal/agent"
	"github.com/deepresearch/deepresearch/internal/usage"
)

// Types callers see, defined in the internal packages.
type (
	// Usage counts model calls and tokens.
	Usage = usage.Usage
	// Budget bounds one research agent: tool calls, tokens and time.
	Budget = agent.Budget
	// MergedSource is a source of the merged numbering of all agents.
	MergedSource = cite.MergedSource
	// Style is how citations are rendered in the report text: Markdown,
	// Plain, Footnote or HTML. Its text form (a Request's JSON, settings)
	// is its name ("markdown", "plain", "footnote", "html"), read by its
	// UnmarshalText, which refuses other names with an error wrapping
	// ErrStyle; the zero Style is the default.
	Style = cite.Style
)
