package engine

import (
	"maps"
	"slices"
	"strings"

	"github.com/deepresearch/deepresearch/cite"
	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/source"
)

// sourceTexts gathers, by merged number, the text the agents were shown
// of each merged source: every text an agent was shown of it, each once,
// in the order the agents ran. Two agents may have been shown different
// parts of one document (a search's snippets, an opened page, a
// follow-up's stored text and a later search of the same page): a
// sentence quoted from any of them is supported.
func sourceTexts(outcomes []agentOutcome, sources []cite.MergedSource) map[int]string {
	byKey := map[string]string{}
	for _, o := range outcomes {
		if o.res == nil {
			continue
		}
		for _, n := range slices.Sorted(maps.Keys(o.res.Sources)) {
			if t := o.res.Texts[n]; t != "" {
				k := SourceKey(o.res.Sources[n])
				switch have := byKey[k]; {
				case have == "" || strings.Contains(t, have):
					byKey[k] = t
				case !strings.Contains(have, t):
					byKey[k] = have + "\n\n" + t
				}
			}
		}
	}
	out := make(map[int]string, len(sources))
	for _, s := range sources {
		if t := byKey[SourceKey(s.Source)]; t != "" {
			out[s.Number] = t
		}
	}
	return out
}

// SourceKey is what makes two sources one document: the canonical URL
// (or the ID, for a source without one) and the location within it.
func SourceKey(s source.Source) string {
	if k := canon.Key(s.URL); s.URL != "" && k != "" {
		return k + s.Location.Key()
	}
	return "id:" + s.ID + s.Location.Key()
}

// sourceRelevance gathers, by merged number, the relevance judgement of
// each merged source: the best-scored of the agents that kept it.
func sourceRelevance(outcomes []agentOutcome, sources []cite.MergedSource) map[int]source.Relevance {
	byKey := map[string]source.Relevance{}
	for _, o := range outcomes {
		if o.res == nil {
			continue
		}
		for n, src := range o.res.Sources {
			if rel, ok := o.res.Relevance[n]; ok {
				if k := SourceKey(src); rel.Objective >= byKey[k].Objective {
					byKey[k] = rel
				}
			}
		}
	}
	out := map[int]source.Relevance{}
	for _, s := range sources {
		if rel, ok := byKey[SourceKey(s.Source)]; ok {
			out[s.Number] = rel
		}
	}
	return out
}
