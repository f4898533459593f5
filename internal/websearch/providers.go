package websearch

import (
	"fmt"
	"slices"
	"strings"

	"github.com/deepresearch/deepresearch/search"
)

// Providers are the web search providers New knows, in the order Describe
// lists them.
var Providers = []string{"searxng", "tavily", "brave", "exa"}

// New returns the engine for provider ("searxng", "tavily", "brave" or
// "exa"), configured from cfg. It makes no call: a missing address or key is
// an *Error wrapping ErrNoKey that names the variable to set; a bad key shows
// on the first search.
func New(provider string, cfg Config) (*Engine, error) {
	cfg = cfg.withDefaults()
	name := strings.ToLower(strings.TrimSpace(provider))
	st, ok := describe(name, cfg)
	if !ok {
		return nil, fmt.Errorf("websearch: %q: %w (want one of %s)", provider, ErrUnknownProvider, strings.Join(Providers, ", "))
	}
	if !st.Configured {
		return nil, &Error{Provider: name, Op: "config", EnvVar: st.EnvVar, Err: ErrNoKey}
	}
	e := &Engine{name: name, pages: cfg.Pages, tiers: cfg.Tiers}
	e.caller = caller{provider: name, envVar: st.EnvVar, cfg: &cfg}
	switch name {
	case "searxng":
		base, err := baseURL(name, st.EnvVar, cfg.SearXNGURL)
		if err != nil {
			return nil, err
		}
		e.impl = &searxng{base: base}
	case "tavily":
		base, err := baseURL(name, "", cfg.TavilyURL)
		if err != nil {
			return nil, err
		}
		e.impl = &tavily{base: base, key: cfg.TavilyKey}
	case "brave":
		base, err := baseURL(name, "", cfg.BraveURL)
		if err != nil {
			return nil, err
		}
		e.impl = &brave{base: base, key: cfg.BraveKey}
	case "exa":
		base, err := baseURL(name, "", cfg.ExaURL)
		if err != nil {
			return nil, err
		}
		e.impl = &exa{base: base, key: cfg.ExaKey}
	}
	return e, nil
}

// baseURL checks a provider's base URL and drops its trailing slash.
func baseURL(provider, envVar, raw string) (string, error) {
	if _, ok := webURL(raw); !ok {
		e := &Error{Provider: provider, Op: "config", EnvVar: envVar, Err: fmt.Errorf("base URL %q is not an http or https URL", raw)}
		return "", e
	}
	return strings.TrimRight(strings.TrimSpace(raw), "/"), nil
}

// Status says whether a provider is configured, without its secret.
type Status struct {
	Provider   string `json:"provider"`
	Configured bool   `json:"configured"`
	// EnvVar is the variable that configures it.
	EnvVar string `json:"env_var"`
	// Endpoint is the API address (SearXNG's without userinfo).
	Endpoint string `json:"endpoint"`
	// Key is the key's shape, never the key: "" when unset, else "set (N
	// chars)".
	Key string `json:"key,omitempty"`
}

// Describe reports every provider's configuration, for `deepresearch
// doctor`. It reveals no secret.
func Describe(cfg Config) []Status {
	cfg = cfg.withDefaults()
	out := make([]Status, 0, len(Providers))
	for _, p := range Providers {
		st, _ := describe(p, cfg)
		out = append(out, st)
	}
	return out
}

func describe(name string, cfg Config) (Status, bool) {
	if !slices.Contains(Providers, name) {
		return Status{}, false
	}
	key := func(k string) string {
		if k == "" {
			return ""
		}
		return fmt.Sprintf("set (%d chars)", len(k))
	}
	switch name {
	case "searxng":
		return Status{Provider: name, Configured: cfg.SearXNGURL != "", EnvVar: EnvSearXNGURL, Endpoint: redactURL(cfg.SearXNGURL)}, true
	case "tavily":
		return Status{Provider: name, Configured: cfg.TavilyKey != "", EnvVar: EnvTavilyKey, Endpoint: cfg.TavilyURL + "/search", Key: key(cfg.TavilyKey)}, true
	case "brave":
		return Status{Provider: name, Configured: cfg.BraveKey != "", EnvVar: EnvBraveKey, Endpoint: cfg.BraveURL + "/res/v1/web/search", Key: key(cfg.BraveKey)}, true
	default:
		return Status{Provider: name, Configured: cfg.ExaKey != "", EnvVar: EnvExaKey, Endpoint: cfg.ExaURL + "/search", Key: key(cfg.ExaKey)}, true
	}
}

// Build returns the search backend for a --search list: names are
// providers or "corpus" (the local index, which must then be non-nil),
// combined in the order given, each web engine on the "web" channel, the
// corpus on the "corpus" channel and each of cfg.Chroma's collections on
// the "chroma" channel (a member of its own, "chroma:NAME" when there are
// several, so that each record keeps its collection), and each of
// cfg.Backends on the channel of its name. Errors name the entry at fault: an
// unknown name, a name given twice, or a provider that is not configured
// (naming its variable).
func Build(names []string, cfg Config, corpus search.Backend, hooks Hooks) (*Combined, error) {
	var members []Member
	for _, n := range names {
		n = strings.ToLower(strings.TrimSpace(n))
		switch n {
		case "":
			continue
		case ChannelCorpus:
			if corpus == nil {
				return nil, fmt.Errorf("websearch: corpus: no local index to search")
			}
			members = append(members, Member{Name: n, Channel: ChannelCorpus, Backend: corpus})
		case ChannelChroma:
			names := cfg.Chroma.Names()
			if len(names) == 0 {
				names = []string{""} // NewChroma says what is missing
			}
			for _, c := range names {
				cc := cfg.Chroma
				cc.Collection, cc.Collections = c, nil
				ch, err := NewChroma(cc, cfg.Embedder, cfg)
				if err != nil {
					return nil, err
				}
				m := Member{Name: n, Channel: ChannelChroma, Backend: ch}
				if len(names) > 1 {
					m.Name = n + ":" + c
				}
				members = append(members, m)
			}
		default:
			if b, ok := cfg.Backends[n]; ok {
				members = append(members, Member{Name: n, Channel: n, Backend: b})
				continue
			}
			e, err := New(n, cfg)
			if err != nil {
				return nil, err
			}
			members = append(members, Member{Name: n, Channel: ChannelWeb, Backend: e})
		}
	}
	return Combine(hooks, members...)
}
