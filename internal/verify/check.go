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
	"strings"

	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/internal/citeproc"
)

type checker struct {
	report  string
	sources map[int]Source
	order   []int // source numbers, ascending
	opts    Options
	lines   lineIndex
	mapping *citeproc.Mapping
	matched map[string]Status // DOI and author-year verdicts, by reference
	lowered []string          // the sources' URL, ID and text, lower-cased, for DOIs
}

func newChecker(report string, sources []Source, opts Options) (*checker, error) {
	c := &checker{report: report, sources: map[int]Source{}, opts: opts, lines: newLineIndex(report), matched: map[string]Status{}}
	c.mapping = citeproc.NewMapping(canon.Key)
	for i, s := range sources {
		if s.Number < 1 {
			return nil, fmt.Errorf("%w: source %d (%q): number %d must be 1 or more", ErrSources, i+1, name(s), s.Number)
		}
		if old, dup := c.sources[s.Number]; dup {
			return nil, fmt.Errorf("%w: number %d names two sources, %q and %q", ErrSources, s.Number, name(old), name(s))
		}
		c.sources[s.Number] = s
		c.order = append(c.order, s.Number)
		if err := c.mapping.Add(s.Number, citeproc.Source{ID: s.ID, URL: s.URL, Title: s.Title}); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrSources, err)
		}
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

