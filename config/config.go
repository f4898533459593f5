// Package config is deepresearch's settings: the Settings every front end
// reads (the CLI, the HTTP server, the MCP server), their built-in
// defaults, the checks of every value, and their mapping onto the
// library: NewResearcher and ResearcherConfig (a Researcher and its
// Config), RunsOptions, RenderOptions, Index and Diagnose. The library
// itself knows nothing of Settings: an embedder builds a
// deepresearch.Config from Go values, or from Settings through here.
//
// The package links no configuration library: reading settings from a
// YAML file, DEEPRESEARCH_* environment variables and command-line flags
// is the subpackage config/load's, which the command uses. The defaults
// are Go constants (Defaults); the embedded defaults.yaml documents every
// key with the same values (DefaultsYAML, a template for users' files),
// and a test of config/load decodes it to check that the two agree.
package config

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"time"

	"github.com/deepresearch/deepresearch/internal/defaults"
)

//go:embed defaults.yaml
var defaultsYAML []byte

// DefaultsYAML returns the built-in defaults file: every key, its default
// and its meaning, in the format config/load reads.
func DefaultsYAML() []byte { return slices.Clone(defaultsYAML) }

// Settings is deepresearch's configuration. The mapstructure tags are the
// keys of the YAML file; environment variables and flags name the same
// keys (see config/load). A Settings holds slices and a map: copy them
// before changing a Settings shared with others.
type Settings struct {
	Model    Model    `mapstructure:"model"`
	Corpus   Corpus   `mapstructure:"corpus"`
	Research Research `mapstructure:"research"`
	Search   Search   `mapstructure:"search"`
	MCP      MCP      `mapstructure:"mcp"`
	// Domains is the domain policy and the source tiers of web research
	// (the domains section).
	Domains Domains `mapstructure:"domains"`
	Fetch   Fetch   `mapstructure:"fetch"`
	Output  Output  `mapstructure:"output"`
	Serve   Serve   `mapstructure:"serve"`
	Store   Store   `mapstructure:"store"`
	NATS    NATS    `mapstructure:"nats"`
	Log     Log     `mapstructure:"log"`

	Telemetry Telemetry `mapstructure:"telemetry"`

	Recheck Recheck `mapstructure:"recheck"`

	// File is the configuration file config/load read, or "" when it read none.
	File string `mapstructure:"-"`
	// Env is the environment the settings hold besides their keys: the
	// model providers' usual variables (OPENAI_API_KEY, OLLAMA_HOST, …)
	// and the web search engines' (SEARXNG_URL, TAVILY_API_KEY,
	// BRAVE_API_KEY, EXA_API_KEY, CHROMA_URL, CHROMA_API_KEY), read through
	// Getenv. Nil (the default) means the process environment; a map, only
	// what it holds (empty: none), so that one process can hold settings
	// with different keys.
	Env map[string]string `mapstructure:"-"`
}

// Getenv returns the variable name of s.Env: from the map when there is
// one, else from the process environment. It is how settings reach the
// environment; the library (deepresearch.New) reads none.
func (s Settings) Getenv(name string) string {
	if s.Env != nil {
		return s.Env[name]
	}
	return os.Getenv(name)
}

// Model selects the language models.
type Model struct {
	// Provider is the model backend for every role not set below:
	// "extractive" (default) needs no model and no network; "openai",
	// "anthropic", "googleai" and "ollama" are language model APIs.
	Provider string `mapstructure:"provider"`
	// Name is the provider's model name; "" (default) is the provider's
	// default.
	Name string `mapstructure:"name"`
	// BaseURL is the provider's endpoint, an http or https URL; ""
	// (default) is the provider's default.
	BaseURL string `mapstructure:"base_url"`
	// APIKey is the provider's key; "" (default) is none.
	APIKey string `mapstructure:"api_key"`
	// Planner, Researcher and Writer choose the model of one role as
	// "provider:name" (for example "ollama:llama3.1:8b"); "" (default)
	// is Provider and Name.
	Planner    string `mapstructure:"planner"`
	Researcher string `mapstructure:"researcher"`
	Writer     string `mapstructure:"writer"`
	// MaxConcurrent is the most model calls in flight at once to one
	// provider; default 4.
	MaxConcurrent int `mapstructure:"max_concurrent"`
	// Tools is how agents call tools: "auto" (default: the provider's
	// native tool calling where it has one, else text), "native" or
	// "text" (plain-text JSON requests, for models without tool calling).
	Tools string `mapstructure:"tools"`
	// Embeddings is the embedding model, "provider:name" or "provider"
	// for its default ("openai:text-embedding-3-small",
	// "ollama:nomic-embed-text", "googleai:gemini-embedding-001"; any
	// OpenAI-compatible server through openai and base_url): with one,
	// the corpus is searched by bm25 fused with vector similarity, and
	// Chroma collections can be queried. "" (default) is none: lexical
	// search, offline. On the main provider it uses BaseURL and APIKey.
	Embeddings string `mapstructure:"embeddings"`
	// Prices maps "provider:name" to the model's price, for cost
	// accounting and research.max_cost; default none. The provider part
	// is lower case; the name is as written.
	Prices map[string]Price `mapstructure:"prices"`
}

