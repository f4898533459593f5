package extract

import (
	"strings"
	"unicode/utf8"
)

// Clean returns s without control characters, so that text from a corpus
// or a web page can be printed to a terminal and embedded in a report
// without acting on either:
//
//   - terminal escape sequences are removed whole: CSI (ESC [ 31m, and
//     the 8-bit CSI U+009B), the string sequences OSC, DCS, SOS, PM and
//     APC (ESC ] 0;title BEL, ending at BEL, ST, or the end of the line),
//     and the two- and three-byte ESC sequences (ESC c, ESC ( B);
//   - a carriage return, alone or before a line feed, becomes a line feed;
//   - form feed and vertical tab become a space;
//   - every other C0 control but tab and line feed, DEL (U+007F) and
//     every C1 control (U+0080–U+009F) is removed;
//   - each invalid UTF-8 byte becomes U+FFFD.
//
// Clean(Clean(s)) == Clean(s). A string with nothing to remove is returned
// as it is, without allocating; otherwise the cost is linear in len(s).
func Clean(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteRune(utf8.RuneError)
			i++
		case r == 0x1b:
			i = skipEscape(s, i+1)
		case r == 0x9b:
			i = skipCSI(s, i+n)
		case r == 0x90 || r == 0x98 || r == 0x9d || r == 0x9e || r == 0x9f:
			i = skipString(s, i+n)
		case r == '\r':
			b.WriteByte('\n')
			i++
			if i < len(s) && s[i] == '\n' {
				i++
			}
		case r == '\f' || r == '\v':
			b.WriteByte(' ')
			i++
		case r == '\t' || r == '\n':
			b.WriteByte(byte(r))
			i++
		case r < 0x20 || r >= 0x7f && r <= 0x9f:
			i += n
		default:
			b.WriteString(s[i : i+n])
			i += n
		}
	}
	return b.String()
}

// clean reports whether s is valid UTF-8 without a control character
// other than tab and line feed.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c < 0x20:
			if c != '\t' && c != '\n' {
				return false
			}
		case c == 0x7f:
			return false
		case c >= 0x80:
			return cleanRunes(s[i:])
		}
	}
	return true
}

func cleanRunes(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || r < 0x20 && r != '\t' && r != '\n' || r >= 0x7f && r <= 0x9f {
			return false
		}
		i += n
	}
	return true
}

// skipEscape returns the offset just past the escape sequence whose ESC
// ended just before s[i].
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch c := s[i]; {
	case c == '[':
		return skipCSI(s, i+1)
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		return skipString(s, i+1)
	case c >= 0x20 && c <= 0x2f: // intermediates, then one final byte
		for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
			i++
		}
		if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
			i++
		}
		return i
	case c >= 0x30 && c <= 0x7e: // ESC c, ESC 7, ESC =
		return i + 1
	}
	return i // a lone ESC
}

// skipCSI returns the offset just past a control sequence whose
// introducer ended just before s[i]: parameter bytes, intermediate bytes
// and one final byte. A byte that fits none ends the sequence and is kept.
func skipCSI(s string, i int) int {
	for i < len(s) && s[i] >= 0x30 && s[i] <= 0x3f {
		i++
	}
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipString returns the offset just past a control string (OSC, DCS, …)
// whose introducer ended just before s[i]: up to and including BEL, ST
// (ESC \ or U+009C), or up to but not including a line feed or the end.
func skipString(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == 0x07:
			return i + 1
		case s[i] == '\n':
			return i
		case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\':
			return i + 2
		case s[i] == 0xc2 && i+1 < len(s) && s[i+1] == 0x9c:
			return i + 2
		}
		i++
	}
	return i
}
