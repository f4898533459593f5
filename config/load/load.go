// Package load reads deepresearch's settings (config.Settings) from, in
// rising order of precedence, the built-in defaults, a YAML file,
// DEEPRESEARCH_* environment variables and command-line flags, and checks
// them. The layering, the environment and flag bindings and the decoding
// are viper's; this package adds what viper does not do: file positions in
// error messages, unknown keys and variables reported with a suggestion,
// and every value checked (config.Settings.Validate).
//
// It is the one package (with cmd/) that links viper, pflag and
// mapstructure: the research library takes a config.Settings and links
// none of them.
package load

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/deepresearch/deepresearch/config"
)

// EnvPrefix starts the name of every environment variable Settings reads: a
// key's variable is EnvPrefix + "_" + the key in upper case with dots
// replaced by underscores (research.max_tasks: DEEPRESEARCH_RESEARCH_MAX_TASKS).
const EnvPrefix = "DEEPRESEARCH"

// FlagKeys maps the command-line flags Settings honours to the keys they set.
// The CLI defines the flags: AddFlags defines all of them but --addr and
// --token, which AddServeFlags defines for the serve command. Settings applies
// the ones the user set. There is deliberately no flag for model.api_key:
// secrets on command lines end up in shell history and process lists.
var FlagKeys = map[string]string{
	"provider":       "model.provider",
	"model":          "model.name",
	"base-url":       "model.base_url",
	"embeddings":     "model.embeddings",
	"corpus":         "corpus.dir",
	"index":          "corpus.index",
	"max-tasks":      "research.max_tasks",
	"parallelism":    "research.parallelism",
	"search-limit":   "research.search_limit",
	"max-tool-calls": "research.max_tool_calls",
	"max-tokens":     "research.max_tokens",
	"agent-timeout":  "research.agent_timeout",
	"max-run-tokens": "research.max_run_tokens",
	"max-cost":       "research.max_cost",
	"max-cycles":     "research.max_cycles",
	"search":         "search.providers",
	"fetch-allow":    "fetch.allow",
	"format":         "output.format",
	"style":          "output.style",
	"store":          "store.path",
	"log-level":      "log.level",
	"log-format":     "log.format",
	"addr":           "serve.addr",
	"token":          "serve.token",
	"nats-listen":    "nats.listen",
}

// serveFlags are the flags of FlagKeys that AddServeFlags defines.
var serveFlags = []string{"addr", "token", "nats-listen"}

// flagUsage is each flag's help. The word in back quotes names the
// flag's argument in help ("--corpus DIR"), as pflag.UnquoteUsage reads
// it; flags without one show their type.
var flagUsage = map[string]string{
	"provider":       "model provider `NAME`: extractive (offline), openai, anthropic, googleai or ollama",
	"model":          "model `NAME` (default: the provider's)",
	"base-url":       "model API endpoint `URL` (default: the provider's)",
	"embeddings":     "embedding model `PROVIDER:NAME` for hybrid search and Chroma (openai, ollama, googleai; default: none, lexical search)",
	"corpus":         "research the documents in the folder `DIR` (default: the Go distribution's docs)",
	"index":          "search index `FILE` (default: in the user cache directory)",
	"max-tasks":      "at most `N` research tasks per question",
	"parallelism":    "at most `N` agents researching at once",
	"search-limit":   "`N` results per search",
	"max-tool-calls": "at most `N` tool calls per agent",
	"max-tokens":     "at most `N` tokens per agent",
	"agent-timeout":  "time limit per agent, a `DURATION` (90s, 2m)",
	"max-run-tokens": "at most `N` tokens per run, all agents together (0: unlimited)",
	"max-cost":       "at most `DOLLARS` per run, priced by model.prices (0: unlimited)",
	"max-cycles":     "at most `N` research cycles per run (1: a single pass, no follow-up research)",
	"search":         "search `BACKENDS`, comma-separated: corpus, searxng, tavily, brave, exa, chroma",
	"fetch-allow":    "let page fetches reach this private `HOST:PORT` (repeatable)",
	"format":         "report `FORMAT`: md, html, json, yaml, xml, mermaid, docx, pdf (printed by Chromium: output.chromium), csl-json or bibtex",
	"style":          "citation `STYLE`: markdown, plain, footnote or html",
	"store":          "run store SQLite `FILE` (default: in the user data directory)",
	"log-level":      "log `LEVEL`: trace, debug, info, warn, error or disabled",
	"log-format":     "log `FORMAT`: console or json",
	"addr":           "`HOST:PORT` to listen on",
	"token":          "bearer `TOKEN` clients must send (prefer DEEPRESEARCH_SERVE_TOKEN: command lines are visible to other users)",
	"nats-listen":    "without nats.url: `HOST:PORT` of an embedded JetStream server that 'deepresearch worker' processes join (default: none)",
}

