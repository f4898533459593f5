package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// isolate gives the test an empty working directory and configuration
// directory, and clears every DEEPRESEARCH_ variable, so that nothing of
// the machine running the tests leaks in.
func isolate(t *testing.T) (cwd, xdg string) {
	t.Helper()
	cwd, xdg = t.TempDir(), t.TempDir()
	t.Chdir(cwd)
	t.Setenv("XDG_CONFIG_HOME", xdg)
	t.Setenv("HOME", xdg)
	for _, kv := range os.Environ() {
		if name, _, _ := strings.Cut(kv, "="); strings.HasPrefix(name, EnvPrefix+"_") {
			t.Setenv(name, "")
		}
	}
	return cwd, xdg
}

func write(t *testing.T, path, content string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// flagSet returns the CLI's flags (as AddFlags defines them) parsed from
// args.
func flagSet(t *testing.T, args ...string) *pflag.FlagSet {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return fs
}

func TestDefaults(t *testing.T) {
	d := Defaults()
	want := Settings{}
	want.Model.Provider = "extractive"
	want.Research = Research{MaxTasks: 4, Parallelism: 4, SearchLimit: 5, MaxToolCalls: 8, MaxTokens: 16000, AgentTimeout: 2 * time.Minute}
	want.Output = Output{Format: "md", Style: "markdown"}
	want.Log = Log{Level: "warn", Format: "console"}
	if d != want {
		t.Errorf("Defaults() = %+v\nwant %+v", d, want)
	}
	if !bytes.Equal(DefaultsYAML(), defaultsYAML) {
		t.Error("DefaultsYAML differs from the embedded file")
	}
}

// TestFieldsMatchStruct checks that the table of fields covers every field
// of Settings, under the key its mapstructure tags spell.
func TestFieldsMatchStruct(t *testing.T) {
	var fromTags []string
	st := reflect.TypeFor[Settings]()
	for i := range st.NumField() {
		sec := st.Field(i)
		if sec.Tag.Get("mapstructure") == "-" {
			continue
		}
		for j := range sec.Type.NumField() {
			fromTags = append(fromTags, sec.Tag.Get("mapstructure")+"."+sec.Type.Field(j).Tag.Get("mapstructure"))
		}
	}
	if !slices.Equal(fromTags, keys()) {
		t.Errorf("keys from tags %v\n!= keys of the field table %v", fromTags, keys())
	}
	var s Settings
	for _, f := range s.fields() {
		if !strings.Contains(string(defaultsYAML), "\n  "+f.key[strings.Index(f.key, ".")+1:]+":") {
			t.Errorf("defaults.yaml does not document %s", f.key)
		}
	}
}

func TestFlagKeys(t *testing.T) {
	for name, key := range FlagKeys {
		if !slices.Contains(keys(), key) {
			t.Errorf("flag --%s maps to unknown key %q", name, key)
		}
		if flagUsage[name] == "" {
			t.Errorf("flag --%s has no usage text", name)
		}
	}
	if len(flagUsage) != len(FlagKeys) {
		t.Errorf("flagUsage has %d entries, FlagKeys %d", len(flagUsage), len(FlagKeys))
	}
	fs := flagSet(t)
	for name := range FlagKeys {
		if fs.Lookup(name) == nil {
			t.Errorf("AddFlags did not define --%s", name)
		}
	}
}

func TestPrecedence(t *testing.T) {
	for _, tc := range []struct {
		name string
		file string            // ./deepresearch.yaml, if not ""
		env  map[string]string // environment
		args []string          // command line
		want func(*Settings)   // changes from the defaults
	}{
		{
			name: "defaults only",
			want: func(*Settings) {},
		},
		{
			name: "file overrides default",
			file: "research:\n  max_tasks: 6\n  agent_timeout: 90s\noutput:\n  style: footnote\n",
			want: func(s *Settings) {
				s.Research.MaxTasks, s.Research.AgentTimeout, s.Output.Style = 6, 90*time.Second, "footnote"
			},
		},
		{
			name: "env overrides file",
			file: "research:\n  max_tasks: 6\n",
			env:  map[string]string{"DEEPRESEARCH_RESEARCH_MAX_TASKS": "7"},
			want: func(s *Settings) { s.Research.MaxTasks = 7 },
		},
		{
			name: "env without file sets nested keys",
			env:  map[string]string{"DEEPRESEARCH_MODEL_PROVIDER": "ollama", "DEEPRESEARCH_RESEARCH_AGENT_TIMEOUT": "5m", "DEEPRESEARCH_MODEL_API_KEY": "sk-1"},
			want: func(s *Settings) {
				s.Model.Provider, s.Research.AgentTimeout, s.Model.APIKey = "ollama", 5*time.Minute, "sk-1"
			},
		},
		{
			name: "empty env is unset",
			file: "research:\n  max_tasks: 6\n",
			env:  map[string]string{"DEEPRESEARCH_RESEARCH_MAX_TASKS": ""},
			want: func(s *Settings) { s.Research.MaxTasks = 6 },
		},
		{
			name: "flag overrides env",
			file: "research:\n  max_tasks: 6\n",
			env:  map[string]string{"DEEPRESEARCH_RESEARCH_MAX_TASKS": "7"},
			args: []string{"--max-tasks=8", "--agent-timeout", "45s"},
			want: func(s *Settings) { s.Research.MaxTasks, s.Research.AgentTimeout = 8, 45*time.Second },
		},
		{
			name: "unset flag does not override",
			file: "research:\n  max_tasks: 6\n",
			env:  map[string]string{"DEEPRESEARCH_RESEARCH_PARALLELISM": "2"},
			args: []string{"--format", "html"},
			want: func(s *Settings) { s.Research.MaxTasks, s.Research.Parallelism, s.Output.Format = 6, 2, "html" },
		},
		{
			name: "null and case-insensitive keys in file",
			file: "Model:\n  Name:\n  base_url: http://localhost:11434\nresearch:\n",
			want: func(s *Settings) { s.Model.BaseURL = "http://localhost:11434" },
		},
		{
			name: "enums are case-insensitive",
			file: "output:\n  format: HTML\n",
			want: func(s *Settings) { s.Output.Format = "html" },
		},
		{
			name: "string keys keep the text as written",
			file: "model:\n  name: 0123\n",
			want: func(s *Settings) { s.Model.Name = "0123" },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			want := Defaults()
			if tc.file != "" {
				write(t, "deepresearch.yaml", tc.file)
				want.File = "deepresearch.yaml"
			}
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			tc.want(&want)
			got, err := Load(nil, flagSet(t, tc.args...), "")
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}

// TestEveryKeyFromEnvAndFlags sets each key, alone, through its variable
// and (where it has one) its flag.
func TestEveryKeyFromEnvAndFlags(t *testing.T) {
	values := map[string]string{"model.provider": "openai", "output.format": "json", "output.style": "plain",
		"log.level": "debug", "log.format": "json", "research.agent_timeout": "3s"}
	// The other keys take "42".
	flagOf := map[string]string{}
	for name, key := range FlagKeys {
		flagOf[key] = name
	}
	for _, key := range keys() {
		val, ok := values[key]
		if !ok {
			val = "42"
		}
		t.Run(key, func(t *testing.T) {
			isolate(t)
			check := func(s Settings, how string) {
				if got := fmt.Sprint(valueOf(s, key)); got != val {
					t.Errorf("%s: %s = %v, want %s", how, key, got, val)
				}
			}
			t.Setenv(envName(key), val)
			s, err := Load(nil, nil, "")
			if err != nil {
				t.Fatal(err)
			}
			check(s, envName(key))
			t.Setenv(envName(key), "")
			if name := flagOf[key]; name != "" {
				s, err := Load(nil, flagSet(t, "--"+name, val), "")
				if err != nil {
					t.Fatal(err)
				}
				check(s, "--"+name)
			}
		})
	}
}

// valueOf returns the value key has in s.
func valueOf(s Settings, key string) any {
	for _, f := range s.fields() {
		if f.key == key {
			return f.value()
		}
	}
	panic("no key " + key)
}

func TestFileDiscovery(t *testing.T) {
	t.Run("xdg", func(t *testing.T) {
		_, xdg := isolate(t)
		path := write(t, filepath.Join(xdg, "deepresearch", "config.yaml"), "research:\n  search_limit: 9\n")
		s, err := Load(nil, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		if s.Research.SearchLimit != 9 || s.File != path {
			t.Errorf("SearchLimit = %d, File = %q; want 9, %q", s.Research.SearchLimit, s.File, path)
		}
	})
	t.Run("working directory wins over xdg", func(t *testing.T) {
		_, xdg := isolate(t)
		write(t, filepath.Join(xdg, "deepresearch", "config.yaml"), "research:\n  search_limit: 9\n")
		write(t, "deepresearch.yaml", "research:\n  search_limit: 3\n")
		s, err := Load(nil, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		if s.Research.SearchLimit != 3 || s.File != "deepresearch.yaml" {
			t.Errorf("SearchLimit = %d, File = %q", s.Research.SearchLimit, s.File)
		}
	})
	t.Run("explicit file wins and must exist", func(t *testing.T) {
		cwd, _ := isolate(t)
		write(t, "deepresearch.yaml", "research:\n  search_limit: 3\n")
		path := write(t, filepath.Join(cwd, "other.yaml"), "research:\n  search_limit: 2\n")
		s, err := Load(nil, nil, path)
		if err != nil {
			t.Fatal(err)
		}
		if s.Research.SearchLimit != 2 {
			t.Errorf("SearchLimit = %d, want 2", s.Research.SearchLimit)
		}
		_, err = Load(nil, nil, "missing.yaml")
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "missing.yaml") {
			t.Errorf("err = %v, want a not-exist error naming the file", err)
		}
	})
	t.Run("empty file", func(t *testing.T) {
		isolate(t)
		write(t, "deepresearch.yaml", "# nothing yet\n")
		s, err := Load(nil, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		want := Defaults()
		want.File = "deepresearch.yaml"
		if s != want {
			t.Errorf("got %+v", s)
		}
	})
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		file string
		env  map[string]string
		args []string
		want []string // the lines of the error
		is   error
	}{
		{
			name: "env below minimum",
			env:  map[string]string{"DEEPRESEARCH_RESEARCH_MAX_TASKS": "-1"},
			want: []string{"config: research.max_tasks = -1 (from DEEPRESEARCH_RESEARCH_MAX_TASKS): must be at least 1"},
			is:   ErrInvalid,
		},
		{
			name: "flag below minimum",
			args: []string{"--parallelism", "0"},
			want: []string{"config: research.parallelism = 0 (from flag --parallelism): must be at least 1"},
			is:   ErrInvalid,
		},
		{
			name: "file values, all reported",
			file: "# settings\nresearch:\n  max_tokens: lots\n  agent_timeout: 2 minutes\noutput:\n  format: pdf\n",
			want: []string{
				"config: research.max_tokens = lots (from deepresearch.yaml:3): must be a whole number",
				`config: research.agent_timeout = "2 minutes" (from deepresearch.yaml:4): must be a duration such as 90s, 2m or 1m30s`,
				"config: output.format = pdf (from deepresearch.yaml:6): must be one of md, html, json",
			},
			is: ErrInvalid,
		},
		{
			name: "negative duration",
			env:  map[string]string{"DEEPRESEARCH_RESEARCH_AGENT_TIMEOUT": "-5s"},
			want: []string{"config: research.agent_timeout = -5s (from DEEPRESEARCH_RESEARCH_AGENT_TIMEOUT): must be positive"},
			is:   ErrInvalid,
		},
		{
			name: "unknown provider and style",
			env:  map[string]string{"DEEPRESEARCH_MODEL_PROVIDER": "gpt"},
			args: []string{"--style", "apa"},
			want: []string{
				"config: model.provider = gpt (from DEEPRESEARCH_MODEL_PROVIDER): must be one of extractive, openai, ollama",
				"config: output.style = apa (from flag --style): must be one of markdown, plain, footnote, html",
			},
			is: ErrInvalid,
		},
		{
			name: "malformed yaml",
			file: "research:\n  max_tasks: 4\n parallelism: 2\n",
			want: []string{"config: deepresearch.yaml:2: did not find expected key"},
			is:   ErrSyntax,
		},
		{
			name: "tab indentation",
			file: "research:\n\tmax_tasks: 4\n",
			want: []string{"config: deepresearch.yaml:2: found character that cannot start any token"},
			is:   ErrSyntax,
		},
		{
			name: "not a mapping",
			file: "- research\n",
			want: []string{"config: deepresearch.yaml:1: the file must be a mapping of sections (model:, research:, ...)"},
			is:   ErrSyntax,
		},
		{
			name: "unknown keys",
			file: "reserch:\n  max_tasks: 4\nresearch:\n  max_task: 4\n  colour: red\nmax_tokens: 9\n",
			want: []string{
				"config: deepresearch.yaml:1: reserch: unknown key; did you mean research?",
				"config: deepresearch.yaml:4: research.max_task: unknown key; did you mean research.max_tasks?",
				"config: deepresearch.yaml:5: research.colour: unknown key",
				"config: deepresearch.yaml:6: max_tokens: unknown key; did you mean research.max_tokens?",
			},
			is: ErrUnknownKey,
		},
		{
			name: "wrong shapes",
			file: "research: 5\noutput:\n  format: [md, html]\n",
			want: []string{
				"config: deepresearch.yaml:1: research: must be a mapping of keys",
				"config: deepresearch.yaml:3: output.format: must be a single value",
			},
			is: ErrSyntax,
		},
		{
			name: "repeated keys",
			file: "research:\n  max_tasks: 4\n  max_tasks: 5\nresearch:\n  parallelism: 1\n",
			want: []string{
				"config: deepresearch.yaml:3: research.max_tasks: repeated; first at line 2",
				"config: deepresearch.yaml:4: research: repeated; first at line 1",
			},
			is: ErrSyntax,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			if tc.file != "" {
				write(t, "deepresearch.yaml", tc.file)
			}
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			s, err := Load(nil, flagSet(t, tc.args...), "")
			if err == nil {
				t.Fatalf("no error; settings %+v", s)
			}
			if got := strings.Split(err.Error(), "\n"); !slices.Equal(got, tc.want) {
				t.Errorf("error:\n%s\nwant:\n%s", err, strings.Join(tc.want, "\n"))
			}
			if !errors.Is(err, tc.is) {
				t.Errorf("errors.Is(err, %v) = false", tc.is)
			}
			var ce *Error
			if !errors.As(err, &ce) {
				t.Errorf("no *Error in %v", err)
			}
		})
	}
}

func TestNewLogger(t *testing.T) {
	s := Defaults()
	s.Log.Format = "json"
	var b bytes.Buffer
	log, err := NewLogger(s, &b)
	if err != nil {
		t.Fatal(err)
	}
	log.Info().Msg("hidden")
	log.Warn().Str("k", "v").Msg("shown")
	if out := b.String(); strings.Contains(out, "hidden") || !strings.Contains(out, `"level":"warn"`) || !strings.Contains(out, `"time":`) {
		t.Errorf("json log = %q", out)
	}

	b.Reset()
	s.Log.Format, s.Log.Level = "console", "debug"
	if log, err = NewLogger(s, &b); err != nil {
		t.Fatal(err)
	}
	log.Debug().Str("k", "v").Msg("hello")
	if out := b.String(); !strings.Contains(out, "DBG hello k=v") || strings.Contains(out, "\x1b[") {
		t.Errorf("console log = %q, want plain text", out)
	}

	s.Log.Level = "loud"
	if _, err := NewLogger(s, &b); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "log.level = loud") {
		t.Errorf("err = %v", err)
	}
	s.Log.Level, s.Log.Format = "warn", "xml"
	if _, err := NewLogger(s, &b); !errors.Is(err, ErrInvalid) {
		t.Errorf("err = %v", err)
	}
}
