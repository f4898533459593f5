package deepresearch

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/mcpsource"
	"github.com/deepresearch/deepresearch/internal/provider"
	"github.com/deepresearch/deepresearch/internal/websearch"
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
// search backends and the corpus that settings select, and, when call is
// true, asks each to answer: one short model call per distinct model, one
// query embedded, one search per web backend, the Chroma collection found,
// and an index sync of the corpus. It is what `deepresearch doctor`
// shows.
func Diagnose(ctx context.Context, s config.Settings, call bool) []Diagnosis {
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
	wcfg := webFromSettings(s)
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
			d := Diagnosis{Part: "corpus", Provider: "corpus", Detail: s.Corpus.Dir}
			dir, path, err := corpusPaths(ctx, s.Corpus.Dir, s.Corpus.Index)
			if err != nil {
				d.Err = err.Error()
			} else {
				d.Detail = dir + " → " + path
			}
			if call && d.Err == "" {
				d.Checked = true
				if st, err := Index(ctx, dir, path); err != nil {
					d.Err = err.Error()
				} else {
					d.Detail += fmt.Sprintf(" (%d documents indexed, %d skipped)", st.Added+st.Updated+st.Unchanged, st.Skipped)
				}
			}
			out = append(out, d)
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
