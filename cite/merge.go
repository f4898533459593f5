package cite

import "github.com/deepresearch/deepresearch/internal/collapse"

type (
	// Report is one report with its own numbering, as an agent of a run
	// writes it: Mapping maps the numbers its Text cites to their sources.
	Report = collapse.Report
	// Collapsed is several reports on one numbering: each report
	// rewritten, the merged sources, and the citations dropped.
	Collapsed = collapse.Result
	// CollapsedReport is a report rewritten onto the merged numbering.
	CollapsedReport = collapse.MergedReport
	// MergedSource is a source of the merged numbering: its number, the
	// canonical URL it was de-duplicated by, and the sections that cite it.
	MergedSource = collapse.Source
	// Dropped is a citation a report made that its mapping could not
	// resolve, dropped from its text rather than left to name another
	// source after renumbering.
	Dropped = collapse.Unknown
	// InvalidURL is a cited source whose URL could not be canonicalised:
	// it is kept under a number of its own.
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
func (m *Merger) Add(section string, src Source) int { return m.m.Cite(section, src) }

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
