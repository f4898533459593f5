package verify

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/sourcetext"
	"github.com/deepresearch/deepresearch/source"
)

type checker struct {
	report  string
	sources map[int]Source
	units   map[int][]Source // numbers of one document at several units: each, with its text
	order   []int            // source numbers, ascending
	opts    Options
	lines   lineIndex
	mapping *citeproc.Mapping
	// judged is, by number, the text each source is judged against: its
	// Text, else its intact passages; issues what is wrong with what it
	// kept (altered or vanished passages).
	judged  map[int]string
	issues  map[int][]Problem
	matched map[string]match    // DOI, author-year and REF verdicts, by reference
	lowered []string            // the sources' URL, ID and text, lower-cased, for DOIs
	files   map[string]fileMeta // what a file referred to says of itself, by path
	// mentions are the verdicts on @-mentions, by path.
	mentions map[string]mentioned
	// beyond says, by the offset of a file reference, what of its line
	// range its file does not hold (a bad-lines problem).
	beyond map[int]string
	// By the index of a numbered citation in the result: the text its
	// source was judged against; whether its words decided it (see
	// literally); the kind of problem it is, when not the plain one of
	// its status (a misquote, a figure not in the source, a locator
	// outside the source).
	texts   map[int]string
	literal map[int]bool
	kinds   map[int]ProblemKind
	// Each judged text normalised for quotations, and its quantities.
	norms  map[string]normText
	qtys   map[string][]quantity
	lowers map[string]string
}

// normalized returns text normalised for finding quotations, once per text.
func (c *checker) normalized(text string) normText {
	n, ok := c.norms[text]
	if !ok {
		n = normalizeText(text)
		c.norms[text] = n
	}
	return n
}

// lowerText returns a source's title and text in lower case, once per
// text.
func (c *checker) lowerText(title, text string) string {
	k := title + "\x00" + text
	l, ok := c.lowers[k]
	if !ok {
		l = strings.ToLower(title + "\n" + text)
		c.lowers[k] = l
	}
	return l
}

// quantities returns the quantities of a source's text (its numbers in
// words too), once per text.
func (c *checker) quantities(text string) []quantity {
	q, ok := c.qtys[text]
	if !ok {
		q = sourceQuantities(text)
		c.qtys[text] = q
	}
	return q
}

type mentioned struct {
	status Status
	reason string
}

// match is the verdict on a DOI, author-year or REF identifier, and the
// number of the source that carries it.
type match struct {
	status Status
	number int
}

func newChecker(report string, sources []Source, opts Options) (*checker, error) {
	c := &checker{report: report, sources: map[int]Source{}, opts: opts, lines: newLineIndex(report),
		judged: map[int]string{}, issues: map[int][]Problem{}, matched: map[string]match{}, files: map[string]fileMeta{},
		mentions: map[string]mentioned{}, beyond: map[int]string{}, texts: map[int]string{}, literal: map[int]bool{},
		kinds: map[int]ProblemKind{}, norms: map[string]normText{}, qtys: map[string][]quantity{}, lowers: map[string]string{}}
	c.mapping = citeproc.NewMapping(canon.Key)
	for i, s := range sources {
		if s.Number < 1 {
			return nil, fmt.Errorf("%w: source %d (%q): number %d must be 1 or more", ErrSources, i+1, name(s), s.Number)
		}
		if old, dup := c.sources[s.Number]; dup {
			if !unitsOfOne(old, s) || slices.ContainsFunc(c.units[s.Number], func(u Source) bool { return u.Location == s.Location }) {
				return nil, fmt.Errorf("%w: number %d names two sources, %q and %q", ErrSources, s.Number, name(old), name(s))
			}
			// One reference cited at several pages, rows or slides: each
			// unit keeps the text it is judged against.
			if c.units == nil {
				c.units = map[int][]Source{}
			}
			if len(c.units[s.Number]) == 0 {
				old.Text = c.judged[s.Number]
				c.units[s.Number] = []Source{old}
			}
			s.Text = c.judgedText(s)
			c.units[s.Number] = append(c.units[s.Number], s)
			continue
		}
		c.sources[s.Number] = s
		c.order = append(c.order, s.Number)
		if err := c.mapping.Add(s.Number, citeproc.Source{ID: s.ID, URL: s.URL, Title: s.Title}); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrSources, err)
		}
		c.judged[s.Number] = c.judgedText(s)
	}
	slices.Sort(c.order)
	if c.opts.Judge == nil {
		c.opts.Judge = Lexical{}
	}
	return c, nil
}

