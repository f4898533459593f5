package config

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/rs/zerolog"
	"github.com/tmc/langchaingo/embeddings"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/cite"
	"github.com/deepresearch/deepresearch/corpus"
	"github.com/deepresearch/deepresearch/domains"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/provider"
	"github.com/deepresearch/deepresearch/internal/websearch"
	"github.com/deepresearch/deepresearch/mcpsource"
	"github.com/deepresearch/deepresearch/search"
	"github.com/deepresearch/deepresearch/verify"
	"github.com/deepresearch/deepresearch/web"
)

// NewResearcher returns a Researcher built from s, as every front end
// (the CLI, the HTTP server, the MCP server) reads them: the Config of
// ResearcherConfig given to deepresearch.New. An embedder who builds the
// same Config gets the same Researcher. log receives diagnostics (nil:
// none). It does no I/O but read domains.tiers_file, when set; the
// corpus is indexed on the first run.
func NewResearcher(s Settings, log *zerolog.Logger) (*deepresearch.Researcher, error) {
	cfg, err := ResearcherConfig(s, log)
	if err != nil {
		return nil, err
	}
	return deepresearch.New(cfg)
}

// ResearcherConfig maps s onto the library's Config: it checks s
// (Validate), builds the model of each role (model.provider, .name,
// .base_url, .api_key and the provider's usual variables, model.planner,
// .researcher, .writer) and the price of each, the embedding model
// (model.embeddings), and maps the rest (the search backends of
// search.providers with the web engines' address and keys, the MCP
// servers of mcp.servers, the page fetcher and its SSRF guard of
// fetch.*, the domain policy of domains.*, the limits and budgets, the
// citation style, what verification does with unsupported citations).
// The variables are read through s.Getenv (Settings.Env), the only
// environment the library is given. A front end that sets what settings
// do not hold (Config.Agents) calls it, then deepresearch.New. Errors
// match deepresearch.ErrConfig.
func ResearcherConfig(s Settings, log *zerolog.Logger) (deepresearch.Config, error) {
	if err := s.Validate(); err != nil {
		return deepresearch.Config{}, fmt.Errorf("deepresearch: %w: %w", deepresearch.ErrConfig, err)
	}
	main := providerConfig(s.Model)
	roles, err := provider.NewRoles(context.Background(), main,
		provider.RoleSettings{Planner: s.Model.Planner, Researcher: s.Model.Researcher, Writer: s.Model.Writer}, s.Getenv)
	if err != nil {
		return deepresearch.Config{}, fmt.Errorf("deepresearch: %w: %w", deepresearch.ErrConfig, err)
	}
	emb, err := embedder(s.Model, s.Getenv)
	if err != nil {
		return deepresearch.Config{}, err
	}
	backend, err := searchBackend(s, emb, log)
	if err != nil {
		return deepresearch.Config{}, err
	}
	cfg := deepresearch.Config{
		Search:          backend,
		PlannerModel:    roles.Planner,
		ResearcherModel: roles.Researcher,
		WriterModel:     roles.Writer,
		Limits:          deepresearch.Limits{MaxTasks: s.Research.MaxTasks, Parallelism: s.Research.Parallelism, SearchLimit: s.Research.SearchLimit, MaxRunTokens: s.Research.MaxRunTokens, MaxCost: s.Research.MaxCost, MaxCycles: s.Research.MaxCycles, MaxRunAgents: s.Research.MaxRunAgents, MaxRunTime: s.Research.MaxRunTime},
		Budget: deepresearch.Budget{
			MaxToolCalls: s.Research.MaxToolCalls,
			MaxTokens:    s.Research.MaxTokens,
			Timeout:      s.Research.AgentTimeout,
		},
		People: deepresearch.PeopleDefaults{Clarify: deepresearch.ClarifyMode(s.Research.Clarify), Review: reviewMode(s.Research),
			Length: s.Output.Length, Language: s.Output.Language, Audience: s.Output.Audience},
		Fetch:       deepresearch.FetchConfig{Allow: s.Fetch.Allow, Timeout: s.Fetch.Timeout, MaxBytes: s.Fetch.MaxBytes},
		Style:       cite.Style(s.Output.Style), // parsed by Validate
		Unsupported: verify.Action(s.Output.Unsupported),
		Logger:      log,
		Telemetry:   deepresearch.Telemetry{ModelNames: roleModels(s.Model)},
	}
	if cfg.Domains, err = domainConfig(s.Domains); err != nil {
		closeBackend(backend)
		return deepresearch.Config{}, err
	}
	if len(s.Model.Prices) > 0 || s.Research.MaxCost > 0 {
		if cfg.Price, err = prices(s.Model); err != nil {
			closeBackend(backend)
			return deepresearch.Config{}, err
		}
	}
	return cfg, nil
}

