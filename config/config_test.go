package config

import (
	"bytes"
	"errors"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestDefaults(t *testing.T) {
	want := Settings{
		Model:    Model{Provider: "extractive", MaxConcurrent: 4, Tools: "auto", Prices: map[string]Price{}},
		Research: Research{MaxTasks: 4, Parallelism: 4, SearchLimit: 5, MaxToolCalls: 8, MaxTokens: 16000, AgentTimeout: 2 * time.Minute, MaxCycles: 3, Clarify: "auto", Review: "first_plan"},
		Search:   Search{Providers: []string{"corpus"}, ChromaCollections: []string{}, ChromaTenant: "default_tenant", ChromaDatabase: "default_database"},
		MCP:      MCP{Servers: map[string]MCPServer{}},
		Domains:  Domains{Allow: []string{}, Deny: []string{}, Tiers: []string{}},
		Fetch:    Fetch{Allow: []string{}, Timeout: 20 * time.Second, MaxBytes: 5 << 20},
		Output:   Output{Format: "md", Style: "markdown", Unsupported: "flag"},
		Serve:    Serve{Addr: "127.0.0.1:8080", MaxRuns: 8, RunTimeout: 10 * time.Minute, MaxBody: 1 << 20, Resume: "auto", MaxResumes: 3, PlanTimeoutAction: "proceed"},
		NATS:     NATS{Replicas: 1, Workers: 4, LeaseTTL: 30 * time.Second, NoWorkerAfter: 2 * time.Minute},
		Log:      Log{Level: "warn", Format: "console"},

		Telemetry: Telemetry{OTLP: "off"},
	}
	d := Defaults()
	if !reflect.DeepEqual(d, want) {
		t.Errorf("Defaults() = %+v\nwant %+v", d, want)
	}
	if err := d.Validate(); err != nil {
		t.Errorf("the defaults do not validate: %v", err)
	}
	if !bytes.Equal(DefaultsYAML(), defaultsYAML) {
		t.Error("DefaultsYAML differs from the embedded file")
	}

	// Each call is a copy of its own.
	d.Search.Providers[0] = "exa"
	d.Fetch.Allow = append(d.Fetch.Allow, "localhost:1")
	d.Model.Prices["openai:x"] = Price{Input: 1}
	if again := Defaults(); !reflect.DeepEqual(again, want) {
		t.Errorf("changing one Defaults() changed the next: %+v", again)
	}
	DefaultsYAML()[0] = 'X'
	if defaultsYAML[0] == 'X' {
		t.Error("DefaultsYAML returned the embedded bytes themselves")
	}
}

func TestValidate(t *testing.T) {
	s := Defaults()
	s.Output.Format = "HTML" // Validate does not normalise
	s.Model.Prices["gpt-4o"] = Price{Input: 1}
	s.Search.Providers = []string{"corpus", "corpus", "exa", "exa", "exa"}
	s.Fetch.MaxBytes = 0
	s.Recheck.Every = -time.Hour
	err := s.Validate()
	want := []string{
		"config: model.prices[gpt-4o]: the model must be provider:name, with provider one of extractive, openai, anthropic, googleai, ollama",
		"config: search.providers = corpus,corpus,exa,exa,exa: names corpus, exa twice",
		"config: fetch.max_bytes = 0: must be at least 1",
		"config: output.format = HTML: must be one of md, html, json, yaml, xml, mermaid, docx, pdf, csl-json, bibtex",
		"config: recheck.every = -1h0m0s: must be 0 (never) or a positive duration, such as 24h",
	}
	if err == nil || !slices.Equal(strings.Split(err.Error(), "\n"), want) {
		t.Errorf("err:\n%v\nwant:\n%s", err, strings.Join(want, "\n"))
	}
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("errors.Is(err, ErrInvalid) = false")
	}
}