// AddFlags defines on fs every flag of FlagKeys but the serve command's
// (see AddServeFlags), typed, with the built-in default as the value shown
// in help.
func AddFlags(fs *pflag.FlagSet) {
	for _, name := range slices.Sorted(func(yield func(string) bool) {
		for name := range FlagKeys {
			if !slices.Contains(serveFlags, name) && !yield(name) {
				return
			}
		}
	}) {
		addFlag(fs, name)
	}
}

// AddFlagsFor defines on fs the flags of FlagKeys named, as AddFlags
// defines them: a command defines only the flags that change what it
// does. It panics on a name FlagKeys does not have (a programming error).
func AddFlagsFor(fs *pflag.FlagSet, names ...string) {
	for _, name := range names {
		if _, ok := FlagKeys[name]; !ok {
			panic("load: no flag --" + name)
		}
		addFlag(fs, name)
	}
}

// AddServeFlags defines on fs the serve command's flags: --addr
// (serve.addr) and --token (serve.token).
func AddServeFlags(fs *pflag.FlagSet) {
	for _, name := range serveFlags {
		addFlag(fs, name)
	}
}

func addFlag(fs *pflag.FlagSet, name string) {
	d := config.Defaults()
	switch v := value(d, FlagKeys[name]).(type) {
	case string:
		fs.String(name, v, flagUsage[name])
	case int:
		fs.Int(name, v, flagUsage[name])
	case float64:
		fs.Float64(name, v, flagUsage[name])
	case time.Duration:
		fs.Duration(name, v, flagUsage[name])
	case []string:
		fs.StringSlice(name, v, flagUsage[name])
	default:
		panic(fmt.Sprintf("config: no flag type for %s (%T)", FlagKeys[name], v))
	}
}

// Settings returns the settings, each taken from the first of these that sets
// it:
//
//  1. a flag of flags that the user set (Changed), named in FlagKeys;
//  2. the environment variable of its key (see EnvPrefix), if not empty;
//  3. the YAML file: file if it is not "" (it must exist), else
//     ./deepresearch.yaml, else deepresearch/config.yaml in the user's
//     configuration directory ($XDG_CONFIG_HOME or ~/.config on Linux);
//  4. the built-in defaults (config.Defaults, as defaults.yaml documents
//     them).
//
// viper does the layering: Settings gives v defaults.yaml as its defaults,
// the file as its configuration, the environment (AutomaticEnv with
// EnvPrefix) and the flags (BindPFlag), and decodes the result into
// Settings. v may be nil (a fresh viper); values the caller Set on v win
// over all of the above, as viper has it. The file is read as text, each
// value as written, to know the line of every key.
//
// Lists (search.providers, fetch.allow) are YAML sequences in a file, or
// values separated by commas anywhere. model.prices is a mapping in a
// file, or in the environment entries such as
// "openai:gpt-4o=2.5/10,anthropic:claude-sonnet-4=3/15" (input/output
// dollars per million tokens). Durations are Go durations ("90s", "2m");
// sizes are bytes, or with a KiB, MiB or GiB suffix. Values of fixed
// choices (model.provider, output.format, …) are case-insensitive.
//
// Every problem is reported, not just the first: the error joins one
// *config.Error per bad key, naming the key, the value and where it came from. A
// file with a syntax error, an unknown key or a key given twice is an
// error naming the file and line; a DEEPRESEARCH_* variable that names no
// key is an error naming the variable.
func Settings(v *viper.Viper, flags *pflag.FlagSet, file string) (config.Settings, error) {
	if v == nil {
		v = viper.New()
	}
	preset := map[string]bool{} // keys the caller set on v
	for _, k := range v.AllKeys() {
		preset[keyOf(k)] = true
	}
	setDefaults(v)

	var errs []error
	path, data, err := findFile(file)
	if err != nil {
		return config.Settings{}, err
	}
	var lines map[string]int
	if path != "" {
		var vals map[string]any
		vals, lines, err = parseYAML(path, data)
		if err != nil {
			errs = append(errs, err)
		} else {
			v.SetConfigFile(path)
			if err := v.MergeConfigMap(nest(vals)); err != nil {
				return config.Settings{}, fmt.Errorf("config: %s: %w", path, err)
			}
		}
	}

	v.SetEnvPrefix(EnvPrefix)
	v.SetEnvKeyReplacer(strings.NewReplacer(".", "_"))
	v.AutomaticEnv()
	errs = append(errs, unknownVariables()...)

	flagOf := map[string]*pflag.Flag{} // key → its flag
	if flags != nil {
		for name, key := range FlagKeys {
			if f := flags.Lookup(name); f != nil {
				if err := v.BindPFlag(key, f); err != nil {
					return config.Settings{}, fmt.Errorf("config: flag --%s: %w", name, err)
				}
				flagOf[key] = f
			}
		}
	}
	if len(errs) > 0 {
		return config.Settings{}, errors.Join(errs...)
	}

	s, err := decode(v, func(name string) string {
		key := keyOf(name)
		if preset[key] {
			return "the viper given to load.Settings"
		}
		if f := flagOf[key]; f != nil && f.Changed {
			return "flag --" + f.Name
		}
		if env := envName(key); os.Getenv(env) != "" {
			return env
		}
		if line, ok := lines[name]; ok {
			return fmt.Sprintf("%s:%d", path, line)
		}
		if line, ok := lines[key]; ok {
			return fmt.Sprintf("%s:%d", path, line)
		}
		return "defaults"
	})
	if err != nil {
		return config.Settings{}, err
	}
	s.File = path
	return s, nil
}

