// Package config loads deepresearch's settings from, in rising order of
// precedence, built-in defaults, a YAML file, DEEPRESEARCH_* environment
// variables and command-line flags, and validates them.
//
// The defaults live in one place, the embedded defaults.yaml, which also
// documents every key; DefaultsYAML returns it, to serve as a template for
// users' files.
package config

import (
	_ "embed"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

//go:embed defaults.yaml
var defaultsYAML []byte

// DefaultsYAML returns the built-in defaults file: every key, its default
// and its meaning, in the format Load reads.
func DefaultsYAML() []byte { return slices.Clone(defaultsYAML) }

// Settings is deepresearch's configuration. The mapstructure tags are the
// keys of the YAML file; environment variables and flags name the same
// keys (see Load).
type Settings struct {
	Model    Model    `mapstructure:"model"`
	Corpus   Corpus   `mapstructure:"corpus"`
	Research Research `mapstructure:"research"`
	Output   Output   `mapstructure:"output"`
	Log      Log      `mapstructure:"log"`

	// File is the configuration file Load read, or "" when it read none.
	File string `mapstructure:"-"`
}

// Model selects the language model.
type Model struct {
	// Provider is the model backend: "extractive" (default) needs no model
	// and no network; "openai" and "ollama" are reserved names.
	Provider string `mapstructure:"provider"`
	// Name is the provider's model name; "" (default) is the provider's
	// default.
	Name string `mapstructure:"name"`
	// BaseURL is the provider's endpoint; "" (default) is the provider's
	// default.
	BaseURL string `mapstructure:"base_url"`
	// APIKey is the provider's key; "" (default) is none.
	APIKey string `mapstructure:"api_key"`
}

// Corpus selects the documents the agents search.
type Corpus struct {
	// Dir is the directory of documents; "" (default) is the Go
	// distribution's documentation.
	Dir string `mapstructure:"dir"`
	// Index is the search index's path; "" (default) is a file in the
	// user's cache directory.
	Index string `mapstructure:"index"`
}

// Research bounds the research.
type Research struct {
	// MaxTasks is the most tasks the planner may make; default 4.
	MaxTasks int `mapstructure:"max_tasks"`
	// Parallelism is the most agents running at once; default 4.
	Parallelism int `mapstructure:"parallelism"`
	// SearchLimit is the number of results a search returns; default 5.
	SearchLimit int `mapstructure:"search_limit"`
	// MaxToolCalls is the most tool calls of one agent; default 8.
	MaxToolCalls int `mapstructure:"max_tool_calls"`
	// MaxTokens is the most tokens one agent may spend; default 16000.
	MaxTokens int `mapstructure:"max_tokens"`
	// AgentTimeout is the time limit of one agent; default 2m.
	AgentTimeout time.Duration `mapstructure:"agent_timeout"`
}

// Output shapes the final report.
type Output struct {
	// Format is the document format: "md" (default), "html" or "json".
	Format string `mapstructure:"format"`
	// Style is how citations show: "markdown" (default), "plain",
	// "footnote" or "html".
	Style string `mapstructure:"style"`
}

// Log configures diagnostic logging.
type Log struct {
	// Level is the least level logged: "trace", "debug", "info", "warn"
	// (default), "error" or "disabled".
	Level string `mapstructure:"level"`
	// Format is "console" (default, human-readable) or "json".
	Format string `mapstructure:"format"`
}

// Defaults returns the built-in settings, those of defaults.yaml.
func Defaults() Settings { return defaults() }

var defaults = sync.OnceValue(func() Settings {
	vals, _, err := parseYAML("defaults.yaml", defaultsYAML)
	if err != nil {
		panic(err)
	}
	var s Settings
	for _, f := range s.fields() {
		raw, ok := vals[f.key]
		if !ok {
			panic("config: defaults.yaml has no " + f.key)
		}
		if err := f.set(raw); err != nil {
			panic(&Error{Key: f.key, Value: raw, Source: "defaults", Err: err})
		}
	}
	return s
})

// field is one setting: its key, where it is stored and what it accepts.
type field struct {
	key  string
	ptr  any      // *string, *int or *time.Duration
	min  int      // for *int: the least value
	enum []string // for *string: the values allowed (lower case); nil: any
}

// fields lists every setting of s, in the order of defaults.yaml.
func (s *Settings) fields() []field {
	return []field{
		{key: "model.provider", ptr: &s.Model.Provider, enum: []string{"extractive", "openai", "ollama"}},
		{key: "model.name", ptr: &s.Model.Name},
		{key: "model.base_url", ptr: &s.Model.BaseURL},
		{key: "model.api_key", ptr: &s.Model.APIKey},
		{key: "corpus.dir", ptr: &s.Corpus.Dir},
		{key: "corpus.index", ptr: &s.Corpus.Index},
		{key: "research.max_tasks", ptr: &s.Research.MaxTasks, min: 1},
		{key: "research.parallelism", ptr: &s.Research.Parallelism, min: 1},
		{key: "research.search_limit", ptr: &s.Research.SearchLimit, min: 1},
		{key: "research.max_tool_calls", ptr: &s.Research.MaxToolCalls, min: 1},
		{key: "research.max_tokens", ptr: &s.Research.MaxTokens, min: 1},
		{key: "research.agent_timeout", ptr: &s.Research.AgentTimeout},
		{key: "output.format", ptr: &s.Output.Format, enum: []string{"md", "html", "json"}},
		{key: "output.style", ptr: &s.Output.Style, enum: []string{"markdown", "plain", "footnote", "html"}},
		{key: "log.level", ptr: &s.Log.Level, enum: logLevels},
		{key: "log.format", ptr: &s.Log.Format, enum: logFormats},
	}
}

// keys lists every setting's key.
var keys = sync.OnceValue(func() []string {
	var s Settings
	var ks []string
	for _, f := range s.fields() {
		ks = append(ks, f.key)
	}
	return ks
})

// value returns the setting's current value.
func (f field) value() any {
	switch p := f.ptr.(type) {
	case *string:
		return *p
	case *int:
		return *p
	case *time.Duration:
		return *p
	}
	panic("config: field of unknown type")
}

// set converts raw (from viper: a string from a file, the environment or a
// flag, or a typed value), checks it and stores it.
func (f field) set(raw any) error {
	switch p := f.ptr.(type) {
	case *string:
		s, err := toString(raw)
		if err != nil {
			return err
		}
		if f.enum != nil {
			s = strings.ToLower(strings.TrimSpace(s))
			if !slices.Contains(f.enum, s) {
				return invalid("must be one of %s", strings.Join(f.enum, ", "))
			}
		}
		*p = s
	case *int:
		n, err := toInt(raw)
		if err != nil {
			return err
		}
		if n < f.min {
			return invalid("must be at least %d", f.min)
		}
		*p = n
	case *time.Duration:
		d, err := toDuration(raw)
		if err != nil {
			return err
		}
		if d <= 0 {
			return invalid("must be positive")
		}
		*p = d
	}
	return nil
}

func toString(raw any) (string, error) {
	switch v := raw.(type) {
	case string:
		return v, nil
	case int, int64, float64, bool, time.Duration:
		return fmt.Sprint(v), nil
	}
	return "", invalid("must be a single value")
}

func toInt(raw any) (int, error) {
	switch v := raw.(type) {
	case int:
		return v, nil
	case int64:
		if v >= math.MinInt && v <= math.MaxInt {
			return int(v), nil
		}
	case float64:
		if v == math.Trunc(v) && v >= math.MinInt && v <= math.MaxInt {
			return int(v), nil
		}
	case string:
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
			return n, nil
		}
	}
	return 0, invalid("must be a whole number")
}

func toDuration(raw any) (time.Duration, error) {
	switch v := raw.(type) {
	case time.Duration:
		return v, nil
	case string:
		if d, err := time.ParseDuration(strings.TrimSpace(v)); err == nil {
			return d, nil
		}
	}
	return 0, invalid("must be a duration such as 90s, 2m or 1m30s")
}
