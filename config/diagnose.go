package config

import (
	"cmp"
	"context"
	"fmt"
	"strconv"
	"strings"

	pubcorpus "github.com/deepresearch/deepresearch/corpus"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/corpus"
	"github.com/deepresearch/deepresearch/internal/provider"
	"github.com/deepresearch/deepresearch/internal/websearch"
	"github.com/deepresearch/deepresearch/mcpsource"
)

// Diagnosis is what Diagnose found about one configured part. It never
// holds a secret: keys are described by where they come from.
type Diagnosis struct {
	// Part is "model" (with the role), "embeddings", "search" or "corpus".
	Part     string `json:"part"`
	Role     string `json:"role,omitempty"`
	Provider string `json:"provider"`
	// Detail is the model name, address or folder; Key where the key
	// comes from ("OPENAI_API_KEY", "config", "none", "missing").
	Detail string `json:"detail,omitempty"`
	Key    string `json:"key,omitempty"`
	// Checked is set when the part was called; Err says why it failed.
	Checked bool   `json:"checked"`
	Err     string `json:"error,omitempty"`
}

// OK reports whether the part is configured and, if it was called,
// answered.
func (d Diagnosis) OK() bool { return d.Err == "" }

// Diagnose describes the model of each role, the embedding model, the
// search backends and the corpus that s selects, and, when call is
// true, asks each to answer: one short model call per distinct model, one
// query embedded, one search per web backend, the Chroma collection found,
// and an index sync of the corpus. It is what `deepresearch doctor`
// shows.
func Diagnose(ctx context.Context, s Settings, call bool) []Diagnosis {
	var out []Diagnosis
	main := providerConfig(s.Model)
	checked := map[string]string{} // model → its check's error ("" if it answered)
	for _, role := range []struct{ name, setting string }{
		{events.RolePlanner, s.Model.Planner}, {events.RoleResearcher, s.Model.Researcher}, {events.RoleWriter, s.Model.Writer},
	} {
		cfg := main
		if p, name := provider.ParseRole(role.setting); p != "" || name != "" {
			if p != "" && p != main.Provider {
				cfg = provider.Config{Provider: p, MaxConcurrent: main.MaxConcurrent, Tools: main.Tools}
			}
			if name != "" {
				cfg.Name = name
			}
		}
		desc := provider.Describe(cfg, s.Getenv)
		d := Diagnosis{Part: "model", Role: role.name, Provider: desc.Provider, Detail: strings.TrimSpace(desc.Name + " " + desc.BaseURL), Key: desc.Key, Err: desc.Err}
		id := desc.Provider + "|" + desc.Name + "|" + desc.BaseURL
		if call && d.Err == "" {
			// One call per distinct model: roles that share one share its
			// answer.
			e, done := checked[id]
			if !done {
				if m, err := provider.New(ctx, cfg, s.Getenv); err != nil {
					e = err.Error()
				} else if err := provider.Check(ctx, m); err != nil {
					e = err.Error()
				}
				checked[id] = e
			}
			d.Checked, d.Err = true, e
		}
		out = append(out, d)
	}
	if s.Model.Embeddings != "" {
		out = append(out, diagnoseEmbeddings(ctx, s.Model, s.Getenv, call))
	}
	wcfg := webConfig(s)
	statuses := map[string]websearch.Status{}
	for _, st := range websearch.Describe(wcfg) {
		statuses[st.Provider] = st
	}
	for _, name := range s.Search.Providers {
		if name == websearch.ChannelChroma {
			out = append(out, diagnoseChroma(ctx, s, wcfg, call))
			continue
		}
		if strings.HasPrefix(name, mcpsource.ChannelPrefix) {
			out = append(out, diagnoseMCP(ctx, s, name, call))
			continue
		}
		if name == websearch.ChannelCorpus {
			out = append(out, diagnoseCorpus(ctx, s.Corpus, call))
			continue
		}
		st := statuses[name]
		d := Diagnosis{Part: "search", Provider: name, Detail: st.Endpoint, Key: st.EnvVar + " " + cmp.Or(st.Key, "unset")}
		if name == "searxng" {
			d.Key = "" // an address, shown as Detail
		}
		if !st.Configured {
			d.Err = fmt.Sprintf("not configured: set %s", st.EnvVar)
		} else if call {
			d.Checked = true
			if e, err := websearch.New(name, wcfg); err != nil {
				d.Err = err.Error()
			} else if err := e.Check(ctx); err != nil {
				d.Err = err.Error()
			}
		}
		out = append(out, d)
	}
	return out
}