// searchBackend builds the search backend of search.providers: the
// corpus of corpus.dir and corpus.index alone when the list is empty,
// else each name in turn, combined (web.Combine): "corpus", the web
// engines "searxng", "tavily", "brave" and "exa" with their address or
// key (webConfig), "chroma" (a backend per collection of
// search.chroma_collection and search.chroma_collections, queried with
// emb), and "mcp:NAME" (mcp.servers' NAME, not yet connected). Errors
// name the entry at fault.
func searchBackend(s Settings, emb embeddings.Embedder, log *zerolog.Logger) (_ search.Backend, err error) {
	openCorpus := func() (*corpus.Corpus, error) {
		return corpus.Open(s.Corpus.Dir, corpus.Options{IndexPath: s.Corpus.Index, Embedder: emb, Logger: log})
	}
	names := slices.DeleteFunc(slices.Clone(s.Search.Providers), func(n string) bool { return strings.TrimSpace(n) == "" })
	if len(names) == 0 || (len(names) == 1 && strings.EqualFold(strings.TrimSpace(names[0]), corpus.Channel)) {
		return openCorpus()
	}
	var members []search.Backend
	defer func() {
		if err != nil {
			for _, m := range members {
				closeBackend(m)
			}
		}
	}()
	w := webConfig(s)
	servers := mcpServers(s)
	for _, raw := range names {
		n := strings.ToLower(strings.TrimSpace(raw))
		switch {
		case n == corpus.Channel:
			c, err := openCorpus()
			if err != nil {
				return nil, err
			}
			members = append(members, c)
		case n == web.ChromaChannel:
			cc := web.ChromaConfig{URL: w.Chroma.URL, Tenant: w.Chroma.Tenant, Database: w.Chroma.Database, Token: w.Chroma.Token}
			colls := w.Chroma.Names()
			if len(colls) == 0 {
				colls = []string{""} // web.Chroma says what is missing
			}
			for _, name := range colls {
				c, err := web.Chroma(name, cc, emb, web.Options{})
				if err != nil {
					return nil, configErrorf("search.providers: %s: %v", n, err)
				}
				members = append(members, c)
			}
		case strings.HasPrefix(n, mcpsource.ChannelPrefix):
			name := strings.TrimPrefix(n, mcpsource.ChannelPrefix)
			srv, ok := servers[name]
			if !ok {
				return nil, configErrorf("search.providers: %s: no MCP server %q in mcp.servers", raw, name)
			}
			src, err := mcpsource.New(name, srv, mcpsource.Options{Progress: func(p mcpsource.Progress) {
				if log != nil {
					log.Debug().Str("mcp", p.Server).Str("tool", p.Tool).Float64("progress", p.Progress).Float64("total", p.Total).Str("message", p.Message).Msg("MCP tool progress")
				}
			}})
			if err != nil {
				return nil, configErrorf("search.providers: %s: %v", raw, err)
			}
			members = append(members, src)
		default:
			key := map[string]string{"searxng": w.SearXNGURL, "tavily": w.TavilyKey, "brave": w.BraveKey, "exa": w.ExaKey}[n]
			e, err := web.New(n, key, web.Options{})
			if err != nil {
				return nil, configErrorf("search.providers: %v", err)
			}
			members = append(members, e)
		}
	}
	c, err := web.Combine(members...)
	if err != nil {
		return nil, configErrorf("search.providers: %v", err)
	}
	return c, nil
}

