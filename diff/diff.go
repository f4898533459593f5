// Package diff compares the reports of two research runs, typically two
// runs of the same question: the sources added, dropped and changed, the
// cited claims whose support changed, and the sections added or removed.
//
// Runs compares two runs as Run describes each; deepresearch.Diff and
// deepresearch.DiffRuns build the Runs from two reports and return the
// Result. The package does no I/O: it reads only what it is given.
package diff

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// Result is what changed from one run's report (A) to another's (B),
// typically two runs of the same question: the sources added, dropped
// and changed, the claims whose support changed, and the sections added
// or removed. Its JSON form is that of `deepresearch diff --json` and of
// GET /v1/research/{id}/diff/{other}; WriteText writes it for people.
// Every list is in a deterministic order, given below.
type Result struct {
	RunA      string `json:"run_a"`
	RunB      string `json:"run_b"`
	QuestionA string `json:"question_a"`
	QuestionB string `json:"question_b"`
	// Sources compares the two runs' merged sources (deepresearch.Report.Sources).
	Sources Sources `json:"sources"`
	// Claims are the cited sentences whose support changed: A's, in A's
	// order, then those supported only in B, in B's order.
	Claims []Claim `json:"claims"`
	// Sections compares the reports' headings.
	Sections Sections `json:"sections"`
}

// Sources compares two runs' sources. A source is one document (a
// page, row or slide of one is a source of its own): a web page under its
// canonical URL, a corpus document under its ID when it has no URL. Its
// text is the text the run's agents read (deepresearch.Report.SourceTexts), else the
// text the run store kept of it; a source whose text is unknown in either
// run is not counted as changed. A fetched page's text is the page; a
// document found by a search of a corpus or index is read as the excerpts
// the search returned, so such a document also counts as changed when
// the two runs read different excerpts of it.
type Sources struct {
	// Added are the sources of B that A does not have, in B's order.
	Added []Source `json:"added"`
	// Dropped are the sources of A that B does not have, in A's order.
	Dropped []Source `json:"dropped"`
	// Changed are the sources of both whose text differs (by SHA-256),
	// in A's order.
	Changed []Source `json:"changed"`
	// Unchanged counts the sources of both whose text is the same, or
	// unknown in either run.
	Unchanged int `json:"unchanged"`
}

// Source is one source of a Sources: what identifies it (Key),
// its title, URL and ID as the newer run that has it names them, its
// merged numbers in A and B (0 in a run that lacks it), and the SHA-256
// of its text in each ("" when unknown or absent).
type Source struct {
	Key     string `json:"key"`
	Title   string `json:"title,omitempty"`
	URL     string `json:"url,omitempty"`
	ID      string `json:"id,omitempty"`
	NumberA int    `json:"number_a,omitempty"`
	NumberB int    `json:"number_b,omitempty"`
	SHA256A string `json:"text_sha256_a,omitempty"`
	SHA256B string `json:"text_sha256_b,omitempty"`
}

// Change says how a claim's support changed (Claim.Change).
type Change string

// The claim changes.
const (
	// LostSupport: the sentence is supported in A and cited but not
	// supported in B.
	LostSupport Change = "lost_support"
	// GainedSupport: the sentence is cited but not supported in A,
	// and supported in B. (A sentence only B says is new, not listed.)
	GainedSupport Change = "gained_support"
	// SourceChanged: a source the sentence cites in A changed or
	// was dropped in B (Claim.Sources names it), and B does not say
	// the sentence. (One B says again is listed only when its support
	// changed.)
	SourceChanged Change = "source_changed"
)

// Claim is a cited sentence whose support changed. A sentence is the
// same in both reports when its words are (citation markers and spacing
// aside); it is supported when one of its numbered citations is, judged
// lexically against the text each run read of its sources (as verify.Verify
// judges with no Model): the same judgement for both runs, whichever
// judge the runs used.
type Claim struct {
	Sentence string `json:"sentence"`
	Change   Change `json:"change"`
	// InB says whether B's report says the sentence too; SupportedA and
	// SupportedB, whether each run's sources support it (false where the
	// run does not say it).
	InB        bool `json:"in_b"`
	SupportedA bool `json:"supported_a"`
	SupportedB bool `json:"supported_b"`
	// Sources are the keys (Source.Key) of the sources the sentence
	// cites in A that changed or were dropped, in A's order.
	Sources []string `json:"sources,omitempty"`
}

// Sections compares two reports' headings (every level, by their
// text; headings in code blocks are not headings).
type Sections struct {
	// Added are the headings of B that A does not have, in B's order;
	// Removed those of A that B does not have, in A's order.
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
}

