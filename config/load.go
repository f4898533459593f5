package config

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// EnvPrefix starts the name of every environment variable Load reads: a
// key's variable is EnvPrefix + "_" + the key in upper case with dots
// replaced by underscores (research.max_tasks: DEEPRESEARCH_RESEARCH_MAX_TASKS).
const EnvPrefix = "DEEPRESEARCH"

// FlagKeys maps the command-line flags Load honours to the keys they set.
// The CLI defines the flags (AddFlags does it for it); Load applies the
// ones the user set. There is deliberately no flag for model.api_key:
// secrets on command lines end up in shell history and process lists.
var FlagKeys = map[string]string{
	"provider":       "model.provider",
	"model":          "model.name",
	"base-url":       "model.base_url",
	"corpus":         "corpus.dir",
	"index":          "corpus.index",
	"max-tasks":      "research.max_tasks",
	"parallelism":    "research.parallelism",
	"search-limit":   "research.search_limit",
	"max-tool-calls": "research.max_tool_calls",
	"max-tokens":     "research.max_tokens",
	"agent-timeout":  "research.agent_timeout",
	"format":         "output.format",
	"style":          "output.style",
	"log-level":      "log.level",
	"log-format":     "log.format",
}

var flagUsage = map[string]string{
	"provider":       "model provider: extractive (offline), openai or ollama",
	"model":          "model name (default: the provider's)",
	"base-url":       "model API endpoint (default: the provider's)",
	"corpus":         "directory of documents to research (default: the Go distribution's docs)",
	"index":          "search index path (default: in the user cache directory)",
	"max-tasks":      "most research tasks per question",
	"parallelism":    "most agents researching at once",
	"search-limit":   "results per search",
	"max-tool-calls": "most tool calls per agent",
	"max-tokens":     "most tokens per agent",
	"agent-timeout":  "time limit per agent",
	"format":         "report format: md, html or json",
	"style":          "citation style: markdown, plain, footnote or html",
	"log-level":      "log level: trace, debug, info, warn, error or disabled",
	"log-format":     "log format: console or json",
}

// AddFlags defines on fs every flag of FlagKeys, typed, with the built-in
// default as the value shown in help.
func AddFlags(fs *pflag.FlagSet) {
	d := Defaults()
	byKey := map[string]field{}
	for _, f := range d.fields() {
		byKey[f.key] = f
	}
	for name, key := range FlagKeys {
		switch v := byKey[key].value().(type) {
		case string:
			fs.String(name, v, flagUsage[name])
		case int:
			fs.Int(name, v, flagUsage[name])
		case time.Duration:
			fs.Duration(name, v, flagUsage[name])
		}
	}
}

// Load returns the settings, each taken from the first of these that sets
// it:
//
//  1. a flag of flags that the user set (Changed), named in FlagKeys;
//  2. the environment variable of its key (see EnvPrefix), if not empty;
//  3. the YAML file: file if it is not "" (it must exist), else
//     ./deepresearch.yaml, else deepresearch/config.yaml in the user's
//     configuration directory ($XDG_CONFIG_HOME or ~/.config on Linux);
//  4. the built-in defaults (Defaults).
//
// Load configures v (a fresh viper when nil): defaults, file contents,
// environment bindings for every key, and the flags as overrides. flags
// may be nil.
//
// Every problem is reported, not just the first: the error joins one
// *Error per bad key, naming the key, the value and where it came from. A
// file with a syntax error, an unknown key or a key given twice is an
// error naming the file and line.
func Load(v *viper.Viper, flags *pflag.FlagSet, file string) (Settings, error) {
	if v == nil {
		v = viper.New()
	}
	d := Defaults()
	for _, f := range d.fields() {
		v.SetDefault(f.key, f.value())
	}
	sources := map[string]string{} // key → where its value comes from

	path, data, err := findFile(file)
	if err != nil {
		return Settings{}, err
	}
	if path != "" {
		vals, lines, err := parseYAML(path, data)
		if err != nil {
			return Settings{}, err
		}
		nested := map[string]any{}
		for key, val := range vals {
			sec, name, _ := strings.Cut(key, ".")
			m, _ := nested[sec].(map[string]any)
			if m == nil {
				m = map[string]any{}
				nested[sec] = m
			}
			m[name] = val
			sources[key] = fmt.Sprintf("%s:%d", path, lines[key])
		}
		if err := v.MergeConfigMap(nested); err != nil {
			return Settings{}, fmt.Errorf("config: %s: %w", path, err)
		}
	}

	v.SetEnvPrefix(EnvPrefix)
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	for _, key := range keys() {
		if err := v.BindEnv(key); err != nil {
			return Settings{}, fmt.Errorf("config: %w", err)
		}
		if name := envName(key); os.Getenv(name) != "" {
			sources[key] = name
		}
	}

	if flags != nil {
		for name, key := range FlagKeys {
			if f := flags.Lookup(name); f != nil && f.Changed {
				v.Set(key, f.Value.String())
				sources[key] = "flag --" + name
			}
		}
	}

	var (
		s    Settings
		errs []error
	)
	for _, f := range s.fields() {
		raw := v.Get(f.key)
		if err := f.set(raw); err != nil {
			src := sources[f.key]
			if src == "" {
				src = "defaults"
			}
			errs = append(errs, &Error{Key: f.key, Value: raw, Source: src, Err: err})
		}
	}
	if len(errs) > 0 {
		return Settings{}, errors.Join(errs...)
	}
	s.File = path
	return s, nil
}

// envName is the environment variable of key.
func envName(key string) string {
	return EnvPrefix + "_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}
