package load

import (
	"cmp"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/deepresearch/deepresearch/config"
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

// flagSet returns the CLI's flags (as AddFlags and AddServeFlags define
// them) parsed from args.
func flagSet(t *testing.T, args ...string) *pflag.FlagSet {
	t.Helper()
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	AddFlags(fs)
	AddServeFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return fs
}

// TestSchema checks that the keys, read from the struct's mapstructure
// tags, are the keys of defaults.yaml, in its order, each under a comment.
func TestSchema(t *testing.T) {
	defaultsYAML := config.DefaultsYAML()
	vals, lines, err := parseYAML("defaults.yaml", defaultsYAML)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := slices.Sorted(maps.Keys(vals)), slices.Sorted(slices.Values(keys())); !slices.Equal(got, want) {
		t.Errorf("defaults.yaml keys %v\n!= struct keys %v", got, want)
	}
	text := strings.Split(string(defaultsYAML), "\n")
	for _, k := range keys() {
		// The comment is above the key, or above the group of keys it
		// belongs to (planner, researcher, writer).
		i := lines[k] - 2
		for i > 0 && strings.HasPrefix(text[i], "  ") && !strings.HasPrefix(text[i], "  #") {
			i--
		}
		if !strings.HasPrefix(text[i], "  #") {
			t.Errorf("defaults.yaml:%d: %s has no comment", lines[k], k)
		}
	}
	if !slices.IsSortedFunc(keys(), func(a, b string) int { return lines[a] - lines[b] }) {
		t.Errorf("the struct's order %v is not the file's", keys())
	}
}

// TestDefaultsYAML: defaults.yaml, as Settings reads it with nothing else
// set, is config.Defaults, the constants the library runs on: the file
// people read cannot drift from them.
func TestDefaultsYAML(t *testing.T) {
	isolate(t)
	s, err := Settings(nil, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := config.Defaults(); !reflect.DeepEqual(s, want) {
		t.Errorf("defaults.yaml reads as\n%+v\nconfig.Defaults() is\n%+v", s, want)
	}
}

func TestFlags(t *testing.T) {
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
	if slices.Contains(slices.Collect(maps.Values(FlagKeys)), "model.api_key") {
		t.Error("model.api_key has a flag")
	}
	run := pflag.NewFlagSet("run", pflag.ContinueOnError)
	AddFlags(run)
	serve := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	AddServeFlags(serve)
	for name := range FlagKeys {
		inServe := name == "addr" || name == "token" || name == "nats-listen"
		if (run.Lookup(name) != nil) == inServe {
			t.Errorf("AddFlags defines --%s: %v", name, !inServe)
		}
		if (serve.Lookup(name) != nil) != inServe {
			t.Errorf("AddServeFlags defines --%s: %v", name, inServe)
		}
	}
	for _, tc := range []struct{ flag, def string }{
		{"max-tasks", "4"}, {"agent-timeout", "2m0s"}, {"max-cost", "0"}, {"search", "[corpus]"},
		{"fetch-allow", "[]"}, {"provider", "extractive"}, {"store", ""},
	} {
		if got := run.Lookup(tc.flag).DefValue; got != tc.def {
			t.Errorf("--%s shows default %q, want %q", tc.flag, got, tc.def)
		}
	}
	if got := serve.Lookup("addr").DefValue; got != "127.0.0.1:8080" {
		t.Errorf("--addr shows default %q", got)
	}
}

func TestPrecedence(t *testing.T) {
	for _, tc := range []struct {
		name string
		file string                 // ./deepresearch.yaml, if not ""
		env  map[string]string      // environment
		args []string               // command line
		want func(*config.Settings) // changes from the defaults
	}{
		{
			name: "defaults only",
			want: func(*config.Settings) {},
		},
		{
			name: "file overrides default",
			file: "research:\n  max_tasks: 6\n  agent_timeout: 90s\noutput:\n  style: footnote\n",
			want: func(s *config.Settings) {
				s.Research.MaxTasks, s.Research.AgentTimeout, s.Output.Style = 6, 90*time.Second, "footnote"
			},
		},
		{
			name: "env overrides file",
			file: "research:\n  max_tasks: 6\n",
			env:  map[string]string{"DEEPRESEARCH_RESEARCH_MAX_TASKS": "7"},
			want: func(s *config.Settings) { s.Research.MaxTasks = 7 },
		},
		{
			name: "env without file sets nested keys",
			env:  map[string]string{"DEEPRESEARCH_MODEL_PROVIDER": "ollama", "DEEPRESEARCH_RESEARCH_AGENT_TIMEOUT": "5m", "DEEPRESEARCH_MODEL_API_KEY": "sk-1", "DEEPRESEARCH_SERVE_TOKEN": "tok-of-sixteen-chars"},
			want: func(s *config.Settings) {
				s.Model.Provider, s.Research.AgentTimeout, s.Model.APIKey, s.Serve.Token = "ollama", 5*time.Minute, "sk-1", "tok-of-sixteen-chars"
			},
		},
		{
			name: "empty env is unset",
			file: "research:\n  max_tasks: 6\n",
			env:  map[string]string{"DEEPRESEARCH_RESEARCH_MAX_TASKS": "", "DEEPRESEARCH_NO_SUCH_KEY": ""},
			want: func(s *config.Settings) { s.Research.MaxTasks = 6 },
		},
		{
			name: "flag overrides env",
			file: "research:\n  max_tasks: 6\n",
			env:  map[string]string{"DEEPRESEARCH_RESEARCH_MAX_TASKS": "7"},
			args: []string{"--max-tasks=8", "--agent-timeout", "45s"},
			want: func(s *config.Settings) { s.Research.MaxTasks, s.Research.AgentTimeout = 8, 45*time.Second },
		},
		{
			name: "unset flag does not override",
			file: "research:\n  max_tasks: 6\nsearch:\n  providers: [exa]\n",
			env:  map[string]string{"DEEPRESEARCH_RESEARCH_PARALLELISM": "2"},
			args: []string{"--format", "html"},
			want: func(s *config.Settings) {
				s.Research.MaxTasks, s.Research.Parallelism, s.Output.Format = 6, 2, "html"
				s.Search.Providers = []string{"exa"}
			},
		},
		{
			name: "null and case-insensitive keys in file",
			file: "Model:\n  Name:\n  base_url: http://localhost:11434\nresearch:\n",
			want: func(s *config.Settings) { s.Model.BaseURL = "http://localhost:11434" },
		},
		{
			name: "choices are case-insensitive",
			file: "output:\n  format: HTML\n  unsupported: ' Remove '\nmodel:\n  provider: OpenAI\n  writer: Anthropic:claude-sonnet-4\n",
			want: func(s *config.Settings) {
				s.Output.Format, s.Output.Unsupported, s.Model.Provider = "html", "remove", "openai"
				s.Model.Writer = "anthropic:claude-sonnet-4"
			},
		},
		{
			name: "string keys keep the text as written",
			file: "model:\n  name: 0123\n  api_key: 0x1F\n",
			want: func(s *config.Settings) { s.Model.Name, s.Model.APIKey = "0123", "0x1F" },
		},
		{
			name: "whole numbers are decimal",
			env:  map[string]string{"DEEPRESEARCH_RESEARCH_MAX_TASKS": " 010 "},
			want: func(s *config.Settings) { s.Research.MaxTasks = 10 },
		},
		{
			name: "lists: items trimmed, lower-cased, once each",
			env:  map[string]string{"DEEPRESEARCH_SEARCH_PROVIDERS": " Tavily, corpus,,tavily ", "DEEPRESEARCH_FETCH_ALLOW": "LocalHost:8888"},
			want: func(s *config.Settings) {
				s.Search.Providers = []string{"tavily", "corpus"}
				s.Fetch.Allow = []string{"localhost:8888"}
			},
		},
		{
			name: "a list in a file may be one value with commas",
			file: "search:\n  providers: brave, exa\nfetch:\n  allow: []\n",
			want: func(s *config.Settings) { s.Search.Providers = []string{"brave", "exa"} },
		},
		{
			name: "flag lists replace the file's",
			file: "fetch:\n  allow: [a.internal:1]\n",
			args: []string{"--fetch-allow", "b.internal:2", "--fetch-allow=c.internal:3", "--search", "corpus,searxng"},
			want: func(s *config.Settings) {
				s.Fetch.Allow = []string{"b.internal:2", "c.internal:3"}
				s.Search.Providers = []string{"corpus", "searxng"}
			},
		},
		{
			name: "prices: model names with dots and colons, provider lower-cased",
			file: "model:\n  prices:\n    OpenAI:gpt-4.1: {input: 2, output: 8}\n    \"ollama:llama3.1:8b\":\n      output: 0.5\n",
			want: func(s *config.Settings) {
				s.Model.Prices = map[string]config.Price{"openai:gpt-4.1": {Input: 2, Output: 8}, "ollama:llama3.1:8b": {Input: 0, Output: 0.5}}
			},
		},
		{
			name: "prices in the environment replace the file's",
			file: "model:\n  prices:\n    openai:gpt-4.1: {input: 2, output: 8}\n",
			env:  map[string]string{"DEEPRESEARCH_MODEL_PRICES": "anthropic:claude-sonnet-4=3/15, GoogleAI:gemini-2.5-pro=1.25/10"},
			want: func(s *config.Settings) {
				s.Model.Prices = map[string]config.Price{"anthropic:claude-sonnet-4": {Input: 3, Output: 15}, "googleai:gemini-2.5-pro": {Input: 1.25, Output: 10}}
			},
		},
		{
			name: "prices in a file may be one value as in the environment",
			file: "model:\n  prices: openai:o3=2/8\n",
			want: func(s *config.Settings) { s.Model.Prices = map[string]config.Price{"openai:o3": {Input: 2, Output: 8}} },
		},
		{
			name: "sizes",
			file: "fetch:\n  max_bytes: 512KiB\nserve:\n  max_body: 2 MiB\n",
			env:  map[string]string{"DEEPRESEARCH_SERVE_MAX_BODY": "1000"},
			want: func(s *config.Settings) { s.Fetch.MaxBytes, s.Serve.MaxBody = 512<<10, 1000 },
		},
		{
			name: "serve flags",
			env:  map[string]string{"DEEPRESEARCH_SERVE_TOKEN": "from-env"},
			args: []string{"--addr", ":9000", "--token", "from-flag-sixteen-chars"},
			want: func(s *config.Settings) { s.Serve.Addr, s.Serve.Token = ":9000", "from-flag-sixteen-chars" },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			isolate(t)
			want := config.Defaults()
			if tc.file != "" {
				write(t, "deepresearch.yaml", tc.file)
				want.File = "deepresearch.yaml"
			}
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			tc.want(&want)
			got, err := Settings(nil, flagSet(t, tc.args...), "")
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}

// sample is a value of a key as each source writes it, and the value it
// decodes to.
type sample struct {
	yaml string   // in the file, after "key: "; also the environment's and flag's unless given
	env  string   // the environment variable
	flag []string // the flag's values, each given as --name=value
	want any
}

// samples gives, for every key, a value for the file, a different one for
// the environment and, if the key has a flag, a third for the flag.
var samples = map[string][3]sample{
	"model.provider":       {{yaml: "openai", want: "openai"}, {yaml: "anthropic", want: "anthropic"}, {yaml: "googleai", want: "googleai"}},
	"model.name":           {{yaml: "gpt-4o", want: "gpt-4o"}, {yaml: "claude", want: "claude"}, {yaml: "llama3.1:8b", want: "llama3.1:8b"}},
	"model.base_url":       {{yaml: "http://a:1", want: "http://a:1"}, {yaml: "https://b", want: "https://b"}, {yaml: "http://c/v1", want: "http://c/v1"}},
	"model.api_key":        {{yaml: "k1", want: "k1"}, {yaml: "k2", want: "k2"}},
	"model.planner":        {{yaml: "openai:gpt-4o", want: "openai:gpt-4o"}, {yaml: "ollama", want: "ollama"}},
	"model.researcher":     {{yaml: "ollama:qwen3:8b", want: "ollama:qwen3:8b"}, {yaml: "extractive", want: "extractive"}},
	"model.writer":         {{yaml: "anthropic:claude-opus-4", want: "anthropic:claude-opus-4"}, {yaml: "googleai:gemini", want: "googleai:gemini"}},
	"model.max_concurrent": {{yaml: "1", want: 1}, {yaml: "2", want: 2}},
	"model.tools":          {{yaml: "native", want: "native"}, {yaml: "text", want: "text"}},
	"model.embeddings":     {{yaml: "openai:text-embedding-3-small", want: "openai:text-embedding-3-small"}, {env: "ollama:nomic-embed-text", want: "ollama:nomic-embed-text"}, {flag: []string{"googleai"}, want: "googleai"}},
	"model.prices":         {{yaml: `{"openai:o3": {input: 2, output: 8}}`, want: map[string]config.Price{"openai:o3": {Input: 2, Output: 8}}}, {env: "openai:o3=1/4", want: map[string]config.Price{"openai:o3": {Input: 1, Output: 4}}}},
	"mcp.servers": {{yaml: `{docs: {command: [mcp-server, /srv/docs], env: {TOKEN: t1}, search_tool: search_files, search_args: {pattern: "*.md"}, read_tool: read_text_file}}`,
		want: map[string]config.MCPServer{"docs": {Command: []string{"mcp-server", "/srv/docs"}, Env: map[string]string{"TOKEN": "t1"},
			SearchTool: "search_files", SearchArgs: map[string]string{"pattern": "*.md"}, ReadTool: "read_text_file"}}},
		{env: `{"wiki": {"url": "http://localhost:9000/mcp", "query_arg": "q", "limit_arg": "n", "url_arg": "uri", "timeout": "2m"}}`,
			want: map[string]config.MCPServer{"wiki": {URL: "http://localhost:9000/mcp", QueryArg: "q", LimitArg: "n", URLArg: "uri", Timeout: 2 * time.Minute}}}},
	"corpus.dir":                {{yaml: "/a", want: "/a"}, {yaml: "/b", want: "/b"}, {yaml: "/c", want: "/c"}},
	"corpus.index":              {{yaml: "/a.db", want: "/a.db"}, {yaml: "/b.db", want: "/b.db"}, {yaml: "/c.db", want: "/c.db"}},
	"research.max_tasks":        {{yaml: "1", want: 1}, {yaml: "2", want: 2}, {yaml: "3", want: 3}},
	"research.parallelism":      {{yaml: "1", want: 1}, {yaml: "2", want: 2}, {yaml: "3", want: 3}},
	"research.search_limit":     {{yaml: "1", want: 1}, {yaml: "2", want: 2}, {yaml: "3", want: 3}},
	"research.max_tool_calls":   {{yaml: "1", want: 1}, {yaml: "2", want: 2}, {yaml: "3", want: 3}},
	"research.max_tokens":       {{yaml: "1", want: 1}, {yaml: "2", want: 2}, {yaml: "3", want: 3}},
	"research.agent_timeout":    {{yaml: "1s", want: time.Second}, {yaml: "2m", want: 2 * time.Minute}, {yaml: "1h30m", want: 90 * time.Minute}},
	"research.max_run_tokens":   {{yaml: "100000", want: 100000}, {yaml: "7", want: 7}, {yaml: "0", want: 0}},
	"research.max_cost":         {{yaml: "0.5", want: 0.5}, {yaml: "2", want: 2.0}, {yaml: "1e-2", want: 0.01}},
	"research.clarify":          {{yaml: "never", want: "never"}, {yaml: "auto", want: "auto"}},
	"research.review_plan":      {{yaml: "true", want: true}, {yaml: "false", want: false}},
	"research.review":           {{yaml: "every_cycle", want: "every_cycle"}, {yaml: "first_plan", want: "first_plan"}},
	"output.length":             {{yaml: "300", want: 300}, {yaml: "1500", want: 1500}},
	"output.language":           {{yaml: "German", want: "German"}, {yaml: "pt-BR", want: "pt-BR"}},
	"output.audience":           {{yaml: "executives", want: "executives"}, {yaml: "engineers", want: "engineers"}},
	"output.chromium":           {{yaml: "/usr/bin/chromium", want: "/usr/bin/chromium"}, {yaml: "google-chrome", want: "google-chrome"}},
	"search.providers":          {{yaml: "[searxng, tavily]", want: []string{"searxng", "tavily"}}, {env: "brave,exa", want: []string{"brave", "exa"}}, {flag: []string{"exa,corpus", "brave"}, want: []string{"exa", "corpus", "brave"}}},
	"search.searxng_url":        {{yaml: "http://localhost:8888", want: "http://localhost:8888"}, {yaml: "https://s.example", want: "https://s.example"}},
	"search.chroma_url":         {{yaml: "http://localhost:8000", want: "http://localhost:8000"}, {yaml: "https://c.example", want: "https://c.example"}},
	"search.chroma_collection":  {{yaml: "catalog", want: "catalog"}, {yaml: "faq", want: "faq"}},
	"search.chroma_collections": {{yaml: "[catalog, faq, troubleshooting]", want: []string{"catalog", "faq", "troubleshooting"}}, {env: "Catalog, faq", want: []string{"Catalog", "faq"}}},
	"search.chroma_tenant":      {{yaml: "t1", want: "t1"}, {yaml: "t2", want: "t2"}},
	"search.chroma_database":    {{yaml: "d1", want: "d1"}, {yaml: "d2", want: "d2"}},
	"domains.allow":             {{yaml: `["*.gov", "w3.org"]`, want: []string{"*.gov", "w3.org"}}, {env: "*.edu,example.org/docs*", want: []string{"*.edu", "example.org/docs*"}}},
	"domains.deny":              {{yaml: `[spam.example]`, want: []string{"spam.example"}}, {env: "a.example,b.example", want: []string{"a.example", "b.example"}}},
	"domains.tiers_file":        {{yaml: "/a/tiers.yaml", want: "/a/tiers.yaml"}, {yaml: "/b/tiers.yaml", want: "/b/tiers.yaml"}},
	"domains.tiers":             {{yaml: `["blog.example=primary"]`, want: []string{"blog.example=primary"}}, {env: "a.example=forum,b.example=news", want: []string{"a.example=forum", "b.example=news"}}},
	"fetch.allow":               {{yaml: `["localhost:8888"]`, want: []string{"localhost:8888"}}, {env: "10.0.0.1:80,[::1]:9", want: []string{"10.0.0.1:80", "[::1]:9"}}, {flag: []string{"a.lan:1", "b.lan:2"}, want: []string{"a.lan:1", "b.lan:2"}}},
	"fetch.timeout":             {{yaml: "5s", want: 5 * time.Second}, {yaml: "1m", want: time.Minute}},
	"fetch.max_bytes":           {{yaml: "1GiB", want: int64(1 << 30)}, {yaml: "100", want: int64(100)}},
	"output.format":             {{yaml: "html", want: "html"}, {yaml: "json", want: "json"}, {yaml: "md", want: "md"}},
	"output.style":              {{yaml: "plain", want: "plain"}, {yaml: "footnote", want: "footnote"}, {yaml: "html", want: "html"}},
	"output.unsupported":        {{yaml: "keep", want: "keep"}, {yaml: "remove", want: "remove"}},
	"serve.addr":                {{yaml: `":9000"`, want: ":9000"}, {env: "0.0.0.0:80", want: "0.0.0.0:80"}, {yaml: "[::1]:8081", want: "[::1]:8081"}},
	"serve.token":               {{yaml: "token-number-one-1", want: "token-number-one-1"}, {yaml: "token-number-two-2", want: "token-number-two-2"}, {yaml: "token-number-three", want: "token-number-three"}},
	"serve.max_runs":            {{yaml: "1", want: 1}, {yaml: "2", want: 2}},
	"serve.run_timeout":         {{yaml: "1m", want: time.Minute}, {yaml: "1h", want: time.Hour}},
	"serve.plan_timeout":        {{yaml: "1m", want: time.Minute}, {yaml: "24h", want: 24 * time.Hour}},
	"serve.plan_timeout_action": {{yaml: "cancel", want: "cancel"}, {yaml: "proceed", want: "proceed"}},
	"serve.max_body":            {{yaml: "1KiB", want: int64(1024)}, {yaml: "10", want: int64(10)}},
	"serve.resume":              {{yaml: "never", want: "never"}, {yaml: "auto", want: "auto"}},
	"serve.max_resumes":         {{yaml: "1", want: 1}, {yaml: "5", want: 5}},
	"recheck.every":             {{yaml: "24h", want: 24 * time.Hour}, {yaml: "90m", want: 90 * time.Minute}},
	"nats.url":                  {{yaml: "nats://a:4222", want: "nats://a:4222"}, {yaml: "nats://b:4222,nats://c:4222", want: "nats://b:4222,nats://c:4222"}},
	"nats.credentials":          {{yaml: "/a.creds", want: "/a.creds"}, {yaml: "/b.creds", want: "/b.creds"}},
	"nats.replicas":             {{yaml: "3", want: 3}, {yaml: "5", want: 5}},
	"nats.token":                {{yaml: "nats-token-number-1", want: "nats-token-number-1"}, {yaml: "nats-token-number-2", want: "nats-token-number-2"}},
	"nats.listen":               {{yaml: "127.0.0.1:4222", want: "127.0.0.1:4222"}, {yaml: "127.0.0.1:4223", want: "127.0.0.1:4223"}, {yaml: "127.0.0.1:0", want: "127.0.0.1:0"}},
	"nats.store_dir":            {{yaml: "/a/nats", want: "/a/nats"}, {yaml: "/b/nats", want: "/b/nats"}},
	"nats.workers":              {{yaml: "0", want: 0}, {yaml: "8", want: 8}},
	"nats.lease_ttl":            {{yaml: "10s", want: 10 * time.Second}, {yaml: "2m", want: 2 * time.Minute}},
	"nats.no_worker_after":      {{yaml: "0s", want: time.Duration(0)}, {yaml: "5m", want: 5 * time.Minute}},
	"store.path":                {{yaml: "/a/runs.db", want: "/a/runs.db"}, {yaml: "/b/runs.db", want: "/b/runs.db"}, {yaml: "/c/runs.db", want: "/c/runs.db"}},
	"log.level":                 {{yaml: "debug", want: "debug"}, {yaml: "error", want: "error"}, {yaml: "trace", want: "trace"}},
	"log.format":                {{yaml: "json", want: "json"}, {yaml: "console", want: "console"}, {yaml: "json", want: "json"}},
	"telemetry.otlp":            {{yaml: "http", want: "http"}, {yaml: "grpc", want: "grpc"}},
	"telemetry.endpoint":        {{yaml: "http://localhost:4318", want: "http://localhost:4318"}, {yaml: "collector:4317", want: "collector:4317"}},
}

// TestEveryKeyFromEverySource sets each key from the file, the environment
// and its flag (where it has one), alone and over one another.
func TestEveryKeyFromEverySource(t *testing.T) {
	flagOf := map[string]string{}
	for name, key := range FlagKeys {
		flagOf[key] = name
	}
	for _, key := range keys() {
		t.Run(key, func(t *testing.T) {
			ss, ok := samples[key]
			if !ok {
				t.Fatalf("no samples for %s", key)
			}
			file, env, flag := ss[0], ss[1], ss[2]
			if reflect.DeepEqual(file.want, env.want) || reflect.DeepEqual(file.want, value(config.Defaults(), key)) {
				t.Fatal("the file's sample is the default or the environment's")
			}
			sec, name, _ := strings.Cut(key, ".")
			fileText := sec + ":\n  " + name + ": " + file.yaml + "\n"
			envText := cmp.Or(env.env, env.yaml)
			var args []string
			if f := flagOf[key]; f != "" {
				if flag.want == nil || reflect.DeepEqual(flag.want, env.want) {
					t.Fatalf("no flag sample for --%s, or the environment's", f)
				}
				vals := flag.flag
				if vals == nil {
					vals = []string{flag.yaml}
				}
				for _, v := range vals {
					args = append(args, "--"+f+"="+v)
				}
			} else if flag.want != nil {
				t.Fatalf("a flag sample for %s, which has no flag", key)
			}
			load := func(t *testing.T, file, env string, args []string) config.Settings {
				t.Helper()
				isolate(t)
				if file != "" {
					write(t, "deepresearch.yaml", file)
				}
				t.Setenv(envName(key), env)
				s, err := Settings(nil, flagSet(t, args...), "")
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			check := func(t *testing.T, s config.Settings, want sample, from string) {
				t.Helper()
				if got := value(s, key); !reflect.DeepEqual(got, want.want) {
					t.Errorf("from %s: %s = %#v, want %#v", from, key, got, want.want)
				}
			}
			check(t, load(t, fileText, "", nil), file, "the file")
			check(t, load(t, "", envText, nil), env, envName(key))
			check(t, load(t, fileText, envText, nil), env, "the environment over the file")
			if args != nil {
				check(t, load(t, "", "", args), flag, "the flag")
				check(t, load(t, fileText, envText, args), flag, "the flag over the environment and the file")
			}
		})
	}
}

func TestFileDiscovery(t *testing.T) {
	t.Run("xdg", func(t *testing.T) {
		_, xdg := isolate(t)
		path := write(t, filepath.Join(xdg, "deepresearch", "config.yaml"), "research:\n  search_limit: 9\n")
		s, err := Settings(nil, nil, "")
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
		s, err := Settings(nil, nil, "")
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
		s, err := Settings(nil, nil, path)
		if err != nil {
			t.Fatal(err)
		}
		if s.Research.SearchLimit != 2 {
			t.Errorf("SearchLimit = %d, want 2", s.Research.SearchLimit)
		}
		_, err = Settings(nil, nil, "missing.yaml")
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "missing.yaml") {
			t.Errorf("err = %v, want a not-exist error naming the file", err)
		}
	})
	t.Run("a found file must be a regular file", func(t *testing.T) {
		isolate(t)
		if err := os.Mkdir("deepresearch.yaml", 0o755); err != nil {
			t.Fatal(err)
		}
		_, err := Settings(nil, nil, "")
		if err == nil || err.Error() != "config: deepresearch.yaml: not a regular file" {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("files are bounded", func(t *testing.T) {
		isolate(t)
		write(t, "big.yaml", "# "+strings.Repeat("x", maxFileSize)+"\n")
		_, err := Settings(nil, nil, "big.yaml")
		if err == nil || err.Error() != "config: big.yaml: larger than 1048576 bytes" {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("empty file", func(t *testing.T) {
		isolate(t)
		write(t, "deepresearch.yaml", "# nothing yet\n")
		s, err := Settings(nil, nil, "")
		if err != nil {
			t.Fatal(err)
		}
		want := config.Defaults()
		want.File = "deepresearch.yaml"
		if !reflect.DeepEqual(s, want) {
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
			is:   config.ErrInvalid,
		},
		{
			name: "flag below minimum",
			args: []string{"--parallelism", "0"},
			want: []string{"config: research.parallelism = 0 (from flag --parallelism): must be at least 1"},
			is:   config.ErrInvalid,
		},
		{
			name: "file values, all reported",
			file: "# settings\nresearch:\n  max_tokens: lots\n  agent_timeout: 2 minutes\noutput:\n  format: odt\n",
			want: []string{
				"config: research.max_tokens = lots (from deepresearch.yaml:3): must be a whole number",
				`config: research.agent_timeout = "2 minutes" (from deepresearch.yaml:4): must be a duration such as 90s, 2m or 1m30s`,
				"config: output.format = odt (from deepresearch.yaml:6): must be one of md, html, json, yaml, xml, mermaid, docx, pdf, csl-json, bibtex",
			},
			is: config.ErrInvalid,
		},
		{
			name: "errors in the order of the keys, whatever their source",
			file: "output:\n  style: apa\n",
			env:  map[string]string{"DEEPRESEARCH_LOG_LEVEL": "loud"},
			args: []string{"--max-tasks", "0", "--provider", "gpt"},
			want: []string{
				"config: model.provider = gpt (from flag --provider): must be one of extractive, openai, anthropic, googleai, ollama",
				"config: research.max_tasks = 0 (from flag --max-tasks): must be at least 1",
				"config: output.style = apa (from deepresearch.yaml:2): must be one of markdown, plain, footnote, html",
				"config: log.level = loud (from DEEPRESEARCH_LOG_LEVEL): must be one of trace, debug, info, warn, error, disabled",
			},
			is: config.ErrInvalid,
		},
		{
			name: "negative duration",
			env:  map[string]string{"DEEPRESEARCH_RESEARCH_AGENT_TIMEOUT": "-5s"},
			want: []string{"config: research.agent_timeout = -5s (from DEEPRESEARCH_RESEARCH_AGENT_TIMEOUT): must be positive"},
			is:   config.ErrInvalid,
		},
		{
			name: "a duration without its unit",
			file: "fetch:\n  timeout: 30\n",
			want: []string{"config: fetch.timeout = 30 (from deepresearch.yaml:2): must be a duration such as 90s, 2m or 1m30s"},
			is:   config.ErrInvalid,
		},
		{
			name: "unknown provider and style",
			env:  map[string]string{"DEEPRESEARCH_MODEL_PROVIDER": "gpt"},
			args: []string{"--style", "apa"},
			want: []string{
				"config: model.provider = gpt (from DEEPRESEARCH_MODEL_PROVIDER): must be one of extractive, openai, anthropic, googleai, ollama",
				"config: output.style = apa (from flag --style): must be one of markdown, plain, footnote, html",
			},
			is: config.ErrInvalid,
		},
		{
			name: "model settings",
			file: "model:\n  base_url: localhost:11434\n  planner: gpt4:turbo\n  writer: ':x'\n  max_concurrent: 0\n  tools: json\n",
			env:  map[string]string{"DEEPRESEARCH_MODEL_RESEARCHER": "OpenAI"},
			want: []string{
				"config: model.base_url = localhost:11434 (from deepresearch.yaml:2): must be an http or https URL, such as http://localhost:8080",
				"config: model.planner = gpt4:turbo (from deepresearch.yaml:3): must be provider or provider:name, with provider one of extractive, openai, anthropic, googleai, ollama",
				"config: model.writer = :x (from deepresearch.yaml:4): must be provider or provider:name, with provider one of extractive, openai, anthropic, googleai, ollama",
				"config: model.max_concurrent = 0 (from deepresearch.yaml:5): must be at least 1",
				"config: model.tools = json (from deepresearch.yaml:6): must be one of auto, native, text",
			},
			is: config.ErrInvalid,
		},
		{
			name: "prices in a file",
			file: "model:\n  prices:\n    openai:gpt-4o: {input: -1, output: 10}\n    gpt-4o: {input: 1, output: 2}\n    ollama:x: {input: cheap}\n",
			want: []string{
				"config: model.prices[ollama:x].input = cheap (from deepresearch.yaml:5): must be a number",
				"config: deepresearch.yaml:4: model.prices[gpt-4o]: the model must be provider:name, with provider one of extractive, openai, anthropic, googleai, ollama",
				"config: model.prices[openai:gpt-4o].input = -1 (from deepresearch.yaml:3): must be at least 0",
			},
			is: config.ErrInvalid,
		},
		{
			name: "a price that is no number",
			file: "model:\n  prices:\n    openai:gpt-4o: {input: 2.5, output: 10}\n    ollama:x:\n      input: cheap\n",
			want: []string{"config: model.prices[ollama:x].input = cheap (from deepresearch.yaml:5): must be a number"},
			is:   config.ErrInvalid,
		},
		{
			name: "a negative price",
			file: "model:\n  prices:\n    openai:gpt-4o:\n      input: 2.5\n      output: -10\n",
			want: []string{"config: model.prices[openai:gpt-4o].output = -10 (from deepresearch.yaml:5): must be at least 0"},
			is:   config.ErrInvalid,
		},
		{
			name: "prices in the environment",
			env:  map[string]string{"DEEPRESEARCH_MODEL_PRICES": "openai:gpt-4o=2.5/ten"},
			want: []string{"config: model.prices[openai:gpt-4o].output = ten (from DEEPRESEARCH_MODEL_PRICES): must be a number"},
			is:   config.ErrInvalid,
		},
		{
			name: "prices in the environment, malformed",
			env:  map[string]string{"DEEPRESEARCH_MODEL_PRICES": "openai:gpt-4o=2.5"},
			want: []string{`config: model.prices = openai:gpt-4o=2.5 (from DEEPRESEARCH_MODEL_PRICES): entry "openai:gpt-4o=2.5": want provider:name=INPUT/OUTPUT in dollars per million tokens, such as openai:gpt-4o=2.5/10`},
			is:   config.ErrInvalid,
		},
		{
			name: "prices in the environment, twice",
			env:  map[string]string{"DEEPRESEARCH_MODEL_PRICES": "openai:o3=1/2,OpenAI:o3=2/4"},
			want: []string{"config: model.prices = openai:o3=1/2,OpenAI:o3=2/4 (from DEEPRESEARCH_MODEL_PRICES): openai:o3 is priced twice"},
			is:   config.ErrInvalid,
		},
		{
			name: "price shapes in a file",
			file: "model:\n  prices:\n    openai:a: 5\n    openai:b: {inptu: 1}\n    openai:c: {input: [1]}\n    OpenAI:a: {}\n",
			want: []string{
				"config: deepresearch.yaml:3: model.prices[openai:a]: must be a mapping of input and output prices",
				"config: deepresearch.yaml:4: model.prices[openai:b].inptu: unknown key; did you mean model.prices[openai:b].input?",
				"config: deepresearch.yaml:5: model.prices[openai:c].input: must be a number",
				"config: deepresearch.yaml:6: model.prices[openai:a]: repeated; first at line 3",
			},
			is: config.ErrUnknownKey,
		},
		{
			name: "prices not a mapping",
			file: "model:\n  prices: [1, 2]\n",
			want: []string{"config: deepresearch.yaml:2: model.prices: must be a mapping of provider:name to input and output prices"},
			is:   config.ErrInvalid,
		},
		{
			name: "run limits",
			env:  map[string]string{"DEEPRESEARCH_RESEARCH_MAX_RUN_TOKENS": "-1", "DEEPRESEARCH_RESEARCH_MAX_COST": "-0.5"},
			want: []string{
				"config: research.max_run_tokens = -1 (from DEEPRESEARCH_RESEARCH_MAX_RUN_TOKENS): must be at least 0",
				"config: research.max_cost = -0.5 (from DEEPRESEARCH_RESEARCH_MAX_COST): must be at least 0",
			},
			is: config.ErrInvalid,
		},
		{
			name: "costs are finite numbers",
			args: []string{"--max-cost", "NaN"},
			want: []string{"config: research.max_cost = NaN (from flag --max-cost): must be a number"},
			is:   config.ErrInvalid,
		},
		{
			name: "costs are numbers",
			file: "research:\n  max_cost: $5\n",
			want: []string{"config: research.max_cost = $5 (from deepresearch.yaml:2): must be a number"},
			is:   config.ErrInvalid,
		},
		{
			name: "search providers",
			args: []string{"--search", "corpus,bing,Yahoo"},
			env:  map[string]string{"DEEPRESEARCH_SEARCH_SEARXNG_URL": "ftp://s"},
			want: []string{
				"config: search.providers = corpus,bing,Yahoo (from flag --search): must name some of corpus, searxng, tavily, brave, exa, chroma or mcp:NAME of a server in mcp.servers; not bing, yahoo",
				"config: search.searxng_url = ftp://s (from DEEPRESEARCH_SEARCH_SEARXNG_URL): must be an http or https URL, such as http://localhost:8080",
			},
			is: config.ErrInvalid,
		},
		{
			name: "no search provider",
			file: "search:\n  providers: []\n",
			want: []string{"config: search.providers = \"\" (from deepresearch.yaml:2): must name at least one of corpus, searxng, tavily, brave, exa, chroma"},
			is:   config.ErrInvalid,
		},
		{
			name: "list shapes",
			file: "search:\n  providers: [[corpus]]\nfetch:\n  allow: {a: 1}\n",
			want: []string{
				"config: deepresearch.yaml:2: search.providers: must be a list of single values",
				"config: deepresearch.yaml:4: fetch.allow: must be a list of single values",
			},
			is: config.ErrInvalid,
		},
		{
			name: "fetch settings",
			file: "fetch:\n  allow: [localhost, 'localhost:99999', ':80', 'ok.lan:1']\n  timeout: 0s\n  max_bytes: 5MB\n",
			want: []string{
				"config: fetch.allow = localhost,localhost:99999,:80,ok.lan:1 (from deepresearch.yaml:2): must list HOST:PORT addresses, such as localhost:8888; not localhost, localhost:99999, :80",
				"config: fetch.timeout = 0s (from deepresearch.yaml:3): must be positive",
				"config: fetch.max_bytes = 5MB (from deepresearch.yaml:4): must be a size in bytes such as 1048576, 512KiB or 5MiB",
			},
			is: config.ErrInvalid,
		},
		{
			name: "sizes are at least one byte",
			env:  map[string]string{"DEEPRESEARCH_FETCH_MAX_BYTES": "0KiB", "DEEPRESEARCH_SERVE_MAX_BODY": "99999999999GiB"},
			want: []string{
				"config: fetch.max_bytes = 0KiB (from DEEPRESEARCH_FETCH_MAX_BYTES): must be at least 1",
				"config: serve.max_body = 99999999999GiB (from DEEPRESEARCH_SERVE_MAX_BODY): must be a size in bytes such as 1048576, 512KiB or 5MiB",
			},
			is: config.ErrInvalid,
		},
		{
			name: "output.unsupported",
			env:  map[string]string{"DEEPRESEARCH_OUTPUT_UNSUPPORTED": "hide"},
			want: []string{"config: output.unsupported = hide (from DEEPRESEARCH_OUTPUT_UNSUPPORTED): must be one of keep, flag, remove"},
			is:   config.ErrInvalid,
		},
		{
			name: "serve settings",
			file: "serve:\n  max_runs: 0\n  run_timeout: soon\n  max_body: -1\n  plan_timeout_action: wait\n",
			args: []string{"--addr", "localhost"},
			want: []string{
				"config: serve.addr = localhost (from flag --addr): must be HOST:PORT, such as 127.0.0.1:8080 (or :8080 for every interface)",
				"config: serve.max_runs = 0 (from deepresearch.yaml:2): must be at least 1",
				"config: serve.run_timeout = soon (from deepresearch.yaml:3): must be a duration such as 90s, 2m or 1m30s",
				"config: serve.max_body = -1 (from deepresearch.yaml:4): must be at least 1",
				"config: serve.plan_timeout_action = wait (from deepresearch.yaml:5): must be one of proceed, cancel",
			},
			is: config.ErrInvalid,
		},
		{
			name: "log settings",
			env:  map[string]string{"DEEPRESEARCH_LOG_FORMAT": "xml"},
			want: []string{"config: log.format = xml (from DEEPRESEARCH_LOG_FORMAT): must be one of console, json"},
			is:   config.ErrInvalid,
		},
		{
			name: "unknown environment variables",
			env: map[string]string{
				"DEEPRESEARCH_RESEARCH_FOO":      "1",
				"DEEPRESEARCH_RESEARCH_MAXTASKS": "3",
				"DEEPRESEARCH_MAX_TOKENS":        "9",
				"DEEPRESEARCH_OPENAI_API_KEY":    "sk-secret",
				"DEEPRESEARCH_TOKEN":             "t",
			},
			want: []string{
				"config: DEEPRESEARCH_MAX_TOKENS: unknown environment variable; did you mean DEEPRESEARCH_RESEARCH_MAX_TOKENS?",
				"config: DEEPRESEARCH_OPENAI_API_KEY: unknown environment variable; did you mean DEEPRESEARCH_MODEL_API_KEY?",
				"config: DEEPRESEARCH_RESEARCH_FOO: unknown environment variable",
				"config: DEEPRESEARCH_RESEARCH_MAXTASKS: unknown environment variable; did you mean DEEPRESEARCH_RESEARCH_MAX_TASKS?",
				"config: DEEPRESEARCH_TOKEN: unknown environment variable; did you mean DEEPRESEARCH_SERVE_TOKEN?",
			},
			is: config.ErrUnknownKey,
		},
		{
			name: "unknown variables and file keys together",
			file: "research:\n  max_task: 4\n",
			env:  map[string]string{"DEEPRESEARCH_RESEARCH_FOO": "1"},
			want: []string{
				"config: deepresearch.yaml:2: research.max_task: unknown key; did you mean research.max_tasks?",
				"config: DEEPRESEARCH_RESEARCH_FOO: unknown environment variable",
			},
			is: config.ErrUnknownKey,
		},
		{
			name: "malformed yaml",
			file: "research:\n  max_tasks: 4\n parallelism: 2\n",
			want: []string{"config: deepresearch.yaml:2: did not find expected key"},
			is:   config.ErrSyntax,
		},
		{
			name: "tab indentation",
			file: "research:\n\tmax_tasks: 4\n",
			want: []string{"config: deepresearch.yaml:2: found character that cannot start any token"},
			is:   config.ErrSyntax,
		},
		{
			name: "not a mapping",
			file: "- research\n",
			want: []string{"config: deepresearch.yaml:1: the file must be a mapping of sections (model:, research:, ...)"},
			is:   config.ErrSyntax,
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
			is: config.ErrUnknownKey,
		},
		{
			name: "wrong shapes",
			file: "research: 5\noutput:\n  format: [md, html]\n",
			want: []string{
				"config: deepresearch.yaml:1: research: must be a mapping of keys",
				"config: deepresearch.yaml:3: output.format: must be a single value",
			},
			is: config.ErrSyntax,
		},
		{
			name: "repeated keys",
			file: "research:\n  max_tasks: 4\n  max_tasks: 5\nresearch:\n  parallelism: 1\n",
			want: []string{
				"config: deepresearch.yaml:3: research.max_tasks: repeated; first at line 2",
				"config: deepresearch.yaml:4: research: repeated; first at line 1",
			},
			is: config.ErrSyntax,
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
			s, err := Settings(nil, flagSet(t, tc.args...), "")
			if err == nil {
				t.Fatalf("no error; settings %+v", s)
			}
			if got := strings.Split(err.Error(), "\n"); !slices.Equal(got, tc.want) {
				t.Errorf("error:\n%s\nwant:\n%s", err, strings.Join(tc.want, "\n"))
			}
			if !errors.Is(err, tc.is) {
				t.Errorf("errors.Is(err, %v) = false", tc.is)
			}
			var ce *config.Error
			if !errors.As(err, &ce) {
				t.Errorf("no *config.Error in %v", err)
			}
			if strings.Contains(err.Error(), "sk-secret") {
				t.Errorf("the error shows a secret: %v", err)
			}
		})
	}
}

// TestCallersViper checks what Load does with values set on the viper it
// is given: viper's Set wins over everything, and a key no setting has is
// an error, as a file's would be.
func TestCallersViper(t *testing.T) {
	isolate(t)
	v := viper.New()
	v.Set("research.max_tasks", 9)
	s, err := Settings(v, flagSet(t, "--max-tasks", "2"), "")
	if err != nil || s.Research.MaxTasks != 9 {
		t.Errorf("MaxTasks = %d, %v; want viper's 9", s.Research.MaxTasks, err)
	}

	v = viper.New()
	v.Set("research.colour", "red")
	v.Set("search.providers", 5)
	_, err = Settings(v, nil, "")
	want := "config: research.colour: unknown key\n" +
		"config: search.providers = 5 (from the viper given to load.Settings): must be a list of single values"
	if err == nil || err.Error() != want || !errors.Is(err, config.ErrUnknownKey) {
		t.Errorf("err = %v\nwant %s", err, want)
	}
}

// BenchmarkLoad measures a CLI start's configuration: a file, two
// variables and two flags.
func BenchmarkLoad(b *testing.B) {
	dir := b.TempDir()
	path := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(path, []byte("research:\n  max_tasks: 6\nmodel:\n  prices:\n    openai:gpt-4o: {input: 2.5, output: 10}\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Setenv("DEEPRESEARCH_RESEARCH_PARALLELISM", "2")
	b.Setenv("DEEPRESEARCH_SEARCH_PROVIDERS", "corpus,exa")
	fs := pflag.NewFlagSet("b", pflag.ContinueOnError)
	AddFlags(fs)
	if err := fs.Parse([]string{"--max-tokens", "9000", "--fetch-allow", "localhost:8888"}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Settings(nil, fs, path); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMCPServersErrors: a misspelt field of a server is named with the
// right one, a field of the wrong shape with its line.
func TestMCPServersErrors(t *testing.T) {
	isolate(t)
	write(t, "deepresearch.yaml", "mcp:\n  servers:\n    docs:\n      comand: [x]\n      env: [A]\n")
	_, err := Settings(nil, flagSet(t), "")
	want := []string{
		`config: deepresearch.yaml:4: mcp.servers[docs].comand: unknown key; did you mean mcp.servers[docs].command?`,
		`config: deepresearch.yaml:5: mcp.servers[docs].env: must be a mapping of names to single values`,
	}
	if err == nil || !slices.Equal(strings.Split(err.Error(), "\n"), want) {
		t.Errorf("error:\n%v\nwant:\n%s", err, strings.Join(want, "\n"))
	}
}