func name(s Source) string {
	switch {
	case s.URL != "":
		return s.URL
	case s.Title != "":
		return s.Title
	}
	return s.ID
}

// checks reports whether the scope checks citations of kind k.
func (c *checker) checks(k Kind) bool {
	switch c.opts.Scope {
	case ScopeCitations:
		return k != KindMention && k != KindRefID
	case ScopeCorpus:
		return k == KindNumber || k == KindRef || k == KindMention || k == KindRefID
	case ScopeRLM:
		return k == KindFile
	}
	return true
}

func (c *checker) run(ctx context.Context) (*Result, error) {
	var lay *layout
	cits, err := findCitations(c.report, c.mapping, func() *layout {
		lay = parseLayout([]byte(c.report))
		return lay
	})
	if err != nil {
		return nil, err
	}
	cits = slices.DeleteFunc(cits, func(f found) bool { return !c.checks(f.kind) })
	attachSentences(c.report, cits)
	res := &Result{Citations: []Citation{}, Problems: []Problem{}}
	// Numbered citations: resolve, then judge the retrieved ones in one
	// call.
	type pending struct{ cit, claim int }
	var claims []Claim
	claimIdx := map[[2]string]int{}
	// What the words of each distinct claim decide (see literally).
	type decision struct {
		literal
		decided bool
	}
	literals := map[[2]string]decision{}
	var waits []pending
	for _, f := range cits {
		base := Citation{Kind: f.kind, Line: c.lines.line(f.off), Offset: f.off, Len: f.len, Marker: f.marker, Sentence: f.sentence, Link: f.link}
		switch f.kind {
		case KindNumber, KindRef:
			nums := f.nums
			if f.kind == KindRef {
				base.Ref = f.ref
				nums = []int{0}
				if n, _, ok := c.mapping.LookupURL(f.ref); ok {
					nums[0] = n
				}
			}
			for _, n := range nums {
				ct := base
				ct.Number = n
				src, ok, bad := c.source(n, f.loc)
				ct.Location = src.Location
				text := c.judged[n]
				if len(c.units[n]) > 0 || src.Location != c.sources[n].Location {
					text = src.Text // the unit's judged text (see newChecker, source)
				}
				switch {
				case c.opts.NoSources:
					ct.Status = Unchecked
				case bad != "":
					ct.Status, ct.Reason, ct.Location = Fabricated, bad, f.loc
					c.kinds[len(res.Citations)] = ProblemBadLocator
				case !ok || strings.TrimSpace(text) == "" && src.TextSHA256 == "":
					ct.Status = Fabricated
				case strings.TrimSpace(text) == "":
					ct.Status = Unsupported
					ct.Reason = "no passage of the source was kept to check against"
				case strings.TrimSpace(f.sentence) == "":
					ct.Status = Unsupported
					ct.Reason = "no sentence precedes the marker"
				default:
					c.texts[len(res.Citations)] = text
					sentence := f.sentence
					if knowledgeBase(c.sources[n]) {
						sentence = unattributed(sentence)
					}
					k := [2]string{sentence, fmt.Sprint(n, src.Location)}
					lk := k
					if f.blockQuote {
						lk[0] = "> " + lk[0]
					}
					d, seen := literals[lk]
					if !seen {
						d.literal, d.decided = literally(sentence, f.blockQuote, n, c.normalized(text))
						if d.decided && d.kind != "" {
							// The closest passage, for the fix.
							d.verdict.Score, d.verdict.Evidence = Score(sentence, text)
						}
						literals[lk] = d
					}
					if d.decided {
						ct.Status, ct.Score, ct.Evidence, ct.Reason = Unsupported, d.verdict.Score, d.verdict.Evidence, d.verdict.Reason
						if d.verdict.Supported {
							ct.Status = Supported
						}
						if d.kind != "" {
							c.kinds[len(res.Citations)] = d.kind
						}
						c.literal[len(res.Citations)] = true
						break
					}
					ci, seen := claimIdx[k]
					if !seen {
						ci = len(claims)
						claimIdx[k] = ci
						src.Text = text
						claims = append(claims, Claim{Sentence: sentence, Source: src})
					}
					waits = append(waits, pending{len(res.Citations), ci})
				}
				res.Citations = append(res.Citations, ct)
			}
		case KindDOI, KindAuthorYear, KindRefID:
			base.Ref = f.ref
			base.Status = c.matchRef(f)
			res.Citations = append(res.Citations, base)
		case KindFile:
			base.Ref = f.ref
			st, reason := c.fileVerdict(f)
			base.Status, base.Reason = st, reason
			if st == Stale || st == Unversioned {
				base.Hash = c.fileMeta(f.ref).hash
			}
			res.Citations = append(res.Citations, base)
		case KindMention:
			base.Ref = f.ref
			base.Status, base.Reason = c.mentionVerdict(f.ref)
			res.Citations = append(res.Citations, base)
		}
	}
	// The text judged, each source (a page of a document is one) once.
	read, total := map[string]bool{}, 0
	for _, cl := range claims {
		if k := strconv.Itoa(cl.Source.Number) + "\x00" + cl.Source.Location.Key(); !read[k] {
			read[k] = true
			total += len(cl.Source.Text)
		}
	}
	if total > MaxSourceBytes {
		return nil, fmt.Errorf("%w: the cited sources hold %d bytes of text; at most %d (16 MiB)", ErrTooLarge, total, MaxSourceBytes)
	}
	if len(claims) > 0 {
		verdicts, err := c.opts.Judge.Judge(ctx, claims)
		if err != nil {
			if errors.Is(err, ErrJudge) {
				return nil, err
			}
			return nil, &JudgeError{First: 0, Count: len(claims), Err: err}
		}
		if len(verdicts) != len(claims) {
			return nil, &JudgeError{Count: len(claims), Err: fmt.Errorf("%d verdicts for %d claims", len(verdicts), len(claims))}
		}
		for _, w := range waits {
			v := verdicts[w.claim]
			ct := &res.Citations[w.cit]
			ct.Score, ct.Evidence, ct.Reason = v.Score, v.Evidence, v.Reason
			ct.Status = Unsupported
			if v.Supported {
				ct.Status = Supported
			}
		}
	}
	// A figure the source states nowhere, or a name it never names, is not
	// supported, whatever the judge made of the words around it.
	for i := range res.Citations {
		ct := &res.Citations[i]
		text, judged := c.texts[i]
		if !judged || c.literal[i] || ct.Status != Supported && ct.Status != Unsupported {
			continue
		}
		passage := ""
		if ct.Evidence != nil {
			passage = ct.Evidence.Quote
		}
		if reason := missingQuantities(ct.Sentence, ct.Number, c.quantities(text), passage); reason != "" {
			ct.Status, ct.Reason = Unsupported, reason
			c.kinds[i] = ProblemNumber
			continue
		}
		if ct.Status != Supported {
			continue
		}
		if reason := missingNames(ct.Sentence, ct.Number, c.lowerText(c.sources[ct.Number].Title, text)); reason != "" {
			ct.Status, ct.Reason = Unsupported, reason
		}
	}
	c.problems(res)
	var prose []edit
	if c.opts.Scope == ScopeAll {
		prose = c.prose(res, cits, lay)
	}
	slices.SortStableFunc(res.Problems, func(a, b Problem) int { return a.Line - b.Line })
	res.Fixed = c.fix(res, prose)
	return res, nil
}

