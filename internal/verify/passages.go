package verify

import (
	"github.com/deepresearch/deepresearch/internal/source"
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
	texts := map[int]string{}
	for _, s := range sources {
		texts[s.Number] = s.Text
	}
	spans := map[int][]span{}
	for _, c := range r.Citations {
		text := texts[c.Number]
		if c.Kind != KindNumber && c.Kind != KindRef || text == "" || c.Status != Supported && c.Status != Unsupported {
			continue
		}
		ev := c.Evidence
		if ev == nil || ev.Start < 0 || ev.Start > ev.End || ev.End > len(text) || text[ev.Start:ev.End] != ev.Quote {
			if c.Sentence == "" {
				continue
			}
			if _, ev = Score(c.Sentence, text); ev == nil {
				continue
			}
		}
		spans[c.Number] = append(spans[c.Number], span{ev.Start, ev.End})
	}
	out := map[int][]source.Passage{}
	for n, ss := range spans {
		for _, s := range mergeSpans(ss) {
			out[n] = append(out[n], source.NewPassage(texts[n], s.start, s.end))
		}
	}
	return out
}