// defaultValues are the values of defaults.yaml as parseYAML reads them,
// and the line of each.
var defaultValues = sync.OnceValues(func() (map[string]any, map[string]int) {
	vals, lines, err := parseYAML("defaults.yaml", config.DefaultsYAML())
	if err != nil {
		panic(err)
	}
	for _, k := range keys() {
		if _, ok := vals[k]; !ok {
			panic("config: defaults.yaml has no " + k)
		}
	}
	return vals, lines
})

// setDefaults gives v the values of defaults.yaml as its defaults.
func setDefaults(v *viper.Viper) {
	vals, _ := defaultValues()
	for _, k := range keys() {
		v.SetDefault(k, cloneRaw(vals[k]))
	}
}

// cloneRaw copies a value of parseYAML, so that no one shares it.
func cloneRaw(val any) any {
	switch val := val.(type) {
	case []string:
		return slices.Clone(val)
	case map[string]map[string]string:
		c := make(map[string]map[string]string, len(val))
		for k, p := range val {
			c[k] = make(map[string]string, len(p))
			for f, x := range p {
				c[k][f] = x
			}
		}
		return c
	}
	return val
}

// nest turns keys such as "research.max_tasks" into the nested maps viper
// takes for a configuration.
func nest(vals map[string]any) map[string]any {
	nested := map[string]any{}
	for key, val := range vals {
		sec, name, _ := strings.Cut(key, ".")
		m, _ := nested[sec].(map[string]any)
		if m == nil {
			m = map[string]any{}
			nested[sec] = m
		}
		m[name] = val
	}
	return nested
}

// unknownVariables reports each non-empty DEEPRESEARCH_* variable of the
// environment that names no key.
func unknownVariables() []error {
	known := map[string]bool{}
	for _, k := range keys() {
		known[envName(k)] = true
	}
	var errs []error
	for _, kv := range os.Environ() {
		name, val, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, EnvPrefix+"_") || val == "" || known[name] {
			continue
		}
		msg := "unknown environment variable"
		if s := suggestVariable(name); s != "" {
			msg += "; did you mean " + s + "?"
		}
		errs = append(errs, &config.Error{Source: name, Err: config.Reason(config.ErrUnknownKey, "%s", msg)})
	}
	slices.SortFunc(errs, func(a, b error) int { return cmp.Compare(a.(*config.Error).Source, b.(*config.Error).Source) })
	return errs
}

// suggestVariable returns the variable of the key whose last part name
// ends with (a key without its section, or with the wrong one), else the
// variable within two typos of name; "" if none is close.
func suggestVariable(name string) string {
	rest := strings.TrimPrefix(name, EnvPrefix+"_")
	var cands []string
	for _, k := range keys() {
		leaf := strings.ToUpper(k[strings.LastIndex(k, ".")+1:])
		if rest == leaf || strings.HasSuffix(rest, "_"+leaf) {
			return envName(k)
		}
		cands = append(cands, envName(k))
	}
	return closest(name, cands)
}