// Price is what a model costs, in dollars per million tokens.
type Price struct {
	Input  float64 `mapstructure:"input"`
	Output float64 `mapstructure:"output"`
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
	// MaxRunTokens is the most tokens a whole run may spend, planner,
	// agents and writer together; 0 (default) is unlimited.
	MaxRunTokens int `mapstructure:"max_run_tokens"`
	// MaxCost is the most a run may cost in dollars, priced by
	// Model.Prices; 0 (default) is unlimited.
	MaxCost float64 `mapstructure:"max_cost"`
	// MaxCycles is the most research cycles of a run; default 3, and 1
	// is a single pass.
	MaxCycles int `mapstructure:"max_cycles"`
	// MaxRunAgents is the most agents of a run over all its cycles; 0
	// (default) is MaxTasks × MaxCycles.
	MaxRunAgents int `mapstructure:"max_run_agents"`
	// MaxRunTime is a run's time budget; 0 (default) is unlimited.
	MaxRunTime time.Duration `mapstructure:"max_run_time"`
	// Clarify is whether a run asks clarifying questions before it
	// plans: "auto" (default: when the model finds the question
	// ambiguous; the extractive model never asks) or "never".
	Clarify string `mapstructure:"clarify"`
	// ReviewPlan puts every run's plan to review before research starts,
	// where a person can review it (a terminal, the HTTP API, the live
	// page); default false. A run's own review mode (the request's
	// "review", --review) replaces this and Review for that run.
	ReviewPlan bool `mapstructure:"review_plan"`
	// Review is which plans are reviewed: "first_plan" (default) or
	// "every_cycle" (each later research cycle's follow-ups too; it
	// implies ReviewPlan).
	Review string `mapstructure:"review"`
}

// Search selects the search backends.
type Search struct {
	// Providers are the backends agents search, in order, each at most
	// once: "corpus" (default: the local index of Corpus), "searxng",
	// "tavily", "brave", "exa" or "chroma".
	Providers []string `mapstructure:"providers"`
	// SearxngURL is the SearXNG instance; "" (default) means SEARXNG_URL
	// of the settings' environment (Settings.Env). The engines' keys are
	// no settings: TAVILY_API_KEY, BRAVE_API_KEY and EXA_API_KEY of that
	// environment.
	SearxngURL string `mapstructure:"searxng_url"`
	// ChromaURL, ChromaCollection, ChromaCollections, ChromaTenant and
	// ChromaDatabase name the Chroma collections Providers' "chroma"
	// queries, with the query vectors of Model.Embeddings (the model the
	// collections were built with). ChromaURL "" (default) means CHROMA_URL
	// of the settings' environment, else http://localhost:8000 (its token
	// is CHROMA_API_KEY of that environment); the collections are
	// ChromaCollection, then ChromaCollections (seed 003's [catalog, faq,
	// troubleshooting]), all queried at once, each record keeping its
	// collection; both empty (default) is none, which "chroma" needs;
	// tenant and database
	// default to Chroma's own, "default_tenant" and "default_database".
	ChromaURL         string   `mapstructure:"chroma_url"`
	ChromaCollection  string   `mapstructure:"chroma_collection"`
	ChromaCollections []string `mapstructure:"chroma_collections"`
	ChromaTenant      string   `mapstructure:"chroma_tenant"`
	ChromaDatabase    string   `mapstructure:"chroma_database"`
}

