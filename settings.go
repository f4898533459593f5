package deepresearch

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/rs/zerolog"

	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/fetch"
	"github.com/deepresearch/deepresearch/internal/provider"
	"github.com/deepresearch/deepresearch/internal/websearch"
)

// FetchConfig configures the page fetcher a run's web search reads pages
// with: the SSRF guard's allowlist (Allow: HOST:PORT pairs let through
// although internal), a timeout and a size cap.
type FetchConfig = fetch.Config

// FromSettings returns a Researcher built from settings, as every front
// end (the CLI, the HTTP server, the MCP server) reads them: it checks
// them, builds the model of each role (model.provider, .name, .base_url,
// .api_key and the provider's usual variables, model.planner, .researcher,
// .writer) and the price of each, the embedding model (model.embeddings),
// maps the rest onto a Config (the search backends of search.providers
// with the web engines' address and keys, the page fetcher and its SSRF
// guard of fetch.*, the limits and budgets, the citation style, what
// verification does with unsupported citations) and calls New: an
// embedder who builds the same Config gets the same Researcher. The
// variables are read through settings' Getenv (config.Settings.Env), the
// only environment the library reads. log receives diagnostics (nil:
// none). It does no I/O but read domains.tiers_file, when set; the
// corpus is indexed on the first run.
func FromSettings(s config.Settings, log *zerolog.Logger) (*Researcher, error) {
	cfg, err := ConfigFromSettings(s, log)
	if err != nil {
		return nil, err
	}
	return New(cfg)
}

// ConfigFromSettings is the Config FromSettings gives New, for a front
// end that sets what settings do not hold (Config.Agents) before it calls
// New itself.
func ConfigFromSettings(s config.Settings, log *zerolog.Logger) (Config, error) {
	if err := s.Validate(); err != nil {
		return Config{}, fmt.Errorf("deepresearch: %w: %w", ErrConfig, err)
	}
	main := providerConfig(s.Model)
	roles, err := provider.NewRoles(context.Background(), main,
		provider.RoleSettings{Planner: s.Model.Planner, Researcher: s.Model.Researcher, Writer: s.Model.Writer}, s.Getenv)
	if err != nil {
		return Config{}, fmt.Errorf("deepresearch: %w: %w", ErrConfig, err)
	}
	emb, err := embedderFromSettings(s.Model, s.Getenv)
	if err != nil {
		return Config{}, err
	}
	web := webFromSettings(s)
	cfg := Config{
		Embedder:        emb,
		Chroma:          web.Chroma,
		PlannerModel:    roles.Planner,
		ResearcherModel: roles.Researcher,
		WriterModel:     roles.Writer,
		Corpus:          s.Corpus.Dir,
		IndexPath:       s.Corpus.Index,
		MaxTasks:        s.Research.MaxTasks,
		Parallelism:     s.Research.Parallelism,
		SearchLimit:     s.Research.SearchLimit,
		Budget: Budget{
			MaxToolCalls: s.Research.MaxToolCalls,
			MaxTokens:    s.Research.MaxTokens,
			Timeout:      s.Research.AgentTimeout,
		},
		MaxRunTokens: s.Research.MaxRunTokens,
		MaxCost:      s.Research.MaxCost,
		MaxCycles:    s.Research.MaxCycles,
		MaxRunAgents: s.Research.MaxRunAgents,
		MaxRunTime:   s.Research.MaxRunTime,
		People: PeopleDefaults{Clarify: ClarifyMode(s.Research.Clarify), Review: reviewSetting(s.Research),
			Length: s.Output.Length, Language: s.Output.Language, Audience: s.Output.Audience},
		SearchEngines: s.Search.Providers,
		MCPServers:    mcpFromSettings(s),
		SearXNGURL:    web.SearXNGURL,
		TavilyKey:     web.TavilyKey,
		BraveKey:      web.BraveKey,
		ExaKey:        web.ExaKey,
		Fetch:         FetchConfig{Allow: s.Fetch.Allow, Timeout: s.Fetch.Timeout, MaxBytes: s.Fetch.MaxBytes},
		Style:         Style(s.Output.Style), // parsed by Validate
		Unsupported:   Action(s.Output.Unsupported),
		Logger:        log,
		ModelNames:    roleModels(s.Model),
	}
	if cfg.Domains, err = domainsFromSettings(s.Domains); err != nil {
		return Config{}, err
	}
	if len(s.Model.Prices) > 0 || s.Research.MaxCost > 0 {
		if cfg.Price, err = prices(s.Model); err != nil {
			return Config{}, err
		}
	}
	return cfg, nil
}

