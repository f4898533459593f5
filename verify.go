package deepresearch

import (
	"github.com/deepresearch/deepresearch/runstore"
	"github.com/deepresearch/deepresearch/source"
	"github.com/deepresearch/deepresearch/verify"
)

// CitedSources returns the sources the report cites, numbered as its
// References, each with the text its agents read (SourceTexts), else the
// text kept in kept (a Store's Sources of the run; nil for none): what a
// run's Body is verified against, then and later.
func (r *Report) CitedSources(kept []runstore.Source) []verify.Source {
	// A page, row or slide of a document is a source of its own: its
	// location is part of the key. What a store kept is keyed by document,
	// so it fills in only what the report's own texts lack.
	read, keptText := map[string]string{}, map[string]string{}
	for _, s := range r.Sources {
		read[s.ID+"\x00"+s.URL+"\x00"+s.Location.Key()] = r.SourceTexts[s.Number]
	}
	for _, k := range kept {
		if key := k.ID + "\x00" + k.URL; keptText[key] == "" {
			keptText[key] = k.Text
		}
	}
	out := make([]verify.Source, 0, len(r.References))
	for _, ref := range r.References {
		doc := ref.ID + "\x00" + ref.URL
		// A reference cited at several pages is checked page by page:
		// one verify.Source per page, under its number.
		locs := ref.Locations
		if len(locs) == 0 {
			locs = []source.Location{ref.Location}
		}
		for _, loc := range locs {
			text := read[doc+"\x00"+loc.Key()]
			if text == "" {
				text = keptText[doc]
			}
			out = append(out, verify.Source{Number: ref.Number, ID: ref.ID, Title: ref.Title, URL: ref.URL, Location: loc, Text: text})
		}
	}
	return out
}