// Domains is which web pages research may use and how credible each is
// (docs/models-and-web.md).
type Domains struct {
	// Allow, when not empty, limits research to pages whose domain
	// matches one of its patterns ("*.gov", "example.org/docs*"); Deny
	// refuses those matching any of its patterns. Both apply to search
	// results, links followed, fetches and every redirect.
	Allow []string `mapstructure:"allow"`
	Deny  []string `mapstructure:"deny"`
	// TiersFile is a YAML file that replaces the built-in table of source
	// tiers ("" is the built-in one; `deepresearch domains` prints it).
	TiersFile string `mapstructure:"tiers_file"`
	// Tiers override single entries of the table, each "PATTERN=TIER"
	// ("blog.example.com=primary"); TIER is primary, news, forum or
	// content-farm, or "none" to rate no source at all (alone).
	Tiers []string `mapstructure:"tiers"`
}

// Fetch bounds the reading of web pages.
type Fetch struct {
	// Allow lists the "host:port" addresses the SSRF guard lets through
	// although they are private or local (for example a local SearXNG);
	// default none. Hosts are lower case.
	Allow []string `mapstructure:"allow"`
	// Timeout is the time limit of one fetch; default 20s.
	Timeout time.Duration `mapstructure:"timeout"`
	// MaxBytes is the most bytes read of one page; default 5 MiB.
	MaxBytes int64 `mapstructure:"max_bytes"`
}

// Output shapes the final report.
type Output struct {
	// Format is the document format: "md" (default), "html", "json",
	// "yaml", "xml", "mermaid" (the citation graph), "docx" (a Word
	// document), "pdf" (printed by Chromium: see Chromium), or the
	// reference list alone as "csl-json" or "bibtex".
	Format string `mapstructure:"format"`
	// Style is how citations show: "markdown" (default), "plain",
	// "footnote" or "html".
	Style string `mapstructure:"style"`
	// Unsupported is what verification does with a citation whose
	// source does not support its sentence: "keep" it, "flag" it
	// (default) or "remove" it.
	Unsupported string `mapstructure:"unsupported"`
	// Length is the report's target length in words; 0 (default) is the
	// writer's own.
	Length int `mapstructure:"length"`
	// Language is the language reports are written in; "" (default) is
	// the question's.
	Language string `mapstructure:"language"`
	// Audience is who reports are for, and in what tone; "" (default)
	// is none in particular.
	Audience string `mapstructure:"audience"`
	// Chromium is the browser that prints "pdf" reports: a path, or a
	// name on PATH; "" (default) looks for chromium, chromium-browser,
	// google-chrome and google-chrome-stable on PATH.
	Chromium string `mapstructure:"chromium"`
}

// Serve configures the HTTP server.
type Serve struct {
	// Addr is the "host:port" it listens on; default 127.0.0.1:8080.
	Addr string `mapstructure:"addr"`
	// Token is the bearer token clients must send; "" (default) is none.
	Token string `mapstructure:"token"`
	// MaxRuns is the most runs at once; default 8.
	MaxRuns int `mapstructure:"max_runs"`
	// RunTimeout is the time limit of one run; default 10m.
	RunTimeout time.Duration `mapstructure:"run_timeout"`
	// MaxBody is the most bytes of a request body; default 1 MiB.
	MaxBody int64 `mapstructure:"max_body"`
	// Resume is what a starting server does with the runs a server of
	// the same store left interrupted (killed, crashed, shut down): "auto"
	// (default) resumes them from their journals, "never" leaves them.
	Resume string `mapstructure:"resume"`
	// MaxResumes is the most times one run is resumed; a run interrupted
	// more often ends failed. Default 3.
	MaxResumes int `mapstructure:"max_resumes"`
	// PlanTimeout is how long a run whose plan is put to review waits for its
	// plan's review; 0 (default) waits as long as it takes.
	PlanTimeout time.Duration `mapstructure:"plan_timeout"`
	// PlanTimeoutAction is what a run does when PlanTimeout passes:
	// "proceed" (default: research the plan as proposed) or "cancel".
	PlanTimeoutAction string `mapstructure:"plan_timeout_action"`
}

// Store configures the run store.
type Store struct {
	// Path is the SQLite file runs are kept in; "" (default) is
	// DefaultStorePath.
	Path string `mapstructure:"path"`
}

