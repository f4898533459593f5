package config

import (
	"io"
	"os"
	"slices"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"

	"github.com/deepresearch/deepresearch/internal/termsafe"
)

var (
	logLevels  = []string{"trace", "debug", "info", "warn", "error", "disabled"}
	logFormats = []string{"console", "json"}
)

// NewLogger returns the logger s.Log describes, writing to w: JSON lines
// for format "json"; for "console", zerolog's human-readable lines, in
// colour only when w is a terminal. Every entry carries a timestamp, and
// nothing in it a terminal acts on (internal/termsafe: JSON's DEL and C1
// escaped, the console's control characters dropped). The global zerolog
// level is left alone.
func NewLogger(s Settings, w io.Writer) (zerolog.Logger, error) {
	if !slices.Contains(logLevels, s.Log.Level) {
		return zerolog.Nop(), &Error{Key: "log.level", Value: s.Log.Level, Err: invalid("must be one of %s", strings.Join(logLevels, ", "))}
	}
	level, err := zerolog.ParseLevel(s.Log.Level)
	if err != nil {
		return zerolog.Nop(), err
	}
	var out io.Writer
	switch s.Log.Format {
	case "json":
		out = termsafe.Writer{W: w, JSON: true} // a Write an entry
	case "console":
		out = zerolog.ConsoleWriter{Out: w, NoColor: !isTerminal(w), TimeFormat: "15:04:05", FormatPrepare: printableEntry}
	default:
		return zerolog.Nop(), &Error{Key: "log.format", Value: s.Log.Format, Err: invalid("must be one of %s", strings.Join(logFormats, ", "))}
	}
	return zerolog.New(out).Level(level).With().Timestamp().Logger(), nil
}

// printableEntry drops from an entry's strings the characters a terminal
// acts on (termsafe.Text), before the console writer lays it out in its
// own colours: a logged error may quote a page, a model or a question.
func printableEntry(evt map[string]any) error {
	for k, v := range evt {
		evt[k] = printableValue(v)
	}
	return nil
}

func printableValue(v any) any {
	switch v := v.(type) {
	case string:
		return termsafe.Text(v)
	case map[string]any:
		for k, x := range v {
			v[k] = printableValue(x)
		}
	case []any:
		for i, x := range v {
			v[i] = printableValue(x)
		}
	}
	return v
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}