// problems fills res.Problems and res.Summary from res.Citations.
func (c *checker) problems(res *Result) {
	s := &res.Summary
	add := res.add
	cited := map[int]bool{}
	firstLine := map[int]int{}
	firstMarker := map[int]string{}
	var citedOrder []int
	reported := map[string]bool{} // one problem per (kind, number) on a line
	var unchecked []Citation      // numbers and REF identifiers, with no sources to check them
	for i, ct := range res.Citations {
		s.Citations++
		if ct.Kind == KindMention {
			s.Mentions++
		}
		if ct.Number > 0 && !cited[ct.Number] {
			cited[ct.Number] = true
			firstLine[ct.Number] = ct.Line
			firstMarker[ct.Number] = ct.Marker
			citedOrder = append(citedOrder, ct.Number)
		}
		once := func(p Problem) {
			k := fmt.Sprintf("%s/%d/%d/%s", p.Kind, p.Line, p.Number, ct.Ref)
			if !reported[k] {
				reported[k] = true
				add(p)
			}
		}
		switch ct.Status {
		case Supported:
			s.Supported++
		case Unsupported:
			s.Unsupported++
			switch c.kinds[i] {
			case ProblemMisquote:
				fix := fmt.Sprintf("quote source [%d] (%s) exactly, or drop the quotation marks and say what it says in your own words", ct.Number, name(c.sources[ct.Number]))
				add(Problem{Line: ct.Line, Severity: Error, Kind: ProblemMisquote, Marker: ct.Marker, Number: ct.Number, Message: ct.Reason, Fix: fix + closest(ct)})
			case ProblemNumber:
				fix := fmt.Sprintf("state the figure source [%d] (%s) gives, or cite the source that gives yours", ct.Number, name(c.sources[ct.Number]))
				add(Problem{Line: ct.Line, Severity: Warning, Kind: ProblemNumber, Marker: ct.Marker, Number: ct.Number, Message: ct.Reason, Fix: fix + closest(ct)})
			default:
				msg := fmt.Sprintf("source [%d] does not support the sentence (score %.2f)", ct.Number, ct.Score)
				if ct.Reason != "" {
					msg = fmt.Sprintf("source [%d] does not support the sentence: %s", ct.Number, ct.Reason)
				}
				fix := fmt.Sprintf("check the sentence against source [%d] (%s); reword it to what the source says, cite a source that supports it, or remove the citation", ct.Number, name(c.sources[ct.Number]))
				add(Problem{Line: ct.Line, Severity: Warning, Kind: ProblemUnsupported, Marker: ct.Marker, Number: ct.Number, Message: msg, Fix: fix + closest(ct)})
			}
		case Fabricated:
			s.Fabricated++
			src, ok := c.sources[ct.Number]
			switch {
			case c.kinds[i] == ProblemBadLocator:
				once(Problem{Line: ct.Line, Severity: Error, Kind: ProblemBadLocator, Marker: ct.Marker, Number: ct.Number,
					Message: fmt.Sprintf("%s: %s", ct.Marker, ct.Reason),
					Fix:     fmt.Sprintf("cite the page, row or slide of source [%d] the sentence came from, or cite [%d] without one", ct.Number, ct.Number)})
			case ct.Kind == KindRef && ct.Number == 0:
				once(Problem{Line: ct.Line, Severity: Error, Kind: ProblemNoSource, Marker: ct.Marker,
					Message: fmt.Sprintf("%s cites %s, which is not among the sources", ct.Marker, ct.Ref),
					Fix:     "remove the citation, or add the source it names (with its retrieved text) to the sources"})
			case !ok:
				once(Problem{Line: ct.Line, Severity: Error, Kind: ProblemNoSource, Marker: ct.Marker, Number: ct.Number,
					Message: fmt.Sprintf("citation [%d] names no source: the sources hold %s", ct.Number, numberList(c.order)),
					Fix:     fmt.Sprintf("remove [%d], or cite the source the sentence came from", ct.Number)})
			default:
				once(Problem{Line: ct.Line, Severity: Error, Kind: ProblemNotRetrieved, Marker: ct.Marker, Number: ct.Number,
					Message: fmt.Sprintf("source [%d] (%s) was never retrieved: it has no stored text", ct.Number, name(src)),
					Fix:     fmt.Sprintf("retrieve source [%d] and check the sentence against it, or remove the citation", ct.Number)})
			}
		case Matched, Fresh:
			if ct.Status == Fresh {
				s.Fresh++
			}
		case Unmatched:
			s.Unmatched++
			switch {
			case ct.Kind == KindRefID:
				add(Problem{Line: ct.Line, Severity: Error, Kind: ProblemUnknownRef, Marker: ct.Marker,
					Message: fmt.Sprintf("%s names no source: no source of the corpus carries that identifier", ct.Ref),
					Fix:     fmt.Sprintf("cite the source %s was meant to name, or give that source the identifier (ref: %s in its front matter)", ct.Ref, ct.Ref)})
			case ct.Kind == KindDOI && doiMalformed(ct.Ref):
				add(Problem{Line: ct.Line, Severity: Warning, Kind: ProblemBadDOI, Marker: ct.Marker,
					Message: fmt.Sprintf("DOI %s is not well formed (a DOI prefix is 10. and a registrant code of four digits or more) and no source carries it", ct.Ref),
					Fix:     "check the DOI against the work it names (https://doi.org/…), or remove it"})
			default:
				what := "DOI " + ct.Ref
				if ct.Kind == KindAuthorYear {
					what = ct.Marker
				}
				add(Problem{Line: ct.Line, Severity: Warning, Kind: ProblemUnmatched, Marker: ct.Marker,
					Message: fmt.Sprintf("%s is cited but no source carries it", what),
					Fix:     "add the work it names to the sources, or remove the reference"})
			}
		case Missing:
			s.Missing++
			fix := "point the reference at a file that exists, or remove it"
			if ct.Kind == KindMention {
				fix = "point the mention at a file that exists, or remove it"
			}
			add(Problem{Line: ct.Line, Severity: Error, Kind: ProblemFileMissing, Marker: ct.Marker,
				Message: fmt.Sprintf("%s: %s", ct.Marker, ct.Reason), Fix: fix})
		case Stale:
			s.Stale++
			add(Problem{Line: ct.Line, Severity: Warning, Kind: ProblemStale, Marker: ct.Marker,
				Message: fmt.Sprintf("%s: %s", ct.Marker, ct.Reason),
				Fix:     "re-read the cited lines; if they still support the sentence, update the hash, else fix the sentence"})
		case Unversioned:
			s.Unversioned++
			add(Problem{Line: ct.Line, Severity: Warning, Kind: ProblemUnversioned, Marker: ct.Marker,
				Message: fmt.Sprintf("%s: %s", ct.Marker, ct.Reason),
				Fix:     "add the file's content hash (sha256, first 16 hex digits) after an @"})
		case Unchecked:
			if ct.Kind == KindNumber || ct.Kind == KindRef || ct.Kind == KindRefID {
				unchecked = append(unchecked, ct)
				break
			}
			add(Problem{Line: ct.Line, Severity: Warning, Kind: ProblemUnchecked, Marker: ct.Marker,
				Message: fmt.Sprintf("%s: %s", ct.Marker, ct.Reason),
				Fix:     "give the project folder the paths are relative to"})
		}
		if src, ok := c.sources[ct.Number]; ok && ct.Link != "" && src.URL != "" && linkKey(ct.Link) != linkKey(src.URL) {
			once(Problem{Line: ct.Line, Severity: Warning, Kind: ProblemWrongLink, Marker: ct.Marker, Number: ct.Number,
				Message: fmt.Sprintf("%s links to %s, but source [%d] is %s", ct.Marker, ct.Link, ct.Number, src.URL),
				Fix:     fmt.Sprintf("link [%d] to %s, or cite the source the link names", ct.Number, src.URL)})
		}
		if beyond := c.beyond[ct.Offset]; ct.Kind == KindFile && beyond != "" && ct.Status != Missing {
			add(Problem{Line: ct.Line, Severity: Warning, Kind: ProblemBadLines, Marker: ct.Marker,
				Message: fmt.Sprintf("%s: %s", ct.Marker, beyond),
				Fix:     "cite lines that exist"})
		}
	}
	if len(unchecked) > 0 {
		add(Problem{Line: unchecked[0].Line, Severity: Warning, Kind: ProblemUnchecked, Marker: unchecked[0].Marker,
			Message: fmt.Sprintf("%s not checked: no sources were given", plural(len(unchecked), "citation")),
			Fix:     "give the sources the report cites (a JSON list, a folder of documents, or a stored run)"})
	}
	// What a cited source kept that does not hold: passages edited after
	// the check, or no longer in the source's text.
	for _, n := range citedOrder {
		for _, p := range c.issues[n] {
			p.Line, p.Marker, p.Number = firstLine[n], firstMarker[n], n
			add(p)
		}
	}
	// Duplicates: the numbers cited that name one resource.
	byKey := map[string]int{}
	for _, n := range citedOrder {
		src, ok := c.sources[n]
		if !ok {
			continue
		}
		k := sourceKey(src)
		if k == "" {
			continue
		}
		first, dup := byKey[k]
		if !dup {
			byKey[k] = n
			continue
		}
		s.Duplicates++
		add(Problem{Line: firstLine[n], Severity: Warning, Kind: ProblemDuplicate, Marker: firstMarker[n], Number: n,
			Message: fmt.Sprintf("[%d] (%s) and [%d] (%s) are the same resource", n, src.URL, first, c.sources[first].URL),
			Fix:     fmt.Sprintf("cite [%d] wherever [%d] is cited and drop source [%d]", first, n, n)})
	}
	for _, n := range c.order {
		if !cited[n] {
			s.Uncited++
		}
	}
	judged := s.Supported + s.Unsupported + s.Fabricated
	s.Score = 1
	if judged > 0 {
		s.Score = float64(s.Supported) / float64(judged)
	}
	if s.Citations == 0 {
		// Nothing checked is not a pass earned: say so (a strict check
		// fails on it).
		s.Score = 0
		what := "the report cites nothing"
		if strings.TrimSpace(c.report) == "" {
			what = "the report is empty"
		}
		add(Problem{Line: 1, Severity: Warning, Kind: ProblemNothing, Message: what + ": there was nothing to verify",
			Fix: "cite the sources each claim rests on ([1], [2], …), or check the file you meant"})
	}
}