// NATS configures research across machines on NATS JetStream (package
// natsrun).
type NATS struct {
	// URL is the NATS server, or a comma-separated list of a cluster's
	// servers (nats://host:4222,...); "" (default) runs research in this
	// process only.
	URL string `mapstructure:"url"`
	// Credentials is a NATS credentials (.creds) file; "" connects
	// without one.
	Credentials string `mapstructure:"credentials"`
	// Replicas is the replica count of every stream: 1 (default), 3 or 5.
	Replicas int `mapstructure:"replicas"`
	// Token is the NATS authorization token: what a client sends to a
	// server that requires one, and what serve's embedded server
	// requires (Listen); "" (default) sends and requires none.
	Token string `mapstructure:"token"`
	// Listen, for serve without URL, is HOST:PORT where it runs an
	// embedded JetStream server of its own, which 'deepresearch worker'
	// processes join to take its runs' agents; "" (default) runs none.
	// Beyond the loopback interface it needs Token.
	Listen string `mapstructure:"listen"`
	// StoreDir is where the embedded server keeps its streams; ""
	// (default) is a "nats" directory beside the run store.
	StoreDir string `mapstructure:"store_dir"`
	// Workers is how many agents serve runs at once for its embedded
	// server (default 4); 0 leaves them all to worker processes.
	Workers int `mapstructure:"workers"`
	// LeaseTTL is how long serve with URL holds a run's lease without
	// renewing it (default 30s): a run whose server died is taken over
	// by another server of the cluster once it has passed.
	LeaseTTL time.Duration `mapstructure:"lease_ttl"`
	// NoWorkerAfter is how long a coordinator's agent task may wait with
	// no worker alive (by the workers' heartbeats) before the run says so,
	// in a workers.missing event and in its status (default 2m); 0 never
	// says. The task stays queued: the run goes on when a worker appears.
	NoWorkerAfter time.Duration `mapstructure:"no_worker_after"`
}

// MCP names the MCP servers search.providers' "mcp:NAME" search and read
// through (docs/mcp-sources.md).
type MCP struct {
	// Servers are the servers by NAME; default none.
	Servers map[string]MCPServer `mapstructure:"servers"`
}

// MCPServer is one MCP server: a command run as a child process over
// stdio, or the URL of a streamable HTTP endpoint, and which of its tools
// search and read. The tools left empty are detected by their schemas: a
// search tool whose one required argument is a string named query, q or
// search (with a limit argument when it has one), a read tool whose one
// required argument is a string named path, uri or url.
type MCPServer struct {
	// Command is the program and its arguments ("npx", "-y", "pkg@1.2.3",
	// "/srv/docs"); the program is found on this process's PATH.
	Command []string `mapstructure:"command"`
	// Env is the child's environment; it inherits none but PATH and HOME
	// from the settings' environment, unless Env sets them.
	Env map[string]string `mapstructure:"env"`
	// URL is a streamable HTTP endpoint, an http or https URL.
	URL string `mapstructure:"url"`
	// SearchTool, QueryArg and LimitArg: the tool that searches, its
	// query argument and its limit argument. With SearchArgs and no
	// QueryArg the tool lists documents, which are read and ranked.
	SearchTool string `mapstructure:"search_tool"`
	QueryArg   string `mapstructure:"query_arg"`
	LimitArg   string `mapstructure:"limit_arg"`
	// SearchArgs are fixed arguments of every search, as text, converted
	// to the types the tool's schema gives them.
	SearchArgs map[string]string `mapstructure:"search_args"`
	// ReadTool and URLArg: the tool that opens a document and its
	// locator argument.
	ReadTool string `mapstructure:"read_tool"`
	URLArg   string `mapstructure:"url_arg"`
	// Timeout bounds each call to the server, connecting included; 0
	// (default) is 60s.
	Timeout time.Duration `mapstructure:"timeout"`
}

// Log configures diagnostic logging.
type Log struct {
	// Level is the least level logged: "trace", "debug", "info", "warn"
	// (default), "error" or "disabled".
	Level string `mapstructure:"level"`
	// Format is "console" (default, human-readable) or "json".
	Format string `mapstructure:"format"`
}

// Recheck configures the re-checks serve makes of its stored reports
// (deepresearch.RunsOptions.RecheckEvery).
type Recheck struct {
	// Every is how often serve reads the web pages its stored finished
	// runs' reports cite again, keeping with each run whether its report
	// still holds; 0 (default) never (re-check one on demand: GET
	// /v1/research/{id}/recheck, deepresearch recheck).
	Every time.Duration `mapstructure:"every"`
}

