package engine

import (
	"maps"
	"slices"

	"github.com/deepresearch/deepresearch/internal/relevance"
	"github.com/deepresearch/deepresearch/source"
)

// citeCopiesOnce makes every source that repeats a source another agent
// read before it (the same text under another name or on another site:
// relevance.CopiesAcross) stand for that source, so that merging gives
// both one number and the report cites the text once. Each agent's
// filter drops copies of what that agent kept; this is the same check
// across agents. Verification then reads the longer of the two texts.
// It changes the outcomes' Sources in place, before the merge.
func citeCopiesOnce(outcomes []agentOutcome) {
	type at struct {
		sources map[int]source.Source
		n       int
	}
	var reads []relevance.Read
	var where []at
	for _, o := range outcomes {
		if o.res == nil {
			continue
		}
		for _, n := range slices.Sorted(maps.Keys(o.res.Sources)) {
			reads = append(reads, relevance.Read{Key: SourceKey(o.res.Sources[n]), Text: o.res.Texts[n]})
			where = append(where, at{o.res.Sources, n})
		}
	}
	for i, j := range relevance.CopiesAcross(reads) {
		where[i].sources[where[i].n] = where[j].sources[where[j].n]
	}
}
