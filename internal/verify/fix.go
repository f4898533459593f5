package verify

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// edit replaces report[off:off+len] with text.
type edit struct {
	off, len int
	text     string
}

// fix applies opts.Fix to the report: per marker, the numbers to remove go
// (the marker too when none is left, with the blanks before it), and the
// numbers to flag get a note after the marker. With Fix.Annotate a removal
// leaves a comment saying why, and the notes of file references,
// unmatched references and the prose checks (the edits given) are added.
func (c *checker) fix(res *Result, prose []edit) string {
	if c.opts.Fix == (Fix{}) {
		return c.report
	}
	edits := c.markerEdits(res)
	if c.opts.Fix.Annotate {
		edits = append(edits, c.noteEdits(res)...)
		edits = append(edits, prose...)
	}
	// In report order; an insertion before a replacement at one offset.
	slices.SortStableFunc(edits, func(a, b edit) int { return cmp.Or(a.off-b.off, a.len-b.len) })
	var b strings.Builder
	at := 0
	for _, e := range edits {
		if e.off < at {
			continue // overlaps an edit made
		}
		b.WriteString(c.report[at:e.off])
		b.WriteString(e.text)
		at = e.off + e.len
	}
	b.WriteString(c.report[at:])
	return b.String()
}

// markerEdits rewrites the markers of numbered citations as Fix says.
func (c *checker) markerEdits(res *Result) []edit {
	type markerFix struct {
		marker        string
		nums, removed []int
		why           []string // why each removed number went
		ref           bool
		flags         map[string][]int
	}
	byOff := map[int]*markerFix{}
	var offs []int
	for _, ct := range res.Citations {
		if ct.Kind != KindNumber && ct.Kind != KindRef {
			continue
		}
		mf := byOff[ct.Offset]
		if mf == nil {
			mf = &markerFix{marker: ct.Marker, ref: ct.Kind == KindRef, flags: map[string][]int{}}
			byOff[ct.Offset] = mf
			offs = append(offs, ct.Offset)
		}
		mf.nums = append(mf.nums, ct.Number)
		var act Action
		var note, why string
		switch ct.Status {
		case Fabricated:
			act, note = c.opts.Fix.Fabricated, "no source"
			why = fmt.Sprintf("no source %d among the sources", ct.Number)
			if ct.Number == 0 {
				why = "no source has its URL"
			} else if _, ok := c.sources[ct.Number]; ok {
				note, why = "not retrieved", fmt.Sprintf("source %d was never retrieved", ct.Number)
			}
		case Unsupported:
			act, note = c.opts.Fix.Unsupported, "unsupported"
			why = fmt.Sprintf("source %d does not support the sentence", ct.Number)
		}
		switch act {
		case Remove:
			mf.removed = append(mf.removed, ct.Number)
			mf.why = append(mf.why, why)
		case Flag:
			mf.flags[note] = append(mf.flags[note], ct.Number)
		}
	}
	var edits []edit
	for _, off := range offs {
		mf := byOff[off]
		var keep []int
		for _, n := range mf.nums {
			if !slices.Contains(mf.removed, n) {
				keep = append(keep, n)
			}
		}
		text := mf.marker
		switch {
		case len(keep) == 0:
			text = ""
		case len(keep) < len(mf.nums) && !mf.ref:
			text = rewriteMarker(mf.marker, keep)
		}
		var notes []string
		for _, note := range []string{"no source", "not retrieved", "unsupported"} {
			if ns := mf.flags[note]; len(ns) > 0 && text != "" {
				notes = append(notes, fmt.Sprintf(" [%s: %s]", note, joinInts(ns)))
			}
		}
		text += strings.Join(notes, "")
		if text == mf.marker {
			continue
		}
		var note string
		if c.opts.Fix.Annotate && len(mf.removed) > 0 {
			removed := mf.marker
			if len(keep) > 0 && !mf.ref {
				removed = rewriteMarker(mf.marker, mf.removed)
			}
			note = comment("removed " + removed + ": " + strings.Join(mf.why, "; "))
		}
		edits = append(edits, c.replaceMarker(off, len(mf.marker), text, note)...)
	}
	return edits
}

