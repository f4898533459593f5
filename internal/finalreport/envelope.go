package finalreport

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/internal/sourcetext"
	"github.com/deepresearch/deepresearch/source"
)

// Extra is what the structured documents (JSON, YAML) tell of a run
// beyond its report; the zero value tells nothing more.
type Extra struct {
	// Texts are the sources' texts as the agents read them, by merged
	// number (Report.Sources' numbers): sources_used's excerpts.
	Texts map[int]string
	// Relevance is, by merged number, what the sources reconciler said of
	// each source it kept.
	Relevance map[int]source.Relevance
	// Rounds is how many research cycles ran.
	Rounds int
	// Validated is what checking the report's citations against their
	// sources found: ValidatedPassed, ValidatedFailed, or "" when they
	// were not checked (ValidatedNone).
	Validated string
	// Unfinished says the writer did not finish the report: the document
	// holds the agents' merged findings (Document.Finished is false).
	Unfinished bool
	// Reason is why the run failed ("" when it did not): Document.Reason,
	// and Document.OK is false when it is set.
	Reason string
	// Retries is how many model calls of the run were tried again.
	Retries int
}

// FormatMarkdown is Document.Format: the form of its text (content).
const FormatMarkdown = "markdown"

// excerptMax bounds a sources_used excerpt, in bytes.
const excerptMax = 320

// envelope fills what doc tells beyond the report's blocks: sources_used
// and usage_sids (from the references, then the sources only usage tags
// named), seed 003's Provenance, and stats.
func envelope(doc *Document, r *Report, v *view, x Extra) {
	texts := map[string]string{} // by sourceKey
	rels := map[string]*source.Relevance{}
	for _, s := range r.Sources {
		if t := x.Texts[s.Number]; t != "" {
			texts[sourceKey(s.Source)] = t
		}
		if rel, ok := x.Relevance[s.Number]; ok {
			rels[sourceKey(s.Source)] = &rel
		}
	}
	used := func(sid int, s source.Source, cited bool) UsedSource {
		return UsedSource{SID: sid, URL: s.URL, Title: cmp.Or(sourcetext.Clean(s.Title), s.Label()), Text: excerpt(texts[sourceKey(s)]),
			Type: s.Type(), Published: s.Published, Modified: s.Modified, Cited: cited, Relevance: rels[sourceKey(s)]}
	}
	doc.SourcesUsed, doc.UsageSIDs = []UsedSource{}, []int{}
	for _, ref := range doc.References {
		doc.SourcesUsed = append(doc.SourcesUsed, used(ref.Number, ref.Source, true))
	}
	doc.Provenance = ProvenanceOf(doc.References)
	next := len(doc.References)
	for _, n := range r.Used {
		if d, cited := v.display[n]; cited {
			doc.UsageSIDs = append(doc.UsageSIDs, d)
			continue
		}
		i := slices.IndexFunc(r.Sources, func(s collapse.Source) bool { return s.Number == n })
		if i < 0 {
			continue // no merged source: the processor reported nothing else
		}
		next++
		doc.UsageSIDs = append(doc.UsageSIDs, next)
		doc.SourcesUsed = append(doc.SourcesUsed, used(next, r.Sources[i].Source, false))
	}
	doc.OK, doc.Content, doc.Format = x.Reason == "", doc.Text, FormatMarkdown
	doc.Finished, doc.Retries, doc.Reason = !x.Unfinished, x.Retries, sourcetext.Clean(x.Reason)
	doc.Stats = Stats{Rounds: x.Rounds, Bytes: len(doc.Text), Citations: "absent", Validated: cmp.Or(x.Validated, ValidatedNone)}
	if len(doc.References) > 0 {
		doc.Stats.Citations = "present"
	}
}

// sourceKey is a source's identity in a report: its document and the
// page, row or slide it is.
func sourceKey(s source.Source) string {
	return s.ID + "\x00" + s.URL + "\x00" + s.Location.Key()
}

// excerpt is the start of text, white space folded, control characters
// dropped, cut at a word to at most excerptMax bytes ("…" marks a cut).
func excerpt(text string) string {
	t := sourcetext.Clean(text)
	if len(t) <= excerptMax {
		return t
	}
	cut := excerptMax - len("…")
	for cut > 0 && !utf8.RuneStart(t[cut]) {
		cut--
	}
	if i := strings.LastIndexByte(t[:cut], ' '); i > excerptMax/2 {
		cut = i
	}
	return strings.TrimRight(t[:cut], " ") + "…"
}