func (c *checker) run(ctx context.Context) (*Result, error) {
	cits, err := findCitations(c.report, c.mapping, func() *layout { return parseLayout([]byte(c.report)) })
	if err != nil {
		return nil, err
	}
	attachSentences(c.report, cits)
	res := &Result{Citations: []Citation{}, Problems: []Problem{}}
	// Numbered citations: resolve, then judge the retrieved ones in one
	// call.
	type pending struct{ cit, claim int }
	var claims []Claim
	claimIdx := map[[2]string]int{}
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
				src, ok := c.sources[n]
				switch {
				case !ok || strings.TrimSpace(src.Text) == "":
					ct.Status = Fabricated
				case strings.TrimSpace(f.sentence) == "":
					ct.Status = Unsupported
					ct.Reason = "no sentence precedes the marker"
				default:
					k := [2]string{f.sentence, fmt.Sprint(n)}
					ci, seen := claimIdx[k]
					if !seen {
						ci = len(claims)
						claimIdx[k] = ci
						claims = append(claims, Claim{Sentence: f.sentence, Source: src})
					}
					waits = append(waits, pending{len(res.Citations), ci})
				}
				res.Citations = append(res.Citations, ct)
			}
		case KindDOI:
			base.Ref = f.ref
			base.Status = c.matchDOI(f.ref)
			res.Citations = append(res.Citations, base)
		case KindAuthorYear:
			base.Ref = f.ref
			base.Status = c.matchAuthorYear(f.author, f.year)
			res.Citations = append(res.Citations, base)
		case KindFile:
			base.Ref = f.ref
			st, reason := c.fileVerdict(f)
			base.Status, base.Reason = st, reason
			res.Citations = append(res.Citations, base)
		}
	}
	read, total := map[int]bool{}, 0
	for _, cl := range claims {
		if !read[cl.Source.Number] {
			read[cl.Source.Number] = true
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
	c.problems(res)
	res.Fixed = c.fix(res)
	return res, nil
}

// problems fills res.Problems and res.Summary from res.Citations.
func (c *checker) problems(res *Result) {
	s := &res.Summary
	add := func(p Problem) {
		res.Problems = append(res.Problems, p)
		if p.Severity == Error {
			s.Errors++
		} else {
			s.Warnings++
		}
	}
	cited := map[int]bool{}
	firstLine := map[int]int{}
	firstMarker := map[int]string{}
	var citedOrder []int
	reported := map[string]bool{} // one problem per (kind, number) on a line
	for _, ct := range res.Citations {
		s.Citations++
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
			msg := fmt.Sprintf("source [%d] does not support the sentence (score %.2f)", ct.Number, ct.Score)
			if ct.Reason != "" {
				msg = fmt.Sprintf("source [%d] does not support the sentence: %s", ct.Number, ct.Reason)
			}
			fix := fmt.Sprintf("check the sentence against source [%d] (%s); reword it to what the source says, cite a source that supports it, or remove the citation", ct.Number, name(c.sources[ct.Number]))
			if ct.Evidence != nil && ct.Evidence.Quote != "" {
				fix += fmt.Sprintf("; its closest passage: %q", clip(ct.Evidence.Quote, 160))
			}
			add(Problem{Line: ct.Line, Severity: Warning, Kind: ProblemUnsupported, Marker: ct.Marker, Number: ct.Number, Message: msg, Fix: fix})
		case Fabricated:
			s.Fabricated++
			src, ok := c.sources[ct.Number]
			switch {
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
			what := "DOI " + ct.Ref
			if ct.Kind == KindAuthorYear {
				what = ct.Marker
			}
			add(Problem{Line: ct.Line, Severity: Warning, Kind: ProblemUnmatched, Marker: ct.Marker,
				Message: fmt.Sprintf("%s is cited but no source carries it", what),
				Fix:     "add the work it names to the sources, or remove the reference"})
		case Missing:
			s.Missing++
			add(Problem{Line: ct.Line, Severity: Error, Kind: ProblemFileMissing, Marker: ct.Marker,
				Message: fmt.Sprintf("%s: %s", ct.Marker, ct.Reason),
				Fix:     "point the reference at a file that exists, or remove it"})
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
			add(Problem{Line: ct.Line, Severity: Warning, Kind: ProblemUnchecked, Marker: ct.Marker,
				Message: fmt.Sprintf("%s: %s", ct.Marker, ct.Reason),
				Fix:     "give the project folder the paths are relative to"})
		}
		if src, ok := c.sources[ct.Number]; ok && ct.Link != "" && src.URL != "" && linkKey(ct.Link) != linkKey(src.URL) {
			once(Problem{Line: ct.Line, Severity: Warning, Kind: ProblemWrongLink, Marker: ct.Marker, Number: ct.Number,
				Message: fmt.Sprintf("%s links to %s, but source [%d] is %s", ct.Marker, ct.Link, ct.Number, src.URL),
				Fix:     fmt.Sprintf("link [%d] to %s, or cite the source the link names", ct.Number, src.URL)})
		}
		if ct.Kind == KindFile && strings.Contains(ct.Reason, "beyond") && ct.Status != Missing {
			add(Problem{Line: ct.Line, Severity: Warning, Kind: ProblemBadLines, Marker: ct.Marker,
				Message: fmt.Sprintf("%s: %s", ct.Marker, ct.Reason),
				Fix:     "cite lines that exist"})
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
	slices.SortStableFunc(res.Problems, func(a, b Problem) int { return a.Line - b.Line })
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

// matchDOI reports whether a source carries the DOI (in its URL, ID or
// text; DOIs are case-insensitive).
func (c *checker) matchDOI(doi string) Status {
	d := strings.ToLower(doi)
	if st, ok := c.matched["doi:"+d]; ok {
		return st
	}
	st := c.findDOI(d)
	c.matched["doi:"+d] = st
	return st
}

func (c *checker) findDOI(d string) Status {
	if c.lowered == nil {
		for _, n := range c.order {
			s := c.sources[n]
			c.lowered = append(c.lowered, strings.ToLower(s.URL+"\n"+s.ID+"\n"+s.Text))
		}
	}
	for _, h := range c.lowered {
		if strings.Contains(h, d) {
			return Matched
		}
	}
	return Unmatched
}

// matchAuthorYear reports whether a source names the author (as a word)
// and the year.
func (c *checker) matchAuthorYear(author, year string) Status {
	k := "ay:" + author + "\x00" + year
	if st, ok := c.matched[k]; ok {
		return st
	}
	st := c.findAuthorYear(author, year)
	c.matched[k] = st
	return st
}

func (c *checker) findAuthorYear(author, year string) Status {
	re := regexp.MustCompile(`\b` + regexp.QuoteMeta(author) + `\b`)
	for _, n := range c.order {
		s := c.sources[n]
		all := s.Title + "\n" + s.ID + "\n" + s.Text
		if strings.Contains(all, author) && strings.Contains(all, year) && re.MatchString(all) {
			return Matched
		}
	}
	return Unmatched
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
	var beyond string
	if f.lineHi > 0 {
		n := strings.Count(string(b), "\n")
		if len(b) > 0 && b[len(b)-1] != '\n' {
			n++
		}
		if f.lineHi > n || f.lineLo > f.lineHi {
			beyond = fmt.Sprintf("; lines %s are beyond its %d lines", f.lines, n)
		}
	}
	if f.hash == "" {
		return Unversioned, "the file exists but the reference has no content hash" + beyond
	}
	full := sha256.Sum256(b)
	cur := ContentHash(b)
	if strings.HasPrefix(hex.EncodeToString(full[:]), f.hash) {
		return Fresh, strings.TrimPrefix(beyond, "; ")
	}
	return Stale, fmt.Sprintf("the file changed since it was cited (current hash %s)", cur) + beyond
}