// replaceMarker replaces the citation at report[off:off+n] with text,
// followed by note (an HTML comment, or ""). A citation deleted takes the
// blanks before it along, unless it starts its line; there the note goes
// to the end of the line, since a comment opening a line would open an
// HTML block and hide the rest of the line's markdown.
func (c *checker) replaceMarker(off, n int, text, note string) []edit {
	e := edit{off: off, len: n, text: text + note}
	if text != "" {
		return []edit{e}
	}
	if c.joins(off, off+n) {
		// Deleting it would join brackets around it into a new marker
		// ("[1[9]0]"): escape it instead, visible and inert.
		inner := strings.TrimSuffix(strings.TrimPrefix(c.report[off:off+n], "["), "]")
		e.text = `\[` + inner + `\]` + note
		return []edit{e}
	}
	lo := off
	for lo > 0 && (c.report[lo-1] == ' ' || c.report[lo-1] == '\t') {
		lo--
	}
	if lo > 0 && c.report[lo-1] != '\n' {
		e.len += off - lo
		e.off = lo
		return []edit{e}
	}
	e.text = ""
	out := []edit{e}
	if note != "" {
		eol := strings.IndexByte(c.report[off:], '\n')
		if eol < 0 {
			eol = len(c.report) - off
		}
		out = append(out, edit{off: off + eol, text: " " + note})
	}
	return out
}

// noteEdits are the notes Fix.Annotate leaves on file references,
// @-mentions and unmatched references, and the removal of file references
// to files that do not exist (Fix.Fabricated).
func (c *checker) noteEdits(res *Result) []edit {
	var edits []edit
	after := func(ct Citation, note string) {
		end := ct.Offset + ct.Len
		if !strings.HasPrefix(c.report[end:], " "+note[:strings.IndexByte(note, ':')]) {
			edits = append(edits, edit{off: end, text: " " + note})
		}
	}
	for _, ct := range res.Citations {
		switch {
		case ct.Kind == KindFile && ct.Status == Stale:
			after(ct, staleNote)
		case ct.Kind == KindFile && ct.Status == Missing:
			switch c.opts.Fix.Fabricated {
			case Remove:
				edits = append(edits, c.replaceMarker(ct.Offset, ct.Len, "", comment("removed "+ct.Marker+": "+ct.Reason))...)
			case Flag:
				after(ct, missingNote)
			}
		case ct.Kind == KindMention && ct.Status == Missing:
			after(ct, missingNote)
		case ct.Status == Unmatched:
			after(ct, todoVerify)
		}
	}
	return edits
}

// joins reports whether deleting report[lo:hi] could join what surrounds
// it into a new marker: an opening bracket before it on its line is still
// open, or a closing bracket follows it.
func (c *checker) joins(lo, hi int) bool {
	line := c.report[strings.LastIndexByte(c.report[:lo], '\n')+1 : lo]
	open := strings.Count(line, "[") + strings.Count(line, "【") + strings.Count(line, "［")
	shut := strings.Count(line, "]") + strings.Count(line, "】") + strings.Count(line, "］")
	after := c.report[hi:]
	return open > shut || strings.HasPrefix(after, "]") || strings.HasPrefix(after, "】") || strings.HasPrefix(after, "］")
}

// rewriteMarker writes keep in the marker's own bracket style: what comes
// before its first digit, the numbers, and what follows its last digit.
func rewriteMarker(marker string, keep []int) string {
	first := strings.IndexFunc(marker, isDigitRune)
	last := strings.LastIndexFunc(marker, isDigitRune)
	if first < 0 {
		return marker
	}
	_, size := utf8.DecodeRuneInString(marker[last:])
	open, close := marker[:first], marker[last+size:]
	if strings.HasPrefix(open, "[^") {
		// Footnotes cite one number each: [^1][^2].
		var b strings.Builder
		for _, n := range keep {
			fmt.Fprintf(&b, "[^%d]", n)
		}
		return b.String()
	}
	return open + joinInts(keep) + close
}

func isDigitRune(r rune) bool { return r >= '0' && r <= '9' || r >= '０' && r <= '９' }

func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, ", ")
}
