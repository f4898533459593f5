package config

import (
	"io"
	"os"
	"slices"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"
)

var (
	logLevels  = []string{"trace", "debug", "info", "warn", "error", "disabled"}
	logFormats = []string{"console", "json"}
)

// NewLogger returns the logger s.Log describes, writing to w: JSON lines
// for format "json"; for "console", zerolog's human-readable lines, in
// colour only when w is a terminal. Every entry carries a timestamp. The
// global zerolog level is left alone.
func NewLogger(s Settings, w io.Writer) (zerolog.Logger, error) {
	if !slices.Contains(logLevels, s.Log.Level) {
		return zerolog.Nop(), &Error{Key: "log.level", Value: s.Log.Level, Err: invalid("must be one of %s", strings.Join(logLevels, ", "))}
	}
	level, err := zerolog.ParseLevel(s.Log.Level)
	if err != nil {
		return zerolog.Nop(), err
	}
	out := w
	switch s.Log.Format {
	case "json":
	case "console":
		out = zerolog.ConsoleWriter{Out: w, NoColor: !isTerminal(w), TimeFormat: "15:04:05"}
	default:
		return zerolog.Nop(), &Error{Key: "log.format", Value: s.Log.Format, Err: invalid("must be one of %s", strings.Join(logFormats, ", "))}
	}
	return zerolog.New(out).Level(level).With().Timestamp().Logger(), nil
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}
