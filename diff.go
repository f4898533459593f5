package deepresearch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/deepresearch/deepresearch/internal/source"
	"github.com/deepresearch/deepresearch/internal/verify"
)

// RunDiff is what changed from one run's report (A) to another's (B),
// typically two runs of the same question: the sources added, dropped
// and changed, the claims whose support changed, and the sections added
// or removed. Its JSON form is that of `deepresearch diff --json` and of
// GET /v1/research/{id}/diff/{other}; WriteText writes it for people.
// Every list is in a deterministic order, given below.
type RunDiff struct {
	RunA      string `json:"run_a"`
	RunB      string `json:"run_b"`
	QuestionA string `json:"question_a"`
	QuestionB string `json:"question_b"`
	// Sources compares the two runs' merged sources (Report.Sources).
	Sources SourcesDiff `json:"sources"`
	// Claims are the cited sentences whose support changed: A's, in A's
	// order, then those supported only in B, in B's order.
	Claims []ClaimDiff `json:"claims"`
	// Sections compares the reports' headings.
	Sections SectionsDiff `json:"sections"`
}

// SourcesDiff compares two runs' sources. A source is one document (a
// page, row or slide of one is a source of its own): a web page under its
// canonical URL, a corpus document under its ID when it has no URL. Its
// text is the text the run's agents read (Report.SourceTexts), else the
// text the run store kept of it; a source whose text is unknown in either
// run is not counted as changed. A fetched page's text is the page; a
// document found by a search of a corpus or index is read as the excerpts
// the search returned, so such a document also counts as changed when
// the two runs read different excerpts of it.
type SourcesDiff struct {
	// Added are the sources of B that A does not have, in B's order.
	Added []SourceDiff `json:"added"`
	// Dropped are the sources of A that B does not have, in A's order.
	Dropped []SourceDiff `json:"dropped"`
	// Changed are the sources of both whose text differs (by SHA-256),
	// in A's order.
	Changed []SourceDiff `json:"changed"`
	// Unchanged counts the sources of both whose text is the same, or
	// unknown in either run.
	Unchanged int `json:"unchanged"`
}

// SourceDiff is one source of a SourcesDiff: what identifies it (Key),
// its title, URL and ID as the newer run that has it names them, its
// merged numbers in A and B (0 in a run that lacks it), and the SHA-256
// of its text in each ("" when unknown or absent).
type SourceDiff struct {
	Key     string `json:"key"`
	Title   string `json:"title,omitempty"`
	URL     string `json:"url,omitempty"`
	ID      string `json:"id,omitempty"`
	NumberA int    `json:"number_a,omitempty"`
	NumberB int    `json:"number_b,omitempty"`
	SHA256A string `json:"text_sha256_a,omitempty"`
	SHA256B string `json:"text_sha256_b,omitempty"`
}

// ClaimChange says how a claim's support changed (ClaimDiff.Change).
type ClaimChange string

// The claim changes.
const (
	// ClaimLostSupport: the sentence is supported in A and cited but not
	// supported in B.
	ClaimLostSupport ClaimChange = "lost_support"
	// ClaimGainedSupport: the sentence is cited but not supported in A,
	// and supported in B. (A sentence only B says is new, not listed.)
	ClaimGainedSupport ClaimChange = "gained_support"
	// ClaimSourceChanged: a source the sentence cites in A changed or
	// was dropped in B (ClaimDiff.Sources names it), and B does not say
	// the sentence. (One B says again is listed only when its support
	// changed.)
	ClaimSourceChanged ClaimChange = "source_changed"
)

// ClaimDiff is a cited sentence whose support changed. A sentence is the
// same in both reports when its words are (citation markers and spacing
// aside); it is supported when one of its numbered citations is, judged
// lexically against the text each run read of its sources (as verify.Verify
// judges with no Model): the same judgement for both runs, whichever
// judge the runs used.
type ClaimDiff struct {
	Sentence string      `json:"sentence"`
	Change   ClaimChange `json:"change"`
	// InB says whether B's report says the sentence too; SupportedA and
	// SupportedB, whether each run's sources support it (false where the
	// run does not say it).
	InB        bool `json:"in_b"`
	SupportedA bool `json:"supported_a"`
	SupportedB bool `json:"supported_b"`
	// Sources are the keys (SourceDiff.Key) of the sources the sentence
	// cites in A that changed or were dropped, in A's order.
	Sources []string `json:"sources,omitempty"`
}

// SectionsDiff compares two reports' headings (every level, by their
// text; headings in code blocks are not headings).
type SectionsDiff struct {
	// Added are the headings of B that A does not have, in B's order;
	// Removed those of A that B does not have, in A's order.
	Added   []string `json:"added"`
	Removed []string `json:"removed"`
}

// Empty reports whether nothing changed.
func (d *RunDiff) Empty() bool {
	return len(d.Sources.Added)+len(d.Sources.Dropped)+len(d.Sources.Changed)+len(d.Claims)+
		len(d.Sections.Added)+len(d.Sections.Removed) == 0
}