// attributionRe matches the words that open a sentence drawn from one's
// own knowledge base, as seed 003's answers name it: "According to our
// product catalog, ", "Based on our FAQ, ", "From our troubleshooting
// guide, ".
var attributionRe = regexp.MustCompile(`^(?:According to|Based on|From) our \pL[\pL ._'-]{0,60}, `) // no figure: a figure is a claim

// unattributed is a citing sentence without the words that name the
// knowledge base it was drawn from (attributionRe): they name the source,
// they claim nothing, so the source need not hold them.
func unattributed(sentence string) string {
	if loc := attributionRe.FindStringIndex(sentence); loc != nil && strings.TrimSpace(sentence[loc[1]:]) != "" {
		return sentence[loc[1]:]
	}
	return sentence
}

// knowledgeBase reports whether src is a document of one's own knowledge
// base — a local document or a Chroma record — whose citing sentences may
// name it ("According to our FAQ, "): a web page cited so is not "ours",
// and the sentence is checked whole.
func knowledgeBase(src Source) bool {
	return src.Type == source.TypeChroma || source.Source{ID: src.ID, URL: src.URL}.Kind() == source.KindLocal
}

// closest is a fix's mention of the citation's closest passage in its
// source, when it has one.
func closest(ct Citation) string {
	if ct.Evidence == nil || ct.Evidence.Quote == "" {
		return ""
	}
	return fmt.Sprintf("; its closest passage: %q", clip(ct.Evidence.Quote, 160))
}