func TestDefaultStorePath(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		t.Skip("the XDG layout is for Unix")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_DATA_HOME", "/data")
	if got, err := DefaultStorePath(); err != nil || got != "/data/deepresearch/runs.db" {
		t.Errorf("with XDG_DATA_HOME: %q, %v", got, err)
	}
	t.Setenv("XDG_DATA_HOME", "")
	if got, err := DefaultStorePath(); err != nil || got != filepath.Join(home, ".local/share/deepresearch/runs.db") {
		t.Errorf("without XDG_DATA_HOME: %q, %v", got, err)
	}
	t.Setenv("XDG_DATA_HOME", "relative")
	if _, err := DefaultStorePath(); err == nil || !strings.Contains(err.Error(), "XDG_DATA_HOME") {
		t.Errorf("relative XDG_DATA_HOME: err = %v", err)
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

// An embedding model names a provider that has them; chroma needs a
// collection and the embedding model its vectors came from.
func TestValidateEmbeddingsAndChroma(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(*Settings)
		want []string
	}{
		{"openai", func(s *Settings) { s.Model.Embeddings = "openai:text-embedding-3-small" }, nil},
		{"provider alone", func(s *Settings) { s.Model.Embeddings = "ollama" }, nil},
		{"no embedding models", func(s *Settings) { s.Model.Embeddings = "anthropic:claude" },
			[]string{"config: model.embeddings = anthropic:claude: must be provider or provider:name, with provider one of openai, ollama, googleai"}},
		{"chroma alone", func(s *Settings) { s.Search.Providers = []string{"chroma"} }, []string{
			`config: search.chroma_collections = "": must name the Chroma collections that search.providers' chroma queries (or search.chroma_collection one)`,
			`config: model.embeddings = "": must name the embedding model of the Chroma collection (search.providers has chroma), such as openai:text-embedding-3-small`,
		}},
		{"chroma configured", func(s *Settings) {
			s.Search.Providers = []string{"corpus", "chroma"}
			s.Search.ChromaCollection, s.Model.Embeddings, s.Search.ChromaURL = "catalog", "openai", "http://localhost:8000"
		}, nil},
		{"several collections", func(s *Settings) {
			s.Search.Providers = []string{"chroma"}
			s.Search.ChromaCollections, s.Model.Embeddings = []string{"catalog", "faq", "troubleshooting"}, "openai"
		}, nil},
		{"a list as one name", func(s *Settings) {
			s.Search.Providers = []string{"chroma"}
			s.Search.ChromaCollection, s.Model.Embeddings = "catalog,faq", "openai"
		}, []string{"config: search.chroma_collection = catalog,faq: must be one Chroma collection's name (3 to 512 letters, digits, '.', '_' or '-', " +
			"starting and ending with a letter or digit); several go in search.chroma_collections"}},
		{"bad and repeated names", func(s *Settings) {
			s.Search.ChromaCollection = "faq"
			s.Search.ChromaCollections = []string{"catalog", "a/b", "faq", "x"}
		}, []string{
			"config: search.chroma_collections = catalog,a/b,faq,x: must list Chroma collections' names (3 to 512 letters, digits, '.', '_' or '-', starting and ending with a letter or digit); not a/b, x",
			"config: search.chroma_collections = catalog,a/b,faq,x: names faq, which search.chroma_collection names already",
		}},
		{"chroma url", func(s *Settings) { s.Search.ChromaURL = "localhost:8000" },
			[]string{"config: search.chroma_url = localhost:8000: must be an http or https URL, such as http://localhost:8080"}},
	} {
		s := Defaults()
		tc.set(&s)
		var got []string
		if err := s.Validate(); err != nil {
			got = strings.Split(err.Error(), "\n")
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s:\n got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// TestGetenv: settings read the process environment unless they carry
// their own, which may be empty.
func TestGetenv(t *testing.T) {
	t.Setenv("DEEPRESEARCH_TEST_KEY", "from the process")
	for _, tt := range []struct {
		env  map[string]string
		want string
	}{
		{nil, "from the process"},
		{map[string]string{"DEEPRESEARCH_TEST_KEY": "the settings' own"}, "the settings' own"},
		{map[string]string{}, ""},
	} {
		s := Defaults()
		s.Env = tt.env
		if got := s.Getenv("DEEPRESEARCH_TEST_KEY"); got != tt.want {
			t.Errorf("Env %v: Getenv = %q, want %q", tt.env, got, tt.want)
		}
	}
}

func TestValidateMCP(t *testing.T) {
	for name, tc := range map[string]struct {
		providers []string
		servers   map[string]MCPServer
		want      string // in the error; "" for none
	}{
		"declared":      {[]string{"mcp:docs"}, map[string]MCPServer{"docs": {Command: []string{"mcp-server"}}}, ""},
		"undeclared":    {[]string{"mcp:docs"}, nil, "mcp:NAME of a server in mcp.servers; not mcp:docs"},
		"both":          {[]string{"corpus"}, map[string]MCPServer{"w": {Command: []string{"x"}, URL: "http://h/mcp"}}, "mcp.servers[w]"},
		"neither":       {[]string{"corpus"}, map[string]MCPServer{"w": {}}, "must give one of command"},
		"bad url":       {[]string{"corpus"}, map[string]MCPServer{"w": {URL: "ftp://h"}}, "mcp.servers[w].url"},
		"empty program": {[]string{"corpus"}, map[string]MCPServer{"w": {Command: []string{""}}}, "must start with the program"},
	} {
		s := Defaults()
		s.Search.Providers, s.MCP.Servers = tc.providers, tc.servers
		err := s.Validate()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", name, err, tc.want)
		}
	}
}