// diagnoseCorpus describes the corpus folder and its index file (their
// defaults filled in, as corpus.Index fills them) and, with call,
// syncs the index.
func diagnoseCorpus(ctx context.Context, c Corpus, call bool) Diagnosis {
	d := Diagnosis{Part: "corpus", Provider: "corpus", Detail: c.Dir}
	dir, path, err := corpus.Paths(ctx, c.Dir, c.Index)
	if err != nil {
		d.Err = err.Error()
		return d
	}
	d.Detail = dir + " → " + path
	if call {
		d.Checked = true
		if st, err := pubcorpus.Index(ctx, dir, pubcorpus.Options{IndexPath: path}); err != nil {
			d.Err = err.Error()
		} else {
			d.Detail += fmt.Sprintf(" (%d documents indexed, %d skipped)", st.Added+st.Updated+st.Unchanged, st.Skipped)
		}
	}
	return d
}

// diagnoseEmbeddings describes model.embeddings and, with call, embeds
// one query; the provider's usual variables are read through getenv.
func diagnoseEmbeddings(ctx context.Context, m Model, getenv func(string) string, call bool) Diagnosis {
	cfg := embeddingConfig(m)
	cfg.Name = cmp.Or(cfg.Name, provider.DefaultEmbeddingNames[cfg.Provider])
	desc := provider.Describe(cfg, getenv)
	d := Diagnosis{Part: "embeddings", Provider: desc.Provider, Detail: strings.TrimSpace(desc.Name + " " + desc.BaseURL), Key: desc.Key, Err: desc.Err}
	if !call || d.Err != "" {
		return d
	}
	d.Checked = true
	e, err := embedder(m, getenv)
	if err == nil {
		var v []float32
		if v, err = e.EmbedQuery(ctx, "deepresearch doctor"); err == nil {
			d.Detail += fmt.Sprintf(" (%d dimensions)", len(v))
		}
	}
	if err != nil {
		d.Err = err.Error()
	}
	return d
}

// diagnoseChroma describes the Chroma collections of wcfg (webConfig)
// and, with call, finds each.
func diagnoseChroma(ctx context.Context, s Settings, wcfg websearch.Config, call bool) Diagnosis {
	cc := wcfg.Chroma
	names := cc.Names()
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	d := Diagnosis{Part: "search", Provider: websearch.ChannelChroma,
		Detail: cmp.Or(cc.URL, websearch.DefaultChromaURL) + " collection " + strings.Join(quoted, ", "),
		Key:    websearch.EnvChromaKey + " unset"}
	if len(names) > 1 {
		d.Detail = strings.Replace(d.Detail, " collection ", " collections ", 1)
	}
	if cc.Token != "" {
		d.Key = websearch.EnvChromaKey + " set"
	}
	emb, err := embedder(s.Model, s.Getenv)
	if err != nil {
		d.Err = err.Error()
		return d
	}
	if len(names) == 0 {
		names = []string{""} // NewChroma says what is missing
	}
	var errs []string
	for _, n := range names {
		one := cc
		one.Collection, one.Collections = n, nil
		ch, err := websearch.NewChroma(one, emb, wcfg)
		if err == nil && call {
			d.Checked = true
			err = ch.Check(ctx)
		}
		if err != nil {
			errs = append(errs, err.Error())
		}
	}
	d.Err = strings.Join(errs, "; ")
	return d
}

// diagnoseMCP describes the MCP server search.providers names as name
// ("mcp:NAME"): its command or URL and, when call is true, the tools it is
// searched and read with, after connecting to it (a child process is
// started, and reaped before it returns).
func diagnoseMCP(ctx context.Context, s Settings, name string, call bool) Diagnosis {
	server := strings.TrimPrefix(name, mcpsource.ChannelPrefix)
	srv := mcpServers(s)[server]
	d := Diagnosis{Part: "search", Provider: name, Detail: cmp.Or(srv.URL, strings.Join(srv.Command, " "))}
	if !call {
		return d
	}
	d.Checked = true
	src, err := mcpsource.New(server, srv, mcpsource.Options{})
	if err != nil {
		d.Err = err.Error()
		return d
	}
	defer src.Close()
	m, err := src.Tools(ctx)
	if err != nil {
		d.Err = err.Error()
		return d
	}
	d.Detail += fmt.Sprintf(" (search: %s, read: %s)", cmp.Or(m.SearchTool, "resources/list"), cmp.Or(m.ReadTool, "resources/read"))
	return d
}
