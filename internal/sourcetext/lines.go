package sourcetext

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Lines splits text from a source or a model into lines as a model reads
// them: at "\n", "\r\n" and a lone "\r", and at every other Unicode line
// break — U+2028 LINE SEPARATOR, U+2029 PARAGRAPH SEPARATOR, U+0085 NEXT
// LINE, vertical tab and form feed — so that a forged line cannot hide
// behind a break only "\n"-splitting code misses.
func Lines(text string) []string {
	var lines []string
	start := 0
	for i := 0; i < len(text); {
		r, n := rune(text[i]), 1
		if r >= 0x80 {
			r, n = utf8.DecodeRuneInString(text[i:])
		}
		switch r {
		case '\n', '\v', '\f', 0x85, 0x2028, 0x2029:
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				n = 2
			}
		default:
			i += n
			continue
		}
		lines = append(lines, text[start:i])
		i += n
		start = i
	}
	return append(lines, text[start:])
}

// TrimLeftSpace trims what a model reads as a line's indentation: every
// Unicode space (U+00A0, U+3000, …, not only ASCII's) and the invisible
// format characters (U+200B, U+FEFF, …) before the first visible one.
func TrimLeftSpace(line string) string {
	return strings.TrimLeftFunc(line, func(r rune) bool { return unicode.IsSpace(r) || unicode.Is(unicode.Cf, r) })
}
