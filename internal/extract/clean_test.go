package extract

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestClean(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "plain text, tabs\tand\nnewlines", "plain text, tabs\tand\nnewlines"},
		{"unicode", "naïve café — ✓ 🐟", "naïve café — ✓ 🐟"},
		{"SGR colour", "\x1b[31mred\x1b[0m text", "red text"},
		{"CSI with intermediates", "a\x1b[1 qb", "ab"},
		{"private CSI", "a\x1b[?25lb\x1b[?1049h", "ab"},
		{"cursor movement", "safe\x1b[2K\x1b[1Aevil", "safeevil"},
		{"8-bit CSI", "a\u009b31mb", "ab"},
		{"OSC title BEL", "a\x1b]0;pwned\x07b", "ab"},
		{"OSC hyperlink ST", "\x1b]8;;http://evil.example/\x1b\\click\x1b]8;;\x1b\\", "click"},
		{"OSC 8-bit ST", "a\u009d0;x\u009cb", "ab"},
		{"unterminated OSC ends at line end", "a\x1b]0;title\nnext line", "a\nnext line"},
		{"DCS", "a\x1bPq#0;2;0;0;0\x1b\\b", "ab"},
		{"charset designation", "a\x1b(Bb", "ab"},
		{"two-byte ESC", "a\x1bcb\x1b7c", "abc"},
		{"lone ESC at end", "text\x1b", "text"},
		{"CSI cut by a newline", "a\x1b[31\nb", "a\nb"},
		{"C0 controls", "a\x00b\x01c\x07d\x08e", "abcde"},
		{"carriage returns", "over\rwrite\r\nline", "over\nwrite\nline"},
		{"form feed and vertical tab", "page\fbreak\vhere", "page break here"},
		{"DEL and C1", "a\x7fb\u0085c\u0080d\u0099e", "abcde"},
		{"invalid UTF-8", "a\xffb\xc2", "a\uFFFDb\uFFFD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Clean(tt.in); got != tt.want {
				t.Errorf("Clean(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestExtractStripsControls checks that no format lets a control
// character or an escape sequence through, whether written raw or as an
// HTML character reference.
func TestExtractStripsControls(t *testing.T) {
	tests := []struct{ name, src string }{
		{"raw.md", "# Ti\x1b[31mtle\x1b[0m\n\nBody \x1b]0;pwned\x07text\x1b[2J with a bell\x07.\n\n## Sec\x9btion\n\nMore\x00.\n"},
		{"raw.txt", "Ti\x1b[31mtle\n=====\n\nBody \x1b[1mtext\x1b[0m.\x7f\n"},
		{"entities.html", "<title>Ti&#27;[31mtle</title><h1>Head&#x1b;[0m&#x9b;1m</h1><p>Body &#27;]0;pwned&#7; &#x7f;text&#1;.</p>" +
			"<!--{\"Title\": \"ignored\"}-->"},
		{"json-title.html", "<!--{\"Title\": \"JSON \\u001b[31mtitle\"}-->\n<p>Body text.</p>"},
		{"raw.org", "#+TITLE: Org \x1b[5mtitle\n\n* Head\x1b[0m\nText\x1b[31m.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Extract(tt.name, tt.src, FormatOf(tt.name))
			texts := []string{d.Title, d.Text}
			for _, p := range Split(&d) {
				texts = append(texts, p.Location, p.Heading, p.Body)
			}
			for _, s := range texts {
				if !clean(s) || strings.Contains(s, "[31m") || strings.Contains(s, "pwned") {
					t.Errorf("control characters or escape sequences left in %q", s)
				}
			}
			if !strings.Contains(strings.ToLower(d.Text), "text") || strings.Contains(d.Title, "\x1b") {
				t.Errorf("title %q, text %q", d.Title, d.Text)
			}
		})
	}
}

// FuzzClean checks Clean's promises: no control character but tab and
// line feed is left, the result is valid UTF-8, Clean is idempotent, and
// text that needs no cleaning is returned unchanged.
func FuzzClean(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b[31mred", "\x1b]0;t\x07", "a\rb\r\n", "\u009b1m", "\xff\xfe", "\x1bP\x1b\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Clean(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Clean(%q) = %q: invalid UTF-8", s, got)
		}
		for _, r := range got {
			if r < 0x20 && r != '\t' && r != '\n' || r >= 0x7f && r <= 0x9f {
				t.Fatalf("Clean(%q) = %q: control %U left", s, got, r)
			}
		}
		if again := Clean(got); again != got {
			t.Fatalf("Clean not idempotent: %q → %q → %q", s, got, again)
		}
		if clean(s) && got != s {
			t.Fatalf("Clean changed clean text %q to %q", s, got)
		}
	})
}
