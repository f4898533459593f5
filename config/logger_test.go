package config

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestLoggerPrintable (issue 29): what the log writes holds nothing a
// terminal acts on, in either format, though an error it logs quotes a
// hostile page.
func TestLoggerPrintable(t *testing.T) {
	for _, format := range []string{"console", "json"} {
		var b bytes.Buffer
		s := Defaults()
		s.Log.Format, s.Log.Level = format, "info"
		l, err := NewLogger(s, &b)
		if err != nil {
			t.Fatal(err)
		}
		l.Warn().Err(errors.New("page says \x1b]0;pwned\x07\u009b2J\x7f")).Str("question", "why\x1b[2J?").Msg("agent \x1b[31mfailed")
		out := b.String()
		if strings.ContainsAny(out, "\x1b\x07\x7f") || strings.Contains(out, "\u009b") {
			t.Errorf("%s log: %q", format, out)
		}
		if !strings.Contains(out, "pwned") || !strings.Contains(out, "failed") {
			t.Errorf("%s log lost the entry: %q", format, out)
		}
	}
}
