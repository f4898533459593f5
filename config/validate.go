package config

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/output"
	"github.com/deepresearch/deepresearch/render"
)

// The values of settings that take one of a few.
var (
	modelProviders = []string{"extractive", "openai", "anthropic", "googleai", "ollama"}
	toolModes      = []string{"auto", "native", "text"}
	// chromaName is a Chroma collection's name as Chroma allows it.
	chromaName      = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{1,510}[A-Za-z0-9]$`)
	searchProviders = []string{"corpus", "searxng", "tavily", "brave", "exa", "chroma"}
	// embeddingProviders have embedding models.
	embeddingProviders = []string{"openai", "ollama", "googleai"}
)

// Validate checks every value of s (without normalising it first; see
// Normalize): every problem is reported, each an *Error naming the key (or
// the part of one, such as "model.prices[openai:gpt-4o].input") and the
// value, joined with errors.Join in the order of the keys.
func (s Settings) Validate() error {
	probs := check(&s)
	if len(probs) == 0 {
		return nil
	}
	errs := make([]error, len(probs))
	for i, p := range probs {
		errs[i] = &Error{Key: p.name, Value: p.val, Err: p.err}
	}
	return errors.Join(errs...)
}

// problem is what is wrong with the value of name: a key, or a part of
// one such as "model.prices[openai:gpt-4o].input".
type problem struct {
	name string
	val  any // the value checked, for Validate; config/load shows the raw one
	err  error
}

type problems []problem

func (ps *problems) add(name string, val any, format string, args ...any) {
	*ps = append(*ps, problem{name: name, val: val, err: invalid(format, args...)})
}

func (ps *problems) oneOf(key, val string, choices []string) {
	if !slices.Contains(choices, val) {
		ps.add(key, val, "must be one of %s", strings.Join(choices, ", "))
	}
}

// parsed reports a value its Parse refused (err), or left empty: a
// setting always names its choice.
func parsed[T ~string](ps *problems, key, val string, err error, choices []T) {
	if err != nil || val == "" {
		names := make([]string, len(choices))
		for i, c := range choices {
			names[i] = string(c)
		}
		ps.add(key, val, "must be one of %s", strings.Join(names, ", "))
	}
}

func (ps *problems) atLeast(key string, val, least int) {
	if val < least {
		ps.add(key, val, "must be at least %d", least)
	}
}

func (ps *problems) positive(key string, val time.Duration) {
	if val <= 0 {
		ps.add(key, val, "must be positive")
	}
}

func (ps *problems) httpURL(key, val string) {
	if val == "" {
		return
	}
	u, err := url.Parse(val)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		ps.add(key, val, "must be an http or https URL, such as http://localhost:8080")
	}
}

func (ps *problems) modelRole(key, val string) {
	if val == "" {
		return
	}
	if provider, _, _ := strings.Cut(val, ":"); !slices.Contains(modelProviders, provider) {
		ps.add(key, val, "must be provider or provider:name, with provider one of %s", strings.Join(modelProviders, ", "))
	}
}

// list reports the items of list that are not ok, or given twice, in one
// problem: must, then the items.
func (ps *problems) list(key string, list []string, ok func(string) bool, must string) {
	var bad, twice []string
	for i, item := range list {
		switch {
		case !ok(item):
			bad = append(bad, showValue(item))
		case slices.Contains(list[:i], item) && !slices.Contains(twice, showValue(item)):
			twice = append(twice, showValue(item))
		}
	}
	if bad != nil {
		ps.add(key, list, "%s; not %s", must, strings.Join(bad, ", "))
	}
	if twice != nil {
		ps.add(key, list, "names %s twice", strings.Join(twice, ", "))
	}
}

// check returns every problem with the values of s.
func check(s *Settings) []problem {
	var ps problems
	m := s.Model
	ps.oneOf("model.provider", m.Provider, modelProviders)
	ps.httpURL("model.base_url", m.BaseURL)
	ps.modelRole("model.planner", m.Planner)
	ps.modelRole("model.researcher", m.Researcher)
	ps.modelRole("model.writer", m.Writer)
	ps.atLeast("model.max_concurrent", m.MaxConcurrent, 1)
	if m.Embeddings != "" {
		if provider, _, _ := strings.Cut(m.Embeddings, ":"); !slices.Contains(embeddingProviders, provider) {
			ps.add("model.embeddings", m.Embeddings, "must be provider or provider:name, with provider one of %s", strings.Join(embeddingProviders, ", "))
		}
	}
	ps.oneOf("model.tools", m.Tools, toolModes)
	for _, id := range slices.Sorted(maps.Keys(m.Prices)) {
		entry := "model.prices[" + id + "]"
		if provider, name, _ := strings.Cut(id, ":"); !slices.Contains(modelProviders, provider) || name == "" {
			ps.add(entry, nil, "the model must be provider:name, with provider one of %s", strings.Join(modelProviders, ", "))
		}
		if x := m.Prices[id].Input; x < 0 {
			ps.add(entry+".input", x, "must be at least 0")
		}
		if x := m.Prices[id].Output; x < 0 {
			ps.add(entry+".output", x, "must be at least 0")
		}
	}

	r := s.Research
	ps.atLeast("research.max_tasks", r.MaxTasks, 1)
	ps.atLeast("research.parallelism", r.Parallelism, 1)
	ps.atLeast("research.search_limit", r.SearchLimit, 1)
	ps.atLeast("research.max_tool_calls", r.MaxToolCalls, 1)
	ps.atLeast("research.max_tokens", r.MaxTokens, 1)
	ps.positive("research.agent_timeout", r.AgentTimeout)
	ps.atLeast("research.max_run_tokens", r.MaxRunTokens, 0)
	if r.MaxCost < 0 {
		ps.add("research.max_cost", r.MaxCost, "must be at least 0")
	}
	ps.atLeast("research.max_cycles", r.MaxCycles, 1)
	ps.atLeast("research.max_run_agents", r.MaxRunAgents, 0)
	if r.MaxRunTime < 0 {
		ps.add("research.max_run_time", r.MaxRunTime, "must be at least 0")
	}
	ps.oneOf("research.clarify", r.Clarify, []string{"auto", "never"})
	ps.oneOf("research.review", r.Review, []string{"first_plan", "every_cycle"})

	if p := s.Search.Providers; len(p) == 0 {
		ps.add("search.providers", p, "must name at least one of %s", strings.Join(searchProviders, ", "))
	} else {
		ps.list("search.providers", p, func(name string) bool {
			if server, ok := strings.CutPrefix(name, "mcp:"); ok {
				_, declared := s.MCP.Servers[server]
				return declared
			}
			return slices.Contains(searchProviders, name)
		}, "must name some of "+strings.Join(searchProviders, ", ")+" or mcp:NAME of a server in mcp.servers")
	}
	for _, name := range slices.Sorted(maps.Keys(s.MCP.Servers)) {
		srv, key := s.MCP.Servers[name], "mcp.servers["+name+"]"
		switch {
		case len(srv.Command) > 0 == (srv.URL != ""):
			ps.add(key, name, "must give one of command (a program and its arguments, run over stdio) and url (a streamable HTTP endpoint)")
		case len(srv.Command) > 0 && strings.TrimSpace(srv.Command[0]) == "":
			ps.add(key+".command", srv.Command, "must start with the program to run")
		}
		ps.httpURL(key+".url", srv.URL)
		if srv.Timeout < 0 {
			ps.add(key+".timeout", srv.Timeout, "must be at least 0")
		}
	}
	ps.httpURL("search.searxng_url", s.Search.SearxngURL)
	ps.httpURL("search.chroma_url", s.Search.ChromaURL)
	if c := s.Search.ChromaCollection; c != "" && !chromaName.MatchString(c) {
		ps.add("search.chroma_collection", c, "must be one Chroma collection's name (3 to 512 letters, digits, '.', '_' or '-', "+
			"starting and ending with a letter or digit); several go in search.chroma_collections")
	}
	ps.list("search.chroma_collections", s.Search.ChromaCollections, chromaName.MatchString,
		"must list Chroma collections' names (3 to 512 letters, digits, '.', '_' or '-', starting and ending with a letter or digit)")
	if c := s.Search.ChromaCollection; c != "" && slices.Contains(s.Search.ChromaCollections, c) {
		ps.add("search.chroma_collections", s.Search.ChromaCollections, "names %s, which search.chroma_collection names already", showValue(s.Search.ChromaCollection))
	}
	if slices.Contains(s.Search.Providers, "chroma") {
		if s.Search.ChromaCollection == "" && len(s.Search.ChromaCollections) == 0 {
			ps.add("search.chroma_collections", "", "must name the Chroma collections that search.providers' chroma queries (or search.chroma_collection one)")
		}
		if m.Embeddings == "" {
			ps.add("model.embeddings", "", "must name the embedding model of the Chroma collection (search.providers has chroma), such as openai:text-embedding-3-small")
		}
	}
	if s.Search.ChromaTenant == "" {
		ps.add("search.chroma_tenant", "", "must name a tenant (Chroma's default is default_tenant)")
	}
	if s.Search.ChromaDatabase == "" {
		ps.add("search.chroma_database", "", "must name a database (Chroma's default is default_database)")
	}

	f := s.Fetch
	ps.list("fetch.allow", f.Allow, func(addr string) bool { return validHostPort(addr, false) },
		"must list HOST:PORT addresses, such as localhost:8888")
	ps.positive("fetch.timeout", f.Timeout)
	if f.MaxBytes < 1 {
		ps.add("fetch.max_bytes", f.MaxBytes, "must be at least 1")
	}

	// The names every front end parses, parsed the one way (internal/output,
	// internal/citeproc).
	_, err := render.ParseFormat(s.Output.Format)
	parsed(&ps, "output.format", s.Output.Format, err, render.Formats)
	_, err = citeproc.ParseStyle(s.Output.Style)
	parsed(&ps, "output.style", s.Output.Style, err, citeproc.Styles)
	_, err = output.ParseAction(s.Output.Unsupported)
	parsed(&ps, "output.unsupported", s.Output.Unsupported, err, output.Actions)
	// The bounds of the library's report controls (deepresearch.MaxLength,
	// MaxControlBytes).
	if o := s.Output; o.Length < 0 || o.Length > 20000 {
		ps.add("output.length", o.Length, "must be between 0 and 20000 words")
	}
	for _, kv := range [][2]string{{"output.language", s.Output.Language}, {"output.audience", s.Output.Audience}} {
		if n := len(strings.TrimSpace(kv[1])); n > 256 {
			ps.add(kv[0], kv[1], "is %d bytes long; the limit is 256", n)
		}
	}
	if c := s.Output.Chromium; strings.ContainsFunc(c, func(r rune) bool { return r < 0x20 || r == 0x7f }) || len(c) > 4096 {
		ps.add("output.chromium", c, "must be a path or a command's name, without control characters")
	}

	sv := s.Serve
	if !validHostPort(sv.Addr, true) {
		ps.add("serve.addr", sv.Addr, "must be HOST:PORT, such as 127.0.0.1:8080 (or :8080 for every interface)")
	}
	if err := CheckToken(sv.Token); err != nil {
		ps.add("serve.token", sv.Token, "%v", err)
	}
	ps.atLeast("serve.max_runs", sv.MaxRuns, 1)
	ps.positive("serve.run_timeout", sv.RunTimeout)
	if sv.MaxBody < 1 {
		ps.add("serve.max_body", sv.MaxBody, "must be at least 1")
	}
	ps.oneOf("serve.resume", sv.Resume, []string{"auto", "never"})
	ps.oneOf("serve.plan_timeout_action", sv.PlanTimeoutAction, []string{"proceed", "cancel"})
	ps.atLeast("serve.max_resumes", sv.MaxResumes, 1)
	if s.Recheck.Every < 0 {
		ps.add("recheck.every", s.Recheck.Every, "must be 0 (never) or a positive duration, such as 24h")
	}

	if s.NATS.URL != "" && !natsURLs(s.NATS.URL) {
		ps.add("nats.url", s.NATS.URL, "must be a nats:// URL, or several separated by commas, or empty")
	}
	if s.NATS.LeaseTTL < 0 {
		ps.add("nats.lease_ttl", s.NATS.LeaseTTL, "must not be negative")
	}
	if s.NATS.NoWorkerAfter < 0 {
		ps.add("nats.no_worker_after", s.NATS.NoWorkerAfter, "must be 0 (never) or a positive duration, such as 2m")
	}
	if !slices.Contains([]int{1, 3, 5}, s.NATS.Replicas) {
		ps.add("nats.replicas", s.NATS.Replicas, "must be 1, 3 or 5")
	}
	if err := CheckToken(s.NATS.Token); err != nil {
		ps.add("nats.token", s.NATS.Token, "%v", err)
	}
	if s.NATS.Listen != "" {
		host, port, err := net.SplitHostPort(s.NATS.Listen)
		n, perr := strconv.Atoi(port)
		switch {
		case err != nil || perr != nil || n < 0 || n > 65535:
			ps.add("nats.listen", s.NATS.Listen, "must be HOST:PORT (127.0.0.1:4222)")
		case s.NATS.URL != "":
			ps.add("nats.listen", s.NATS.Listen, "is for a server without nats.url (its own JetStream server); with nats.url, leave it empty")
		case s.NATS.Token == "" && !IsLoopback(host):
			ps.add("nats.listen", s.NATS.Listen, "listens beyond this machine, so nats.token (DEEPRESEARCH_NATS_TOKEN) is required")
		}
	}
	ps.atLeast("nats.workers", s.NATS.Workers, 0)

	ps.oneOf("log.level", s.Log.Level, logLevels)
	ps.oneOf("log.format", s.Log.Format, logFormats)
	ps.oneOf("telemetry.otlp", s.Telemetry.OTLP, TelemetryModes)
	return ps
}

// IsLoopback reports whether host (of an address to listen on) is
// localhost or a loopback address.
func IsLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// natsURLs reports whether list is NATS server URLs separated by commas.
func natsURLs(list string) bool {
	for _, u := range strings.Split(list, ",") {
		pu, err := url.Parse(strings.TrimSpace(u))
		if err != nil || !slices.Contains([]string{"nats", "tls", "ws", "wss"}, pu.Scheme) || pu.Host == "" {
			return false
		}
	}
	return true
}

// validHostPort reports whether addr is host:port with a port number (0
// only to listen), and a host unless listening.
func validHostPort(addr string, listen bool) bool {
	host, port, err := net.SplitHostPort(addr)
	if err != nil || (host == "" && !listen) || strings.ContainsAny(host, " /") {
		return false
	}
	n, err := strconv.Atoi(port)
	least := 1
	if listen {
		least = 0
	}
	return err == nil && n >= least && n <= 65535
}

// Normalize lower-cases the settings that take one of a few values (and
// the provider part of model roles; config/load does it for the keys of
// model.prices), trims the spaces around them, drops empty and repeated
// list items and lower-cases search.providers and the hosts of fetch.allow: what config/load
// does to the values it reads before it validates them.
func (s *Settings) Normalize() {
	for _, p := range []*string{&s.Model.Provider, &s.Model.Tools, &s.Output.Format, &s.Output.Style,
		&s.Output.Unsupported, &s.Log.Level, &s.Log.Format, &s.Research.Clarify, &s.Research.Review, &s.Telemetry.OTLP} {
		*p = strings.ToLower(strings.TrimSpace(*p))
	}
	for _, p := range []*string{&s.Model.Planner, &s.Model.Researcher, &s.Model.Writer, &s.Model.Embeddings} {
		*p = NormalizeModel(*p)
	}
	for _, p := range []*string{&s.Model.BaseURL, &s.Search.SearxngURL, &s.Search.ChromaURL, &s.Search.ChromaCollection, &s.Serve.Addr} {
		*p = strings.TrimSpace(*p)
	}
	s.Search.Providers = normalizeList(s.Search.Providers, strings.ToLower)
	s.Search.ChromaCollections = normalizeList(s.Search.ChromaCollections, nil) // names are case-sensitive
	s.Fetch.Allow = normalizeList(s.Fetch.Allow, strings.ToLower)
}

// NormalizeModel trims a model written "provider:name" (or "provider")
// and lower-cases its provider, as Normalize does to model.planner,
// .researcher and .writer and config/load to the keys of model.prices.
func NormalizeModel(id string) string {
	provider, name, found := strings.Cut(strings.TrimSpace(id), ":")
	provider = strings.ToLower(strings.TrimSpace(provider))
	if !found {
		return provider
	}
	return fmt.Sprintf("%s:%s", provider, strings.TrimSpace(name))
}

// normalizeList trims the items of list and folds them with fold (nil:
// as written), dropping empty and repeated ones; it keeps a nil list nil.
func normalizeList(list []string, fold func(string) string) []string {
	if list == nil {
		return nil
	}
	out := []string{}
	for _, item := range list {
		item = strings.TrimSpace(item)
		if fold != nil {
			item = fold(item)
		}
		if item != "" && !slices.Contains(out, item) {
			out = append(out, item)
		}
	}
	return out
}