// closeBackend closes b when it has a Close method (a corpus's index, an
// MCP server's session), on a failure after b was built.
func closeBackend(b search.Backend) {
	if c, ok := b.(io.Closer); ok {
		_ = c.Close()
	}
}

// configErrorf is an error in the settings' mapping onto a Config,
// matching deepresearch.ErrConfig as the library's own are.
func configErrorf(format string, args ...any) error {
	return fmt.Errorf("deepresearch: %w: %s", deepresearch.ErrConfig, fmt.Sprintf(format, args...))
}

// reviewMode is the ReviewMode of the settings research.review_plan
// and research.review (Validate checked its word): every_cycle reviews
// each cycle's plan (it implies review_plan), review_plan the first,
// else none.
func reviewMode(r Research) deepresearch.ReviewMode {
	switch {
	case r.Review == string(deepresearch.ReviewEveryCycle):
		return deepresearch.ReviewEveryCycle
	case r.ReviewPlan:
		return deepresearch.ReviewFirstPlan
	}
	return ""
}

// webConfig is the web search engines' address, keys and Chroma
// collection: search.searxng_url and search.chroma_*, else the settings'
// environment (SEARXNG_URL, TAVILY_API_KEY, BRAVE_API_KEY, EXA_API_KEY,
// CHROMA_URL, CHROMA_API_KEY).
func webConfig(s Settings) websearch.Config {
	w := websearch.ConfigFromEnv(s.Getenv)
	w.SearXNGURL = cmp.Or(s.Search.SearxngURL, w.SearXNGURL)
	w.Chroma = websearch.ChromaConfig{URL: cmp.Or(s.Search.ChromaURL, w.Chroma.URL), Collection: s.Search.ChromaCollection,
		Collections: s.Search.ChromaCollections, Tenant: s.Search.ChromaTenant, Database: s.Search.ChromaDatabase, Token: w.Chroma.Token}
	return w
}

// providerConfig is the main model's provider settings.
func providerConfig(m Model) provider.Config {
	return provider.Config{Provider: m.Provider, Name: m.Name, BaseURL: m.BaseURL, APIKey: m.APIKey,
		MaxConcurrent: m.MaxConcurrent, Tools: provider.ToolMode(m.Tools)}
}

// prices returns the Price of each role's model from model.prices
// ("provider:name" → dollars per million input and output tokens). With
// research.max_cost set, every role's model must have a price.
func prices(m Model) (func(role string, u events.Usage) float64, error) {
	byRole := map[string]Price{}
	for role, key := range roleModels(m) {
		p, _, _ := strings.Cut(key, ":")
		price, ok := m.Prices[key]
		if !ok && p != provider.Extractive {
			return nil, configErrorf("model.prices has no price for %s (the %s's model); research.max_cost needs one", key, role)
		}
		byRole[role] = price
	}
	return func(role string, u events.Usage) float64 {
		p := byRole[role]
		return (float64(u.PromptTokens)*p.Input + float64(u.CompletionTokens)*p.Output) / 1e6
	}, nil
}

// roleModels names the model of each role as "provider:name" (the
// provider lower case, the name as written or the provider's default), as
// model.prices keys it.
func roleModels(m Model) map[string]string {
	out := map[string]string{}
	for role, setting := range map[string]string{events.RolePlanner: m.Planner, events.RoleResearcher: m.Researcher, events.RoleWriter: m.Writer} {
		p, name := provider.ParseRole(setting)
		if p == "" {
			p = m.Provider
		}
		if name == "" {
			name = m.Name
			if p != m.Provider || name == "" {
				name = provider.DefaultNames[p]
			}
		}
		out[role] = strings.ToLower(p) + ":" + name
	}
	return out
}

