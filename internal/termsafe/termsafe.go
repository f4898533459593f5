// Package termsafe is the one filter of what the program prints: text it
// prints may come from outside — a question sent over HTTP, a page's
// words quoted in a report, a stored run's error, a tampered run pack —
// and a terminal acts on control characters: escape sequences move the
// cursor, retitle the window, hide what follows. The CLI's output and its
// log pass through Text (text) or JSON (JSON) first.
package termsafe

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Control reports whether r is a control character a terminal acts on:
// C0 but tab and newline, DEL, C1.
func Control(r rune) bool {
	return r < 0x20 && r != '\t' && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0
}

// Text drops from s the control characters a terminal acts on, and bytes
// that are not UTF-8 and could read as C1 controls (0x80-0x9F).
func Text(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return Control(r) || r == utf8.RuneError }) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1 && s[i] < 0xa0:
		case Control(r):
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// JSON writes the DEL and C1 characters of the JSON document b (which
// encoding/json leaves raw; C0 it escapes) as \u escapes: the same JSON
// value, nothing a terminal acts on. Such characters can only be in
// strings, where the escapes mean them.
func JSON(b []byte) []byte {
	s := string(b)
	if !strings.ContainsFunc(s, Control) {
		return b
	}
	var out strings.Builder
	for _, r := range s {
		if Control(r) {
			fmt.Fprintf(&out, `\u%04x`, r)
			continue
		}
		out.WriteRune(r)
	}
	return []byte(out.String())
}

// Writer writes what it is given through Text, or JSON: each Write must be
// whole lines or documents (as fmt's, encoding/json's and zerolog's writes
// are), so that no character is split.
type Writer struct {
	W    io.Writer
	JSON bool
}

func (p Writer) Write(b []byte) (int, error) {
	out := JSON(b)
	if !p.JSON {
		out = []byte(Text(string(b)))
	}
	if _, err := p.W.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}