// Empty reports whether nothing changed.
func (d *Result) Empty() bool {
	return len(d.Sources.Added)+len(d.Sources.Dropped)+len(d.Sources.Changed)+len(d.Claims)+
		len(d.Sections.Added)+len(d.Sections.Removed) == 0
}

// Run is what Runs compares of one run's report.
type Run struct {
	// ID and Question are the run's (Result.RunA, Result.QuestionA).
	ID       string
	Question string
	// Sources are the report's merged sources, in its order; a source
	// whose Key an earlier one has counts once, as the earlier.
	Sources []RunSource
	// Citations are the numbered citations of the report's text, in its
	// order.
	Citations []Citation
	// Headings are the report's headings, in order, each once.
	Headings []string
}

// RunSource is one source of a Run: the Key that makes it the same
// source in both runs (a canonical URL, or an ID for a document without
// one), its title, URL and ID, its merged number, and the SHA-256 of its
// text ("" when unknown).
type RunSource struct {
	Key    string
	Title  string
	URL    string
	ID     string
	Number int
	SHA256 string
}

// Citation is one numbered citation of a Run's report: the sentence that
// carries it, the Key of the source it cites ("" when it resolves to
// none), and whether that source supports the sentence.
type Citation struct {
	Sentence  string
	Source    string
	Supported bool
}

// Runs compares run a with run b (the older first). A source is added,
// dropped or changed by its Key and SHA256; a sentence is a claim of a
// run when one of its citations is, and supported there when one of its
// citations is supported.
func Runs(a, b Run) *Result {
	sa, sb := sideOf(a), sideOf(b)
	d := &Result{RunA: a.ID, RunB: b.ID, QuestionA: a.Question, QuestionB: b.Question,
		Sources: compareSources(sa, sb)}
	moved := map[string]bool{}
	for _, s := range slices.Concat(d.Sources.Dropped, d.Sources.Changed) {
		moved[s.Key] = true
	}
	d.Claims = compareClaims(sa, sb, moved)
	d.Sections = Sections{Added: missing(b.Headings, a.Headings), Removed: missing(a.Headings, b.Headings)}
	return d
}

// side is a Run made ready to compare: its sources each once, and its
// citations gathered into claims.
type side struct {
	sources []Source // in merged order; NumberA and SHA256A hold this side's
	byKey   map[string]int
	claims  []sideClaim // in order of first citation
}

// sideClaim is one cited sentence of a report.
type sideClaim struct {
	text, key string
	supported bool
	cites     []string // source keys, in order of citation
}

func sideOf(r Run) *side {
	s := &side{byKey: map[string]int{}}
	for _, rs := range r.Sources {
		if _, dup := s.byKey[rs.Key]; dup {
			continue
		}
		s.byKey[rs.Key] = len(s.sources)
		s.sources = append(s.sources, Source{Key: rs.Key, Title: rs.Title, URL: rs.URL, ID: rs.ID, NumberA: rs.Number, SHA256A: rs.SHA256})
	}
	at := map[string]int{}
	for _, c := range r.Citations {
		if c.Sentence == "" {
			continue
		}
		key := claimKey(c.Sentence)
		i, ok := at[key]
		if !ok {
			i = len(s.claims)
			at[key] = i
			s.claims = append(s.claims, sideClaim{text: oneLine(c.Sentence), key: key})
		}
		cl := &s.claims[i]
		cl.supported = cl.supported || c.Supported
		if c.Source != "" && !slices.Contains(cl.cites, c.Source) {
			cl.cites = append(cl.cites, c.Source)
		}
	}
	return s
}

// claimKey is what makes two sentences the same claim: their words,
// folded to lower case.
func claimKey(s string) string { return strings.ToLower(oneLine(s)) }

func compareSources(a, b *side) Sources {
	d := Sources{Added: []Source{}, Dropped: []Source{}, Changed: []Source{}}
	for _, sa := range a.sources {
		i, ok := b.byKey[sa.Key]
		if !ok {
			d.Dropped = append(d.Dropped, sa)
			continue
		}
		sb := b.sources[i]
		both := sa
		both.Title, both.URL, both.ID = sb.Title, sb.URL, sb.ID
		both.NumberB, both.SHA256B = sb.NumberA, sb.SHA256A
		if sa.SHA256A != "" && sb.SHA256A != "" && sa.SHA256A != sb.SHA256A {
			d.Changed = append(d.Changed, both)
		} else {
			d.Unchanged++
		}
	}
	for _, sb := range b.sources {
		if _, ok := a.byKey[sb.Key]; !ok {
			sb.NumberB, sb.SHA256B = sb.NumberA, sb.SHA256A
			sb.NumberA, sb.SHA256A = 0, ""
			d.Added = append(d.Added, sb)
		}
	}
	return d
}