// add records a problem and counts it.
func (r *Result) add(p Problem) {
	r.Problems = append(r.Problems, p)
	if p.Severity == Error {
		r.Summary.Errors++
	} else {
		r.Summary.Warnings++
	}
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && s[cut]&0xC0 == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

func numberList(ns []int) string {
	if len(ns) == 0 {
		return "none"
	}
	var b strings.Builder
	for i, n := range ns {
		if i > 0 {
			b.WriteString(", ")
		}
		if i == 8 && len(ns) > 9 {
			fmt.Fprintf(&b, "… %d", ns[len(ns)-1])
			break
		}
		fmt.Fprintf(&b, "[%d]", n)
	}
	return b.String()
}

// linkKey compares link targets: canonically when the URL allows it.
func linkKey(u string) string {
	if k := canon.Key(u); k != "" {
		return k
	}
	return u
}

// matchRef gives the verdict on a DOI, author-year reference or REF
// identifier: whether a source carries it. Verdicts are cached by
// reference.
func (c *checker) matchRef(f found) Status {
	if c.opts.NoSources {
		return Unchecked
	}
	k := string(f.kind) + ":" + f.ref
	if f.kind == KindDOI {
		k = strings.ToLower(k) // DOIs are case-insensitive
	}
	m, ok := c.matched[k]
	if !ok {
		m = match{status: Unmatched}
		var n int
		switch f.kind {
		case KindDOI:
			n = c.findDOI(strings.ToLower(f.ref))
		case KindAuthorYear:
			n = c.findAuthorYear(f.authors, f.year)
		case KindRefID:
			n = c.findRefID(f.ref)
		}
		if n > 0 {
			m = match{status: Matched, number: n}
		}
		c.matched[k] = m
	}
	return m.status
}

// matchedSource returns the number of the source that carries a matched
// DOI, author-year reference or REF identifier; 0 when none does.
func (c *checker) matchedSource(ct Citation) int {
	k := string(ct.Kind) + ":" + ct.Ref
	if ct.Kind == KindDOI {
		k = strings.ToLower(k)
	}
	return c.matched[k].number
}

// findDOI returns the number of a source that carries the DOI (in its
// URL, ID or text), or 0.
func (c *checker) findDOI(d string) int {
	if c.lowered == nil {
		for _, n := range c.order {
			s := c.sources[n]
			c.lowered = append(c.lowered, strings.ToLower(s.URL+"\n"+s.ID+"\n"+c.judged[n]))
		}
	}
	for i, h := range c.lowered {
		if strings.Contains(h, d) {
			return c.order[i]
		}
	}
	return 0
}

// doiMalformed reports whether a DOI's registrant code is shorter than
// the four digits every registrant has.
func doiMalformed(doi string) bool {
	reg, _, _ := strings.Cut(strings.TrimPrefix(doi, "10."), "/")
	reg, _, _ = strings.Cut(reg, ".")
	return len(reg) < 4
}

// findAuthorYear returns the number of a source that names every author
// (as a word) and the year, or 0.
func (c *checker) findAuthorYear(authors []string, year string) int {
	res := make([]*regexp.Regexp, len(authors))
	for i, a := range authors {
		res[i] = regexp.MustCompile(`\b` + regexp.QuoteMeta(a) + `\b`)
	}
	for _, n := range c.order {
		s := c.sources[n]
		all := s.Title + "\n" + s.ID + "\n" + c.judged[n]
		if !strings.Contains(all, year) {
			continue
		}
		ok := true
		for i, a := range authors {
			ok = ok && strings.Contains(all, a) && res[i].MatchString(all)
		}
		if ok {
			return n
		}
	}
	return 0
}

// findRefID returns the number of the source a REF identifier names: the
// one whose Ref is the identifier, or whose ID or file name starts with it
// ("REF-123-survey.md"); 0 when none does.
func (c *checker) findRefID(id string) int {
	named := func(s string) bool {
		rest, ok := strings.CutPrefix(strings.ToUpper(s), id)
		return ok && (rest == "" || rest[0] < '0' || rest[0] > '9')
	}
	for _, n := range c.order {
		s := c.sources[n]
		if strings.EqualFold(s.Ref, id) || named(path.Base(s.ID)) || named(path.Base(s.URL)) {
			return n
		}
	}
	return 0
}

// judgedText returns the text a source is judged against: its Text, else
// its intact passages separated by blank lines. What it kept that does not
// hold goes to c.issues: a passage that does not hash to its SHA-256 (an
// edit after the check: an error), and, when the Text given is not the
// text read (its hash differs: a corpus file read again, a page that
// changed), passages no longer found in it (a warning).
func (c *checker) judgedText(s Source) string {
	var intact []source.Passage
	for i, p := range s.Passages {
		ok := p.Intact()
		if ok && s.Text != "" && s.TextSHA256 != "" && sourcetext.SHA256(s.Text) == s.TextSHA256 {
			// The very text that was read: the passage must be its
			// bytes at its offsets.
			ok = p.Start >= 0 && p.Start <= p.End && p.End <= len(s.Text) && s.Text[p.Start:p.End] == p.Text
		}
		if !ok {
			c.issues[s.Number] = append(c.issues[s.Number], Problem{Severity: Error, Kind: ProblemAltered,
				Message: fmt.Sprintf("passage %d of source [%d] (bytes %d-%d) is not what was read: its text does not match its SHA-256 or its place in the source", i+1, s.Number, p.Start, p.End),
				Fix:     "the report's kept passages were edited after the check: take them from the run again (deepresearch show ID --format json), or check against the source itself (--run ID, --corpus)"})
			continue
		}
		intact = append(intact, p)
	}
	if strings.TrimSpace(s.Text) != "" {
		if s.TextSHA256 != "" && len(intact) > 0 && sourcetext.SHA256(s.Text) != s.TextSHA256 {
			text := strings.Join(strings.Fields(s.Text), " ")
			gone := 0
			for _, p := range intact {
				if !strings.Contains(text, strings.Join(strings.Fields(p.Text), " ")) {
					gone++
				}
			}
			if gone > 0 {
				c.issues[s.Number] = append(c.issues[s.Number], Problem{Severity: Warning, Kind: ProblemChanged,
					Message: fmt.Sprintf("source [%d] (%s) is not the text that was read, and %d of the %d passages its citations were checked against are no longer in it", s.Number, name(s), gone, len(intact)),
					Fix:     "re-read the source and check that the sentences citing it still hold"})
			}
		}
		return s.Text
	}
	texts := make([]string, len(intact))
	for i, p := range intact {
		texts[i] = p.Text
	}
	return strings.Join(texts, "\n\n")
}

// fileMeta is what verification reads of a file a report refers to: its
// content hash, and its grade and type from its front matter.
type fileMeta struct {
	hash        string
	grade, kind string
}

// fileMeta reads (once) the file at p under opts.Files; the zero fileMeta
// when it cannot be read.
func (c *checker) fileMeta(p string) fileMeta {
	p = path.Clean(strings.TrimPrefix(p, "./"))
	if m, ok := c.files[p]; ok {
		return m
	}
	var m fileMeta
	if c.opts.Files != nil && fs.ValidPath(p) {
		if b, err := fs.ReadFile(c.opts.Files, p); err == nil {
			fm := frontMatter(string(b))
			m = fileMeta{hash: ContentHash(b), grade: fm.grade, kind: fm.typ}
		}
	}
	c.files[p] = m
	return m
}

// mentionVerdict checks an @-mention against opts.Files: a file or folder
// that exists, or a glob that some file matches. Verdicts are cached by
// path.
func (c *checker) mentionVerdict(p string) (Status, string) {
	m, ok := c.mentions[p]
	if !ok {
		m.status, m.reason = c.findMention(p)
		c.mentions[p] = m
	}
	return m.status, m.reason
}

func (c *checker) findMention(p string) (Status, string) {
	if c.opts.Files == nil {
		return Unchecked, "no project folder to check the file against"
	}
	p = path.Clean(strings.TrimPrefix(p, "./"))
	if !fs.ValidPath(p) {
		return Missing, "not a path inside the project"
	}
	if strings.Contains(p, "*") {
		matches, err := fs.Glob(c.opts.Files, p)
		if err != nil || len(matches) == 0 {
			return Missing, "no file matches"
		}
		return Matched, ""
	}
	if _, err := fs.Stat(c.opts.Files, p); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Missing, "no such file"
		}
		return Missing, fmt.Sprintf("cannot be read: %v", err)
	}
	return Matched, ""
}