// reviewSetting is the ReviewMode of the settings research.review_plan
// and research.review (Validate checked its word): every_cycle reviews
// each cycle's plan (it implies review_plan), review_plan the first,
// else none.
func reviewSetting(r config.Research) ReviewMode {
	switch {
	case r.Review == string(ReviewEveryCycle):
		return ReviewEveryCycle
	case r.ReviewPlan:
		return ReviewFirstPlan
	}
	return ""
}

// webFromSettings is the web search engines' address, keys and Chroma
// collection: search.searxng_url and search.chroma_*, else the settings'
// environment (SEARXNG_URL, TAVILY_API_KEY, BRAVE_API_KEY, EXA_API_KEY,
// CHROMA_URL, CHROMA_API_KEY).
func webFromSettings(s config.Settings) websearch.Config {
	w := websearch.ConfigFromEnv(s.Getenv)
	w.SearXNGURL = cmp.Or(s.Search.SearxngURL, w.SearXNGURL)
	w.Chroma = ChromaConfig{URL: cmp.Or(s.Search.ChromaURL, w.Chroma.URL), Collection: s.Search.ChromaCollection,
		Collections: s.Search.ChromaCollections, Tenant: s.Search.ChromaTenant, Database: s.Search.ChromaDatabase, Token: w.Chroma.Token}
	return w
}

// providerConfig is the main model's provider settings.
func providerConfig(m config.Model) provider.Config {
	return provider.Config{Provider: m.Provider, Name: m.Name, BaseURL: m.BaseURL, APIKey: m.APIKey,
		MaxConcurrent: m.MaxConcurrent, Tools: provider.ToolMode(m.Tools)}
}

// prices returns the Price of each role's model from model.prices
// ("provider:name" → dollars per million input and output tokens). With
// research.max_cost set, every role's model must have a price.
func prices(m config.Model) (func(role string, u Usage) float64, error) {
	byRole := map[string]config.Price{}
	for role, key := range roleModels(m) {
		p, _, _ := strings.Cut(key, ":")
		price, ok := m.Prices[key]
		if !ok && p != provider.Extractive {
			return nil, configErrorf("model.prices has no price for %s (the %s's model); research.max_cost needs one", key, role)
		}
		byRole[role] = price
	}
	return func(role string, u Usage) float64 {
		p := byRole[role]
		return (float64(u.PromptTokens)*p.Input + float64(u.CompletionTokens)*p.Output) / 1e6
	}, nil
}

// roleModels names the model of each role as "provider:name" (the
// provider lower case, the name as written or the provider's default), as
// model.prices keys it.
func roleModels(m config.Model) map[string]string {
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

// localIndex is the Researcher's local corpus index as a search backend,
// opened and synced on first use.
type localIndex struct{ r *Researcher }

func (l localIndex) Search(ctx context.Context, q string, limit int) ([]SearchResult, error) {
	ix, err := l.r.openIndex(ctx)
	if err != nil {
		return nil, err
	}
	return ix.Search(ctx, q, limit)
}

func (l localIndex) Fetch(ctx context.Context, id string) (Document, error) {
	ix, err := l.r.openIndex(ctx)
	if err != nil {
		return Document{}, err
	}
	return ix.Fetch(ctx, id)
}