// Diff compares report a with report b (the older run first); keptA and
// keptB are the documents a run store kept of each run (Store.Sources;
// nil for none), whose text stands in for a source text a report lacks.
// It reads only the reports: it fetches nothing and asks no model. It
// fails when either report has nothing to render (ErrNoReport) or ctx is
// done.
func Diff(ctx context.Context, a, b *Report, keptA, keptB []StoredSource) (*RunDiff, error) {
	sa, err := diffSideOf(ctx, a, keptA)
	if err != nil {
		return nil, fmt.Errorf("deepresearch: diff: run %s: %w", a.RunID, err)
	}
	sb, err := diffSideOf(ctx, b, keptB)
	if err != nil {
		return nil, fmt.Errorf("deepresearch: diff: run %s: %w", b.RunID, err)
	}
	d := &RunDiff{RunA: a.RunID, RunB: b.RunID, QuestionA: a.Question, QuestionB: b.Question,
		Claims: []ClaimDiff{}, Sections: SectionsDiff{Added: []string{}, Removed: []string{}}}
	d.Sources = diffSources(sa, sb)
	moved := map[string]bool{}
	for _, s := range slices.Concat(d.Sources.Dropped, d.Sources.Changed) {
		moved[s.Key] = true
	}
	d.Claims = diffClaims(sa, sb, moved)
	d.Sections.Added = missing(sb.headings, sa.headings)
	d.Sections.Removed = missing(sa.headings, sb.headings)
	return d, nil
}

// DiffRuns compares the reports of the runs idA and idB that st holds, as
// Diff does, with the documents st kept of each. A run st does not hold
// is a *RunsError wrapping ErrRunNotFound; a run with no report (one in
// progress, or that failed before its research) a *RunsError wrapping
// ErrNoReport.
func DiffRuns(ctx context.Context, st Store, idA, idB string) (*RunDiff, error) {
	a, keptA, err := storedReport(ctx, st, idA)
	if err != nil {
		return nil, err
	}
	b, keptB, err := storedReport(ctx, st, idB)
	if err != nil {
		return nil, err
	}
	return Diff(ctx, a, b, keptA, keptB)
}

// Diff compares the reports of the stored runs idA and idB, as DiffRuns
// does over the Runs' store.
func (rs *Runs) Diff(ctx context.Context, idA, idB string) (*RunDiff, error) {
	return DiffRuns(ctx, rs.st, idA, idB)
}

// storedReport loads run id's report from st, with the documents st kept
// of it.
func storedReport(ctx context.Context, st Store, id string) (*Report, []StoredSource, error) {
	run, err := st.Get(ctx, id)
	if errors.Is(err, ErrRunNotFound) {
		return nil, nil, noRun(id)
	} else if err != nil {
		return nil, nil, err
	}
	noReport := func() error {
		msg := fmt.Sprintf("run %s is %s and has no report", id, run.Status)
		if run.Error != "" {
			msg += ": " + run.Error
		}
		return &RunsError{Run: id, Err: ErrNoReport, Problem: msg}
	}
	b, err := st.Report(ctx, id)
	if errors.Is(err, ErrRunNotFound) {
		return nil, nil, noReport()
	} else if err != nil {
		return nil, nil, err
	}
	rep, err := LoadReport(b)
	if err != nil {
		return nil, nil, fmt.Errorf("deepresearch: run %s: %w", id, err)
	}
	if _, err := rep.published(); err != nil {
		return nil, nil, noReport() // nothing to render: no agent reported
	}
	kept, err := st.Sources(ctx, id)
	if err != nil {
		return nil, nil, fmt.Errorf("deepresearch: run %s: sources: %w", id, err)
	}
	return rep, kept, nil
}

// diffSide is what Diff compares of one report.
type diffSide struct {
	sources  []SourceDiff // in merged order; NumberA and SHA256A hold this side's
	byKey    map[string]int
	claims   []sideClaim // in order of first citation
	headings []string
}

// sideClaim is one cited sentence of a report.
type sideClaim struct {
	text, key string
	supported bool
	cites     []string // source keys, in order of citation
}

func diffSideOf(ctx context.Context, r *Report, kept []StoredSource) (*diffSide, error) {
	pub, err := r.published()
	if err != nil {
		return nil, err
	}
	keptText := keptTexts(kept)
	side := &diffSide{byKey: map[string]int{}}
	for _, s := range r.Sources {
		k := sourceKey(s.Source)
		if _, dup := side.byKey[k]; dup {
			continue
		}
		text := r.SourceTexts[s.Number]
		if text == "" {
			text = keptText[s.ID+"\x00"+s.URL]
		}
		sd := SourceDiff{Key: k, Title: s.Title, URL: s.URL, ID: s.ID, NumberA: s.Number}
		if text != "" {
			sd.SHA256A = source.SHA256(text)
		}
		side.byKey[k] = len(side.sources)
		side.sources = append(side.sources, sd)
	}
	// The claims are judged in what Render shows: the final report, or
	// the findings when the writer failed.
	c := *r
	c.Body, c.References = pub.Body, pub.References
	cited := c.CitedSources(kept)
	res, err := verify.Check(ctx, c.Body, cited, verify.Options{Scope: verify.ScopeCitations})
	if err != nil {
		return nil, err
	}
	refKey := map[int]string{}
	for _, ref := range pub.References {
		refKey[ref.Number] = sourceKey(ref.Source)
	}
	at := map[string]int{}
	for _, cit := range res.Citations {
		if cit.Kind != verify.KindNumber || cit.Sentence == "" {
			continue
		}
		key := claimKey(cit.Sentence)
		i, ok := at[key]
		if !ok {
			i = len(side.claims)
			at[key] = i
			side.claims = append(side.claims, sideClaim{text: strings.Join(strings.Fields(cit.Sentence), " "), key: key})
		}
		cl := &side.claims[i]
		cl.supported = cl.supported || cit.Status == verify.Supported
		if k, ok := refKey[cit.Number]; ok && !slices.Contains(cl.cites, k) {
			cl.cites = append(cl.cites, k)
		}
	}
	side.headings = headings(c.Body)
	return side, nil
}

