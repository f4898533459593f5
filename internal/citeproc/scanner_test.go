package citeproc

import (
	"fmt"
	"strings"
	"testing"
)

// tokenLog is a consumer that writes the scanner's tokens down, one a
// line, merging adjacent text (and adjacent code), since where a chunk
// boundary splits a run is not part of the contract.
type tokenLog struct {
	// hold, if set, is the scanner's hold flag: the log plays a consumer
	// that drops every marker, so it sets the flag at a marker and clears
	// it at the next text, code or delimiter run.
	hold *bool
	b    strings.Builder
	kind string
	run  []byte
}

func (l *tokenLog) add(kind string, b []byte) {
	if l.hold != nil {
		*l.hold = false
	}
	if kind != l.kind {
		l.end()
		l.kind = kind
	}
	l.run = append(l.run, b...)
}

func (l *tokenLog) end() {
	if l.kind != "" {
		fmt.Fprintf(&l.b, "%s %q\n", l.kind, l.run)
	}
	l.kind, l.run = "", l.run[:0]
}

func (l *tokenLog) text(b []byte) { l.add("text", b) }
func (l *tokenLog) code(b []byte) { l.add("code", b) }
func (l *tokenLog) blank(c byte)  { l.end(); fmt.Fprintf(&l.b, "blank %q\n", c) }
func (l *tokenLog) delim(run []byte, closing bool) {
	l.end()
	if l.hold != nil {
		*l.hold = false
	}
	fmt.Fprintf(&l.b, "delim %q closing=%v\n", run, closing)
}
func (l *tokenLog) marker(c *candidate) {
	l.end()
	fmt.Fprintf(&l.b, "marker %q at %d", c.raw, c.at)
	if c.def {
		l.b.WriteString(" def")
	}
	if c.inBrackets {
		l.b.WriteString(" in-brackets")
	}
	l.b.WriteString("\n")
	if l.hold != nil {
		*l.hold = true
	}
}

// The scanner alone: prose, code and marker candidates, the same for any
// chunking (bulk, one byte at a time, two bytes at a time on even and odd
// boundaries).
func TestScannerTokens(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		relabel  bool
		hold     bool
		want     string
	}{
		{name: "prose and markers", in: "A [1] b [2, 3].", want: `text "A "
marker "[1]" at 2
text " b "
marker "[2, 3]" at 8
text "."
`},
		{name: "code is code", in: "x `[1]` y\n```\n[2]\n```\n[3] <!-- [4] --> <https://e.example/[5]>", want: `text "x "
code "` + "`[1]`" + `"
text " y\n"
code "` + "```\\n[2]\\n```\\n" + `"
marker "[3]" at 22
text " "
code "<!-- [4] -->"
text " "
code "<https://e.example/[5]>"
`},
		{name: "links and images are code", in: "[see [1]](u) ![a](p.png) [x][2]", want: `code "[see [1]](u)"
text " "
code "![a](p.png)"
text " "
code "[x][2]"
`},
		{name: "renumber reads reference labels", in: "[x][2]", relabel: true, want: `code "[x]"
marker "[2]" at 3
`},
		{name: "definitions", in: "[1]: https://e.example/ \"t [2]\"\n[3]", want: `code "[1]: https://e.example/ \"t [2]\"\n"
marker "[3]" at 32
`},
		{name: "definitions relabelled", in: "[1]: https://e.example/\n", relabel: true, want: `marker "[1]" at 0 def
code ": https://e.example/\n"
`},
		{name: "fence in a list item", in: "- ```\n  [1]\n  ```\n- [2]", want: `text "- "
code "` + "```\\n  [1]\\n  ```\\n" + `"
text "- "
marker "[2]" at 20
`},
		{name: "inside brackets", in: "(see [a [9]])", want: `text "(see [a "
marker "[9]" at 8 in-brackets
text "])"
`},
		{name: "held blanks and delimiters", in: "a [9] **b** [9]  _c_ [9]** d", hold: true, want: `text "a "
marker "[9]" at 2
blank ' '
delim "**" closing=false
text "b** "
marker "[9]" at 12
blank ' '
blank ' '
delim "_" closing=false
text "c_ "
marker "[9]" at 21
delim "**" closing=true
text " d"
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, sp := range []struct {
				name  string
				first int
				size  int
			}{{"bulk", 0, 0}, {"bytes", 0, 1}, {"pairs-even", 0, 2}, {"pairs-odd", 1, 2}} {
				if got := scanChunks(tc.in, sp.first, sp.size, tc.relabel, tc.hold); got != tc.want {
					t.Errorf("%s: tokens\n%s\nwant\n%s", sp.name, got, tc.want)
				}
			}
		})
	}
}

// scanChunks scans in, split into a first chunk of first bytes, then
// chunks of size (0: all at once), and returns the token log. With hold,
// the log plays a consumer that drops every marker.
func scanChunks(in string, first, size int, relabel, hold bool) string {
	l := &tokenLog{}
	var held bool
	if hold {
		l.hold = &held
	}
	var s scanner
	s.init(l, relabel, &held)
	if size == 0 {
		size = len(in) + 1
	}
	if first > 0 && len(in) > 0 {
		s.write([]byte(in[:first]))
		in = in[first:]
	}
	for len(in) > 0 {
		k := min(size, len(in))
		s.write([]byte(in[:k]))
		in = in[k:]
	}
	s.close()
	l.end()
	return l.b.String()
}