// ContentHash is the hash a file reference carries: the first 16 hex
// digits of the SHA-256 of the file's bytes.
func ContentHash(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])[:16]
}

// fileVerdict checks a file reference against opts.Files.
func (c *checker) fileVerdict(f found) (Status, string) {
	if c.opts.Files == nil {
		return Unchecked, "no project folder to check the file against"
	}
	p := path.Clean(strings.TrimPrefix(f.ref, "./"))
	if !fs.ValidPath(p) {
		return Missing, "not a path inside the project"
	}
	b, err := fs.ReadFile(c.opts.Files, p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Missing, "no such file"
		}
		return Missing, fmt.Sprintf("cannot be read: %v", err)
	}
	if beyond := linesBeyond(f, b); beyond != "" {
		c.beyond[f.off] = beyond
	}
	if f.hash == "" {
		return Unversioned, "the file exists but the reference has no content hash"
	}
	full := sha256.Sum256(b)
	cur := ContentHash(b)
	if strings.HasPrefix(hex.EncodeToString(full[:]), f.hash) {
		return Fresh, ""
	}
	return Stale, fmt.Sprintf("the file changed since it was cited (current hash %s)", cur)
}

// linesBeyond says what of a file reference's line range the file b does
// not hold ("line 88 is beyond its 2 lines", "lines 9-12 are beyond its
// 2 lines", "lines 7-3 run backwards"); "" when all of it is there or no
// lines are cited.
func linesBeyond(f found, b []byte) string {
	if f.lineHi == 0 {
		return ""
	}
	n := strings.Count(string(b), "\n")
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	switch {
	case f.lineLo > f.lineHi:
		return fmt.Sprintf("lines %s run backwards", f.lines)
	case f.lineHi <= n:
		return ""
	case f.lineLo == f.lineHi:
		return fmt.Sprintf("line %s is beyond its %s", f.lines, plural(n, "line"))
	}
	return fmt.Sprintf("lines %s are beyond its %s", f.lines, plural(n, "line"))
}
