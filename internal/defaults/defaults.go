// Package defaults holds the built-in defaults of deepresearch's settings
// as plain Go constants, for the core packages (the root, internal/agent)
// and for config.Defaults. config/defaults.yaml documents the same values
// for people; a test of config/load decodes that file and compares it with
// config.Defaults, so the two cannot drift apart.
package defaults

import "time"

// Model.
const (
	Provider      = "extractive" // model.provider
	MaxConcurrent = 4            // model.max_concurrent
	Tools         = "auto"       // model.tools
)

// Research limits: the plan, the agents and their budgets.
const (
	MaxTasks       = 4                  // research.max_tasks
	Parallelism    = 4                  // research.parallelism
	SearchLimit    = 5                  // research.search_limit
	MaxToolCalls   = 8                  // research.max_tool_calls
	MaxTokens      = 16000              // research.max_tokens
	AgentTimeout   = 2 * time.Minute    // research.agent_timeout
	MaxCycles      = 3                  // research.max_cycles
	SearchCorpus   = "corpus"           // search.providers: the local index
	ChromaTenant   = "default_tenant"   // search.chroma.tenant: Chroma's default
	ChromaDatabase = "default_database" // search.chroma.database: Chroma's default
	FetchTimeout   = 20 * time.Second   // fetch.timeout
	FetchMaxSize   = 5 << 20            // fetch.max_bytes
)

// The final report.
const (
	Format      = "md"       // output.format
	Style       = "markdown" // output.style
	Unsupported = "flag"     // output.unsupported
)

// The HTTP server and logging.
const (
	ServeAddr       = "127.0.0.1:8080" // serve.addr
	ServeMaxRuns    = 8                // serve.max_runs
	ServeRunTimeout = 10 * time.Minute // serve.run_timeout
	ServeMaxBody    = 1 << 20          // serve.max_body
	ServeResume     = "auto"           // serve.resume
	ServeMaxResumes = 3                // serve.max_resumes
	LogLevel        = "warn"           // log.level
	LogFormat       = "console"        // log.format
)

// PositiveOr returns v when it is positive, else def: how a limit left
// zero (or set negative) takes its default. It is not cmp.Or, which keeps
// any non-zero value.
// Defaults of the library that no setting names.
const (
	MaxRetries      = 2                      // Config.MaxRetries, corpus.Options.MaxRetries, web.Options.MaxRetries
	StopGrace       = 500 * time.Millisecond // Config.StopGrace
	RecheckParallel = 2                      // RunsOptions.RecheckParallel
	ResumeEvery     = 10 * time.Second       // Runs.KeepResuming's period: a third of sqlitestore's 30 s lease
)

func PositiveOr[T ~int | ~int64 | ~float64](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}
