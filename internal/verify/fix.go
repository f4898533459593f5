package verify

import (
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
// numbers to flag get a note after the marker.
func (c *checker) fix(res *Result) string {
	if c.opts.Fix == (Fix{}) {
		return c.report
	}
	type markerFix struct {
		marker        string
		nums, removed []int
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
		var note string
		switch ct.Status {
		case Fabricated:
			act, note = c.opts.Fix.Fabricated, "no source"
			if _, ok := c.sources[ct.Number]; ok {
				note = "not retrieved"
			}
		case Unsupported:
			act, note = c.opts.Fix.Unsupported, "unsupported"
		}
		switch act {
		case Remove:
			mf.removed = append(mf.removed, ct.Number)
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
		e := edit{off: off, len: len(mf.marker), text: text}
		if text == "" && c.joins(off, off+len(mf.marker)) {
			// Deleting it would join brackets around it into a new
			// marker ("[1[9]0]"): escape it instead, visible and inert.
			inner := strings.TrimSuffix(strings.TrimPrefix(mf.marker, "["), "]")
			e.text = `\[` + inner + `\]`
		} else if text == "" {
			// Take the blanks before the marker with it, unless it starts
			// its line.
			lo := off
			for lo > 0 && (c.report[lo-1] == ' ' || c.report[lo-1] == '\t') {
				lo--
			}
			if lo > 0 && c.report[lo-1] != '\n' {
				e.len += off - lo
				e.off = lo
			}
		}
		edits = append(edits, e)
	}
	var b strings.Builder
	at := 0
	for _, e := range edits {
		if e.off < at {
			continue
		}
		b.WriteString(c.report[at:e.off])
		b.WriteString(e.text)
		at = e.off + e.len
	}
	b.WriteString(c.report[at:])
	return b.String()
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
