package config

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors, matched with errors.Is through an *Error.
var (
	// ErrSyntax means a configuration file is not well-formed YAML or not
	// shaped as sections of keys.
	ErrSyntax = errors.New("malformed configuration file")
	// ErrUnknownKey means a file names a key, or the environment a
	// DEEPRESEARCH_* variable, that no setting has.
	ErrUnknownKey = errors.New("unknown key")
	// ErrInvalid means a setting has a value it cannot take.
	ErrInvalid = errors.New("invalid value")
)

// Error is a problem with one setting or one configuration file.
type Error struct {
	// Key is the setting ("research.max_tasks") or a part of one
	// ("model.prices[openai:gpt-4o].input"), or "" for an error about a
	// whole file or an environment variable.
	Key string
	// Value is the offending value as given, when the error is about one.
	Value any
	// Source says where the value or key came from: "defaults", a file
	// position ("deepresearch.yaml:7"), an environment variable
	// ("DEEPRESEARCH_RESEARCH_MAX_TASKS") or a flag ("flag --max-tasks").
	// For an unknown environment variable, Key is "" and Source is the
	// variable.
	Source string
	// Err says what is wrong; it wraps ErrSyntax, ErrUnknownKey or
	// ErrInvalid.
	Err error
}

// Error renders the error for people, for example
//
//	config: research.max_tasks = -1 (from DEEPRESEARCH_RESEARCH_MAX_TASKS): must be at least 1
//	config: deepresearch.yaml:7: research.max_task: unknown key; did you mean research.max_tasks?
//	config: deepresearch.yaml:3: mapping values are not allowed in this context
//	config: DEEPRESEARCH_RESEARCH_MAXTASKS: unknown environment variable; did you mean DEEPRESEARCH_RESEARCH_MAX_TASKS?
func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("config: ")
	switch {
	case e.Key != "" && e.Value != nil:
		v := showValue(e.Value)
		if secretKeys[e.Key] {
			v = "(hidden)" // a secret is not repeated in logs
		}
		fmt.Fprintf(&b, "%s = %s", e.Key, v)
		if e.Source != "" {
			fmt.Fprintf(&b, " (from %s)", e.Source)
		}
	case e.Key != "":
		if e.Source != "" {
			b.WriteString(e.Source + ": ")
		}
		b.WriteString(e.Key)
	case e.Source != "":
		b.WriteString(e.Source)
	}
	if e.Key != "" || e.Source != "" {
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

// Unwrap returns e.Err.
func (e *Error) Unwrap() error { return e.Err }

// secretKeys are the settings whose values an error never shows.
var secretKeys = map[string]bool{"serve.token": true, "model.api_key": true, "nats.token": true}

// showValue prints v, quoting strings that would otherwise be hard to
// see; a list shows as its items separated by commas.
func showValue(v any) string {
	if l, ok := v.([]string); ok {
		v = strings.Join(l, ",")
	}
	if s, ok := v.(string); ok && (s == "" || strings.TrimSpace(s) != s || strings.ContainsAny(s, " \t\n\"")) {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(v)
}

// Reason returns what is wrong with a setting, worded for people: an
// error whose message is the text alone and that matches kind (ErrSyntax,
// ErrUnknownKey or ErrInvalid), as an *Error's Err holds it.
func Reason(kind error, format string, args ...any) error {
	return reason{kind, fmt.Sprintf(format, args...)}
}

type reason struct {
	kind error
	text string
}

func (r reason) Error() string { return r.text }
func (r reason) Unwrap() error { return r.kind }

func invalid(format string, args ...any) error { return Reason(ErrInvalid, format, args...) }
