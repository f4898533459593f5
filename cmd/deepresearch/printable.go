package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/deepresearch/deepresearch"
)

// Text the CLI prints may come from outside — a question sent over HTTP, a
// page's words quoted in a report, a stored run's error — and a terminal
// acts on control characters: escape sequences move the cursor, retitle
// the window, hide what follows. What the CLI prints passes through
// printable (text) or printableJSON (JSON) first.

// terminalControl reports whether r is a control character a terminal
// acts on: C0 but tab and newline, DEL, C1.
func terminalControl(r rune) bool {
	return r < 0x20 && r != '\t' && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0
}

// printable drops from s the control characters a terminal acts on, and
// bytes that are not UTF-8 and could read as C1 controls (0x80-0x9F).
func printable(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return terminalControl(r) || r == utf8.RuneError }) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1 && s[i] < 0xa0:
		case terminalControl(r):
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// printableJSON writes the DEL and C1 characters of the JSON document b
// (which encoding/json leaves raw; C0 it escapes) as \u escapes: the same
// JSON value, nothing a terminal acts on. Such characters can only be in
// strings, where the escapes mean them.
func printableJSON(b []byte) []byte {
	s := string(b)
	if !strings.ContainsFunc(s, terminalControl) {
		return b
	}
	var out strings.Builder
	for _, r := range s {
		if terminalControl(r) {
			fmt.Fprintf(&out, `\u%04x`, r)
			continue
		}
		out.WriteRune(r)
	}
	return []byte(out.String())
}

// printableDoc is a rendered report made printable: a JSON format's
// characters escaped, any other's dropped.
func printableDoc(f deepresearch.Format, doc []byte) []byte {
	if f == deepresearch.FormatJSON || f == deepresearch.FormatCSL {
		return printableJSON(doc)
	}
	return []byte(printable(string(doc)))
}

// printableWriter writes what it is given through printable, or
// printableJSON: each Write must be whole lines or documents (as fmt's
// and encoding/json's writes are), so that no character is split.
type printableWriter struct {
	w    io.Writer
	json bool
}

func (p printableWriter) Write(b []byte) (int, error) {
	out := printableJSON(b)
	if !p.json {
		out = []byte(printable(string(b)))
	}
	if _, err := p.w.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}