// compareClaims lists the claims whose support changed; moved holds the
// keys of A's sources that changed or were dropped.
func compareClaims(a, b *side, moved map[string]bool) []Claim {
	inB := make(map[string]*sideClaim, len(b.claims))
	for i := range b.claims {
		inB[b.claims[i].key] = &b.claims[i]
	}
	out := []Claim{}
	for _, ca := range a.claims {
		cd := Claim{Sentence: ca.text, SupportedA: ca.supported}
		if cb := inB[ca.key]; cb != nil {
			cd.InB, cd.SupportedB = true, cb.supported
		}
		for _, k := range ca.cites {
			if moved[k] {
				cd.Sources = append(cd.Sources, k)
			}
		}
		switch {
		case cd.InB && cd.SupportedA && !cd.SupportedB:
			cd.Change = LostSupport
		case cd.InB && !cd.SupportedA && cd.SupportedB:
			cd.Change = GainedSupport
		case !cd.InB && len(cd.Sources) > 0:
			cd.Change = SourceChanged
		default:
			continue
		}
		out = append(out, cd)
	}
	return out
}

// missing returns the strings of from that are not in of, in from's
// order.
func missing(from, of []string) []string {
	out := []string{}
	for _, s := range from {
		if !slices.Contains(of, s) {
			out = append(out, s)
		}
	}
	return out
}

// WriteText writes the diff for people: a line per run, then each kind
// of change under its heading, or that nothing changed.
func (d *Result) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "A: %s  %s\nB: %s  %s\n", d.RunA, oneLine(d.QuestionA), d.RunB, oneLine(d.QuestionB))
	if d.Empty() {
		fmt.Fprintf(&b, "\nNothing changed (%d sources the same).\n", d.Sources.Unchanged)
		_, err := io.WriteString(w, b.String())
		return err
	}
	src := func(s Source) string {
		name := s.URL
		if name == "" {
			name = s.ID
		}
		if s.Title != "" && s.Title != name {
			return fmt.Sprintf("%s (%s)", oneLine(s.Title), name)
		}
		return name
	}
	nums := func(s Source) string {
		switch {
		case s.NumberA != 0 && s.NumberB != 0:
			return fmt.Sprintf("[%d→%d] ", s.NumberA, s.NumberB)
		case s.NumberA != 0:
			return fmt.Sprintf("[%d] ", s.NumberA)
		}
		return fmt.Sprintf("[→%d] ", s.NumberB)
	}
	fmt.Fprintf(&b, "\nSources: %d added, %d dropped, %d changed, %d unchanged\n",
		len(d.Sources.Added), len(d.Sources.Dropped), len(d.Sources.Changed), d.Sources.Unchanged)
	for _, s := range d.Sources.Added {
		fmt.Fprintf(&b, "  + %s%s\n", nums(s), src(s))
	}
	for _, s := range d.Sources.Dropped {
		fmt.Fprintf(&b, "  - %s%s\n", nums(s), src(s))
	}
	for _, s := range d.Sources.Changed {
		fmt.Fprintf(&b, "  ~ %s%s: text %.12s → %.12s\n", nums(s), src(s), s.SHA256A, s.SHA256B)
	}
	if len(d.Claims) > 0 {
		fmt.Fprintf(&b, "\nClaims whose support changed: %d\n", len(d.Claims))
		for _, c := range d.Claims {
			fmt.Fprintf(&b, "  %s: %s\n", changeWords[c.Change], oneLine(c.Sentence))
			if len(c.Sources) > 0 {
				fmt.Fprintf(&b, "      its source changed or was dropped: %s\n", strings.Join(c.Sources, ", "))
			}
		}
	}
	if len(d.Sections.Added)+len(d.Sections.Removed) > 0 {
		fmt.Fprintf(&b, "\nSections: %d added, %d removed\n", len(d.Sections.Added), len(d.Sections.Removed))
		for _, h := range d.Sections.Added {
			fmt.Fprintf(&b, "  + %s\n", oneLine(h))
		}
		for _, h := range d.Sections.Removed {
			fmt.Fprintf(&b, "  - %s\n", oneLine(h))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// changeWords are WriteText's words for each claim change.
var changeWords = map[Change]string{
	LostSupport:   "lost support",
	GainedSupport: "gained support",
	SourceChanged: "source changed",
}

// oneLine is s on one line, its runs of spaces and newlines made one
// space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
