package deepresearch

import (
	"github.com/deepresearch/deepresearch/cite"
	"github.com/deepresearch/deepresearch/internal/agent"
	"github.com/deepresearch/deepresearch/internal/usage"
	"github.com/deepresearch/deepresearch/source"
)

// Types callers see, defined in the internal packages.
type (
	// Source is a retrieved document a report can cite.
	Source = source.Source
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
	// SourceRelevance is what the sources reconciler said of a source it
	// kept: o_relevance, q_relevance (QueryScore) and reasoning.
	SourceRelevance = source.Relevance
	// QueryScore is a source's relevance to one search of its task.
	QueryScore = source.QueryScore
)
