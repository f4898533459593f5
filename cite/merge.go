package cite

import (
	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/source"
)

type (
	// Report is one report with its own numbering, as an agent of a run
	// writes it. Its fields: Section string; Text string; Mapping
	// map[int]Source, the numbers Text cites and their sources.
	Report = collapse.Report
	// Collapsed is several reports on one numbering. Its fields (JSON
	// names in brackets): Reports []CollapsedReport ("reports"), each
	// report rewritten; Sources []MergedSource ("sources"); Unknown
	// []Dropped ("unknown"); Invalid []InvalidURL ("invalid_urls").
	Collapsed = collapse.Result
	// CollapsedReport is a report rewritten onto the merged numbering. Its
	// fields: Section string ("section"); Text string ("text").
	CollapsedReport = collapse.MergedReport
	// MergedSource is a source of the merged numbering. Its fields: Number
	// int ("number"); the Source's fields, embedded; CanonicalURL string
	// ("canonical_url"), what it was de-duplicated by (empty without a
	// well-formed URL); FirstSeenSection string ("first_seen_section");
	// UsedInSections []string ("used_in_sections"), every section that
	// cites it, in order; Fixed int ("fixed"), when not 0 the number
	// readers see whatever order a report cites it in (Merger.Seed).
	MergedSource = collapse.Source
	// Dropped is a citation a report made that its mapping could not
	// resolve, dropped from its text rather than left to name another
	// source after renumbering. Its fields: Section string ("section");
	// then as Unresolved's, Number int ("number", present exactly when
	// neither of the others is), URL string ("url"), Marker string
	// ("marker").
	Dropped = collapse.Unknown
	// InvalidURL is a cited source whose URL could not be canonicalised.
	// Its fields: Section string ("section"); Number int ("number"), the
	// report's own number for it; URL string ("url"); Err string
	// ("error"), why it is malformed; MergedAs string ("merged_as"), the
	// canonical URL of the resource a browser reads it as, which it was
	// merged with; empty when it is kept under a number of its own.
	InvalidURL = collapse.InvalidURL
)

// Collapse merges reports, in the order given (a run's plan order), onto
// one numbering, as a run merges its agents' reports: each distinct source
// (by canonical URL, by ID without one) gets a number the first time a
// report cites it; markers keep their bracket style; code is untouched.
func Collapse(reports []Report) (*Collapsed, error) { return collapse.Merge(reports) }

// Merger puts reports and sources on one numbering, one at a time:
// Collapse, incrementally. Each distinct source (by canonical URL, by ID
// without one; a page of a document apart from its other pages) gets the
// next number the first time it is cited, and numbers, once given, never
// change, so the numbering depends only on the order of the calls. The
// zero value is not usable; call NewMerger. It is not safe for concurrent
// use.
type Merger struct{ m *collapse.Merger }

// NewMerger returns an empty Merger.
func NewMerger() *Merger { return &Merger{m: collapse.NewMerger()} }

// Add cites src once in section ("" for none) and returns its number: the
// number it already has when the Merger holds the same resource, else the
// next one. It is Merge of a report of section that cites src alone.
func (m *Merger) Add(section string, src source.Source) int { return m.m.Cite(section, src) }

// Merge merges the next report and returns it rewritten onto the
// numbering. It fails when r.Mapping holds a number outside
// 0..MaxNumber.
func (m *Merger) Merge(r Report) (CollapsedReport, error) { return m.m.Add(r) }

// Seed gives the sources prior the first numbers, in order, before any
// report or source is merged (a follow-up's merge starts from the sources
// of the run it follows). It fails once something was merged.
func (m *Merger) Seed(prior []MergedSource) error { return m.m.Seed(prior) }

// Sources returns the merged sources in number order (Sources()[i] has
// number i+1).
func (m *Merger) Sources() []MergedSource { return m.m.Sources() }

// Source returns the merged source numbered n, without copying the others
// as Sources does.
func (m *Merger) Source(n int) (MergedSource, bool) { return m.m.Source(n) }

// Dropped returns the citations that could not be resolved, in order.
func (m *Merger) Dropped() []Dropped { return m.m.Unknown() }

// Invalid returns the cited sources whose URL was malformed, in order.
func (m *Merger) Invalid() []InvalidURL { return m.m.Invalid() }