// embeddingConfig is the provider settings of model.embeddings
// ("provider:name" or "provider" for its default): on the main model's
// provider it shares model.base_url and model.api_key.
func embeddingConfig(m Model) provider.Config {
	p, name := provider.ParseRole(m.Embeddings)
	if p == "" {
		p, name = name, ""
	}
	cfg := provider.Config{Provider: p, Name: name}
	if p == m.Provider {
		cfg.BaseURL, cfg.APIKey = m.BaseURL, m.APIKey
	}
	return cfg
}

// embedder builds model.embeddings' embedder, nil when none is set (see
// embeddingConfig); the provider's usual variables (OPENAI_API_KEY,
// OPENAI_BASE_URL, OLLAMA_HOST, GOOGLE_API_KEY or GEMINI_API_KEY) are
// read through getenv.
func embedder(m Model, getenv func(string) string) (embeddings.Embedder, error) {
	if m.Embeddings == "" {
		return nil, nil
	}
	e, err := provider.NewEmbedder(embeddingConfig(m), getenv)
	if err != nil {
		return nil, configErrorf("embeddings: %v", err)
	}
	return e, nil
}

// mcpServers is mcp.servers by name: each child's
// environment is its env, with PATH and HOME from the settings'
// environment unless env sets them (npx and node need them).
func mcpServers(s Settings) map[string]mcpsource.Server {
	if len(s.MCP.Servers) == 0 {
		return nil
	}
	out := make(map[string]mcpsource.Server, len(s.MCP.Servers))
	for name, srv := range s.MCP.Servers {
		var env map[string]string
		if len(srv.Command) > 0 {
			env = maps.Clone(srv.Env)
			if env == nil {
				env = map[string]string{}
			}
			for _, k := range []string{"PATH", "HOME"} {
				if _, set := env[k]; !set && s.Getenv(k) != "" {
					env[k] = s.Getenv(k)
				}
			}
		}
		out[name] = mcpsource.Server{Command: slices.Clone(srv.Command), Env: env, URL: srv.URL, Tools: mcpsource.Mapping{
			SearchTool: srv.SearchTool, QueryArg: srv.QueryArg, LimitArg: srv.LimitArg, SearchArgs: maps.Clone(srv.SearchArgs),
			ReadTool: srv.ReadTool, URLArg: srv.URLArg}, Timeout: srv.Timeout}
	}
	return out
}

// domainConfig is the domains.Config of the domains settings: the lists as
// they are, the table read from domains.tiers_file, and each
// "PATTERN=TIER" of domains.tiers ([none]: NoTiers).
func domainConfig(s Domains) (domains.Config, error) {
	d := domains.Config{Allow: s.Allow, Deny: s.Deny}
	if s.TiersFile != "" {
		b, err := os.ReadFile(s.TiersFile)
		if err != nil {
			return domains.Config{}, configErrorf("domains.tiers_file: %v", err)
		}
		d.TierTable = b
	}
	for _, e := range s.Tiers {
		e = strings.TrimSpace(e)
		if strings.EqualFold(e, "none") {
			if len(s.Tiers) > 1 {
				return domains.Config{}, configErrorf("domains.tiers: \"none\" rates no source and goes alone")
			}
			d.NoTiers = true
			continue
		}
		pattern, tier, ok := strings.Cut(e, "=")
		if !ok || strings.TrimSpace(pattern) == "" {
			return domains.Config{}, configErrorf("domains.tiers: %q: want PATTERN=TIER (blog.example.com=primary)", e)
		}
		if d.Tiers == nil {
			d.Tiers = map[string]string{}
		}
		d.Tiers[strings.TrimSpace(pattern)] = strings.TrimSpace(tier)
	}
	return d, nil
}