// Telemetry configures the OpenTelemetry traces of runs (docs/telemetry.md).
type Telemetry struct {
	// OTLP is how spans are exported: "off" (default: no spans), "http"
	// (OTLP over HTTP, protobuf) or "grpc". The standard OTEL_EXPORTER_OTLP_*
	// variables (headers, timeout, TLS, compression), OTEL_SERVICE_NAME,
	// OTEL_RESOURCE_ATTRIBUTES and OTEL_BSP_* configure the exporter;
	// OTEL_SDK_DISABLED=true turns it off.
	OTLP string `mapstructure:"otlp"`
	// Endpoint is the collector's OTLP address: a base URL
	// ("http://localhost:4318", to which http adds /v1/traces) or
	// HOST:PORT (plain text, no TLS); ""
	// (default) is OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or
	// OTEL_EXPORTER_OTLP_ENDPOINT, else localhost:4318 (http) or
	// localhost:4317 (grpc).
	Endpoint string `mapstructure:"endpoint"`
}

// TelemetryModes are the values of telemetry.otlp.
var TelemetryModes = []string{"off", "http", "grpc"}

// Defaults returns the built-in settings, those defaults.yaml documents.
// Each call returns a fresh copy, which the caller may change.
func Defaults() Settings {
	return Settings{
		Model: Model{Provider: defaults.Provider, MaxConcurrent: defaults.MaxConcurrent, Tools: defaults.Tools,
			Prices: map[string]Price{}},
		Research: Research{MaxTasks: defaults.MaxTasks, Parallelism: defaults.Parallelism, SearchLimit: defaults.SearchLimit,
			MaxToolCalls: defaults.MaxToolCalls, MaxTokens: defaults.MaxTokens, AgentTimeout: defaults.AgentTimeout, MaxCycles: defaults.MaxCycles,
			Clarify: "auto", Review: "first_plan"},
		Search: Search{Providers: []string{defaults.SearchCorpus}, ChromaCollections: []string{},
			ChromaTenant: defaults.ChromaTenant, ChromaDatabase: defaults.ChromaDatabase},
		MCP:     MCP{Servers: map[string]MCPServer{}},
		Domains: Domains{Allow: []string{}, Deny: []string{}, Tiers: []string{}},
		Fetch:   Fetch{Allow: []string{}, Timeout: defaults.FetchTimeout, MaxBytes: defaults.FetchMaxSize},
		Output:  Output{Format: defaults.Format, Style: defaults.Style, Unsupported: defaults.Unsupported},
		Serve: Serve{Addr: defaults.ServeAddr, MaxRuns: defaults.ServeMaxRuns, RunTimeout: defaults.ServeRunTimeout, PlanTimeoutAction: "proceed",
			MaxBody: defaults.ServeMaxBody, Resume: defaults.ServeResume, MaxResumes: defaults.ServeMaxResumes},
		NATS: NATS{Replicas: 1, Workers: 4, LeaseTTL: 30 * time.Second, NoWorkerAfter: 2 * time.Minute},
		Log:  Log{Level: defaults.LogLevel, Format: defaults.LogFormat},

		Telemetry: Telemetry{OTLP: "off"},
	}
}

// DefaultStorePath returns where the run store lives when store.path is
// "": deepresearch/runs.db in the user's data directory, which is
// $XDG_DATA_HOME or ~/.local/share on Unix, ~/Library/Application Support
// on macOS and %LocalAppData% on Windows. It creates nothing.
func DefaultStorePath() (string, error) {
	dir, err := userDataDir()
	if err != nil {
		return "", fmt.Errorf("config: default store path: %w", err)
	}
	return filepath.Join(dir, "deepresearch", "runs.db"), nil
}

func userDataDir() (string, error) {
	switch runtime.GOOS {
	case "windows":
		if dir := os.Getenv("LocalAppData"); dir != "" {
			return dir, nil
		}
		return "", errors.New("%LocalAppData% is not defined")
	case "darwin", "ios":
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(home, "Library", "Application Support"), nil
	}
	if dir := os.Getenv("XDG_DATA_HOME"); dir != "" {
		if !filepath.IsAbs(dir) {
			return "", errors.New("path in $XDG_DATA_HOME is relative")
		}
		return dir, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".local", "share"), nil
}