// keptTexts are the texts a run store kept of a run's sources (the first
// of each), by ID and URL (ID + "\x00" + URL).
func keptTexts(kept []StoredSource) map[string]string {
	out := map[string]string{}
	for _, k := range kept {
		if key := k.ID + "\x00" + k.URL; out[key] == "" {
			out[key] = k.Text
		}
	}
	return out
}

// claimKey is what makes two sentences the same claim: their words,
// folded to lower case.
func claimKey(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

func diffSources(a, b *diffSide) SourcesDiff {
	d := SourcesDiff{Added: []SourceDiff{}, Dropped: []SourceDiff{}, Changed: []SourceDiff{}}
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

// diffClaims lists the claims whose support changed; moved holds the keys
// of A's sources that changed or were dropped.
func diffClaims(a, b *diffSide, moved map[string]bool) []ClaimDiff {
	inB := make(map[string]*sideClaim, len(b.claims))
	for i := range b.claims {
		inB[b.claims[i].key] = &b.claims[i]
	}
	out := []ClaimDiff{}
	for _, ca := range a.claims {
		cd := ClaimDiff{Sentence: ca.text, SupportedA: ca.supported}
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
			cd.Change = ClaimLostSupport
		case cd.InB && !cd.SupportedA && cd.SupportedB:
			cd.Change = ClaimGainedSupport
		case !cd.InB && len(cd.Sources) > 0:
			cd.Change = ClaimSourceChanged
		default:
			continue
		}
		out = append(out, cd)
	}
	return out
}

// headings returns the text of md's ATX headings, in order, each once;
// fenced code is skipped.
func headings(md string) []string {
	var out []string
	fence := ""
	for line := range strings.Lines(md) {
		t := strings.TrimSpace(line)
		if fence != "" {
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
			continue
		}
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fence = t[:3]
			continue
		}
		n := len(t) - len(strings.TrimLeft(t, "#"))
		if n == 0 || n > 6 || (len(t) > n && t[n] != ' ' && t[n] != '\t') {
			continue
		}
		h := strings.TrimSpace(strings.TrimRight(strings.TrimSpace(t[n:]), "#"))
		if h != "" && !slices.Contains(out, h) {
			out = append(out, h)
		}
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
func (d *RunDiff) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "A: %s  %s\nB: %s  %s\n", d.RunA, oneLineText(d.QuestionA), d.RunB, oneLineText(d.QuestionB))
	if d.Empty() {
		fmt.Fprintf(&b, "\nNothing changed (%d sources the same).\n", d.Sources.Unchanged)
		_, err := io.WriteString(w, b.String())
		return err
	}
	src := func(s SourceDiff) string {
		name := s.URL
		if name == "" {
			name = s.ID
		}
		if s.Title != "" && s.Title != name {
			return fmt.Sprintf("%s (%s)", oneLineText(s.Title), name)
		}
		return name
	}
	nums := func(s SourceDiff) string {
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
			fmt.Fprintf(&b, "  %s: %s\n", claimWords[c.Change], oneLineText(c.Sentence))
			if len(c.Sources) > 0 {
				fmt.Fprintf(&b, "      its source changed or was dropped: %s\n", strings.Join(c.Sources, ", "))
			}
		}
	}
	if len(d.Sections.Added)+len(d.Sections.Removed) > 0 {
		fmt.Fprintf(&b, "\nSections: %d added, %d removed\n", len(d.Sections.Added), len(d.Sections.Removed))
		for _, h := range d.Sections.Added {
			fmt.Fprintf(&b, "  + %s\n", oneLineText(h))
		}
		for _, h := range d.Sections.Removed {
			fmt.Fprintf(&b, "  - %s\n", oneLineText(h))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// claimWords are WriteText's words for each claim change.
var claimWords = map[ClaimChange]string{
	ClaimLostSupport:   "lost support",
	ClaimGainedSupport: "gained support",
	ClaimSourceChanged: "source changed",
}

// oneLineText is s on one line, its runs of spaces and newlines made one
// space.
func oneLineText(s string) string { return strings.Join(strings.Fields(s), " ") }
