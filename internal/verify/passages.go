package verify

import (
	"github.com/deepresearch/deepresearch/source"
)

// Passages returns, by source number, the passages of the sources' texts
// that the result's numbered citations were checked against: each
// citation's evidence, or for a citation whose judge named none, the
// passage the lexical check finds best. Overlapping passages are merged;
// each source's come in text order. sources are those the result was
// checked against; a source checked against passages rather than a Text
// gives none (its offsets are not the text read). Kept with a report
// (with the text's hash), they let the report be checked again without
// its sources: Check judges a Source with Passages and no Text against
// them.
func (r *Result) Passages(sources []Source) map[int][]source.Passage {
	out := map[int][]source.Passage{}
	for i, ps := range r.PassagesBySource(sources) {
		if len(ps) > 0 {
			out[sources[i].Number] = append(out[sources[i].Number], ps...)
		}
	}
	return out
}

// PassagesBySource is Passages by source rather than by number: element
// i holds the passages of sources[i].Text. Of a reference cited at
// several pages (several sources under one number), a pinpoint
// citation's passage is in its page's source, and a plain citation's in
// the source whose text holds its evidence, else the one the lexical
// check scores best.
func (r *Result) PassagesBySource(sources []Source) [][]source.Passage {
	spans := make([][]span, len(sources))
	for _, c := range r.Citations {
		if c.Kind != KindNumber && c.Kind != KindRef || c.Status != Supported && c.Status != Unsupported {
			continue
		}
		var of []int // the sources of c's number, those at its location if any
		at := -1
		for i, s := range sources {
			if s.Number == c.Number && s.Text != "" {
				of = append(of, i)
				if s.Location.Key() == c.Location.Key() && at < 0 {
					at = i
				}
			}
		}
		if at >= 0 {
			of = []int{at}
		}
		best, bestScore := -1, -1.0
		var bestSpan span
		for _, i := range of {
			text := sources[i].Text
			if ev := c.Evidence; ev != nil && ev.Start >= 0 && ev.Start <= ev.End && ev.End <= len(text) && text[ev.Start:ev.End] == ev.Quote {
				best, bestSpan = i, span{ev.Start, ev.End}
				break
			}
			if c.Sentence == "" {
				continue
			}
			if score, ev := Score(c.Sentence, text); ev != nil && score > bestScore {
				best, bestScore, bestSpan = i, score, span{ev.Start, ev.End}
			}
		}
		if best >= 0 {
			spans[best] = append(spans[best], bestSpan)
		}
	}
	out := make([][]source.Passage, len(sources))
	for i, ss := range spans {
		for _, s := range mergeSpans(ss) {
			out[i] = append(out[i], source.NewPassage(sources[i].Text, s.start, s.end))
		}
	}
	return out
}