// decode decodes v's settings (viper's Unmarshal, strict: no conversion
// but by the decode hooks, no key left unused), normalises them and
// checks them. source names where the value of a key, or of part of one
// such as "model.prices[openai:gpt-4o].input", came from.
func decode(v *viper.Viper, source func(name string) string) (config.Settings, error) {
	var s config.Settings
	err := v.Unmarshal(&s, viper.DecodeHook(decodeHook), func(c *mapstructure.DecoderConfig) {
		c.ErrorUnused = true
		c.WeaklyTypedInput = false
	})
	probs := decodeProblems(err)
	failed := slices.Clone(probs)
	s.Normalize()
	for _, e := range joined(s.Validate()) {
		// A value that did not decode is not checked: its zero would be.
		if !slices.ContainsFunc(failed, func(f problem) bool { return related(f.name, e.Key) }) {
			probs = append(probs, problem{name: e.Key, err: e.Err})
		}
	}
	if len(probs) == 0 {
		return s, nil
	}
	order := map[string]int{}
	for i, k := range keys() {
		order[k] = i
	}
	slices.SortStableFunc(probs, func(a, b problem) int {
		return cmp.Compare(order[keyOf(a.name)], order[keyOf(b.name)])
	})
	errs := make([]error, len(probs))
	for i, p := range probs {
		e := &config.Error{Key: p.name, Err: p.err}
		if p.name != "" && keyOf(p.name) != "" {
			e.Value = rawValue(v, p.name)
			e.Source = source(p.name)
		}
		errs[i] = e
	}
	return config.Settings{}, errors.Join(errs...)
}

// joined returns the *config.Errors that err joins (Validate's).
func joined(err error) []*config.Error {
	var out []*config.Error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		for _, e := range j.Unwrap() {
			out = append(out, joined(e)...)
		}
	} else if ce, ok := err.(*config.Error); ok {
		out = append(out, ce)
	}
	return out
}

// problem is what is wrong with the value of name: a key, or a part of
// one such as "model.prices[openai:gpt-4o].input".
type problem struct {
	name string
	err  error
}

// invalid is what is wrong with a value, as this package's checks and
// decode hooks say it (checked, so that decoding finds it inside
// mapstructure's errors).
func invalid(format string, args ...any) error {
	return checked{config.Reason(config.ErrInvalid, format, args...)}
}

// checked marks an error this package's checks made.
type checked struct{ err error }

func (c checked) Error() string { return c.err.Error() }
func (c checked) Unwrap() error { return c.err }

// related reports whether names a and b are the same, or one is part of
// the other ("model.prices[openai:o3]" and "model.prices[openai:o3].input").
func related(a, b string) bool {
	if len(a) > len(b) {
		a, b = b, a
	}
	return a == b || strings.HasPrefix(b, a+"[") || strings.HasPrefix(b, a+".")
}

// rawValue returns the value of name in v before decoding: as the file,
// the environment or the flag gave it.
func rawValue(v *viper.Viper, name string) any {
	key := keyOf(name)
	val := v.Get(key)
	if name == key {
		return val
	}
	// A part of model.prices: "[provider:name]" and maybe ".input".
	table, ok := val.(map[string]map[string]string)
	if s, isString := val.(string); isString {
		table, _ = parsePrices(s)
		ok = table != nil
	}
	if !ok {
		return val
	}
	rest := name[len(key):]
	id, field, _ := strings.Cut(strings.TrimPrefix(rest, "["), "]")
	field = strings.TrimPrefix(field, ".")
	if field == "" {
		return nil // the entry as a whole: its key says it
	}
	if x, ok := table[id][field]; ok {
		return x
	}
	return nil
}

// decodeProblems turns the error of viper's Unmarshal (mapstructure's
// joined *DecodeErrors) into one problem for each.
func decodeProblems(err error) []problem {
	if err == nil {
		return nil
	}
	if de, ok := err.(*mapstructure.DecodeError); ok {
		cause := de.Unwrap()
		if msg, ok := strings.CutPrefix(cause.Error(), "has invalid keys: "); ok {
			var probs []problem
			for k := range strings.SplitSeq(msg, ", ") {
				if de.Name() != "" {
					k = de.Name() + "." + k
				}
				probs = append(probs, problem{name: k, err: unknownReason(suggest(k))})
			}
			return probs
		}
		var c checked
		if !errors.As(cause, &c) {
			return []problem{{name: de.Name(), err: config.Reason(config.ErrInvalid, "%s", typeMessage(de.Name()))}}
		}
		return []problem{{name: de.Name(), err: c.err}}
	}
	if join, ok := err.(interface{ Unwrap() []error }); ok {
		var probs []problem
		for _, e := range join.Unwrap() {
			probs = append(probs, decodeProblems(e)...)
		}
		return probs
	}
	if inner := errors.Unwrap(err); inner != nil {
		return decodeProblems(inner) // "decoding failed due to the following error(s)"
	}
	return []problem{{err: fmt.Errorf("decoding: %w", err)}}
}
