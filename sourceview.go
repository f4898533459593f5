package deepresearch

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/internal/finalreport"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/runstore"
	"github.com/deepresearch/deepresearch/source"
)

// SourceView is what a reader opens from a reference of a stored run's
// report: the reference, and the text read of it, part by part (a PDF
// cited at pages 4 and 7 has a part per page), with the passages its
// citations were checked against. The text is the source's, untrusted:
// a renderer escapes it.
type SourceView struct {
	// Reference is the entry of the report's reference list.
	Reference render.Reference `json:"reference"`
	// Link is the source's own URL when a reader may follow it (an http,
	// https or file URL canon.Link accepts); "" otherwise.
	Link string `json:"link,omitempty"`
	// Parts are the texts read of the source, one per location cited (a
	// page, row or slide), or one for the whole document.
	Parts []SourcePart `json:"parts"`
	// Fetched is when the store kept the source's text (zero when it
	// kept none).
	Fetched time.Time `json:"fetched,omitzero"`
}

// SourcePart is the text read of one location of a source.
type SourcePart struct {
	// Location names where in the document the text is ("p. 4", "row
	// 3"); "" for the whole document.
	Location string `json:"location,omitempty"`
	// Text is the text the agents read there, else the text the store
	// kept of the document.
	Text string `json:"text"`
	// Passages are the byte spans of Text the report's citations were
	// checked against, in order and not overlapping (none when the report
	// was not verified or the passages are not found in Text).
	Passages []Span `json:"passages"`
}

// Span is the bytes [Start, End) of a text.
type Span struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// SourceView returns reference n of the report with the text read of it:
// the text the agents read of each location cited (SourceTexts), else
// what kept holds of the document (a Store's Sources of the run), and
// the passages verification checked its citations against; false when
// the report has no reference n.
func (r *Report) SourceView(n int, kept []runstore.Source) (*SourceView, bool) {
	i := slices.IndexFunc(r.References, func(ref render.Reference) bool { return ref.Number == n })
	if i < 0 {
		return nil, false
	}
	ref := r.References[i]
	v := &SourceView{Reference: ref, Link: canon.Link(ref.URL), Parts: []SourcePart{}}
	var keptText string
	for _, k := range kept {
		if k.ID == ref.ID && k.URL == ref.URL && k.Text != "" {
			keptText, v.Fetched = k.Text, k.Fetched
			break
		}
	}
	passages := map[int][]source.Passage{}
	if r.Verification != nil {
		for _, sp := range r.Verification.Passages {
			passages[sp.Source] = sp.Passages
		}
	}
	locs := ref.Locations
	if len(locs) == 0 {
		locs = []source.Location{ref.Location}
	}
	for _, loc := range locs {
		part := SourcePart{Location: loc.String(), Passages: []Span{}}
		var checked []source.Passage
		for _, s := range r.Sources {
			if s.ID == ref.ID && s.URL == ref.URL && s.Location.Key() == loc.Key() {
				part.Text, checked = r.SourceTexts[s.Number], passages[s.Number]
				break
			}
		}
		if part.Text == "" {
			part.Text = keptText
		}
		if part.Text == "" {
			continue
		}
		part.Passages = spansOf(part.Text, checked)
		v.Parts = append(v.Parts, part)
	}
	return v, true
}

// spansOf finds passages in text: at their offsets when the text there is
// theirs, else where their text (less the "..." an excerpt marks a cut
// with) first occurs. Spans are returned in order, overlaps merged.
func spansOf(text string, passages []source.Passage) []Span {
	var spans []Span
	for _, p := range passages {
		if p.Start >= 0 && p.End <= len(text) && p.Start < p.End && text[p.Start:p.End] == p.Text {
			spans = append(spans, Span{p.Start, p.End})
			continue
		}
		t := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(p.Text), "...")), "..."))
		if t == "" {
			continue
		}
		if at := strings.Index(text, t); at >= 0 {
			spans = append(spans, Span{at, at + len(t)})
		}
	}
	slices.SortFunc(spans, func(a, b Span) int { return a.Start - b.Start })
	out := spans[:0]
	for _, s := range spans {
		if len(out) > 0 && s.Start <= out[len(out)-1].End {
			out[len(out)-1].End = max(out[len(out)-1].End, s.End)
			continue
		}
		out = append(out, s)
	}
	if out == nil {
		return []Span{}
	}
	return out
}

// RenderHTMLFragment renders the report as render.HTML does, by the same
// renderer, without the page around it: a <main> with the report (each
// citation, "[1, p. 4]" too, a <sup class="cite" data-sids="1"
// data-loc="p. 4"> linking to #ref-1) and a <section class="references">
// with the reference list (locations, authors, date, source type). All
// text from the model and the sources is escaped. It is what the served
// page shows of a stored run.
func (r *Report) RenderHTMLFragment(opts render.HTMLOptions) ([]byte, error) {
	pub, err := r.published()
	if err != nil {
		return nil, fmt.Errorf("deepresearch: render: %w", err)
	}
	fo := finalreport.HTMLOptions{SourceHref: opts.SourceHref}
	if opts.Verdicts {
		fo.Verified = r.verified()
	}
	frag, err := finalreport.HTMLFragment(pub, fo)
	if err != nil {
		return nil, fmt.Errorf("deepresearch: render: %w", err)
	}
	return []byte(frag), nil
}
