package deepresearch

import (
	"github.com/deepresearch/deepresearch/internal/sourcetext"
	"github.com/deepresearch/deepresearch/web"
)

// startedConfig is the run.started event's Config: the request's limits,
// and what the run searches and with which models, which a front end
// shows in the run's header: "channel" (corpus, web, search), "corpus"
// (the folder's absolute path, when the corpus is searched),
// "search_engines", "embedding_model" and "models" (by role, as the
// run's manifest names them: "openai:gpt-4o", "extractive"). Nothing
// in it is a secret: no URL of a search service, no key.
func (r *Researcher) startedConfig(req Request) map[string]any {
	c := map[string]any{
		"max_tasks": req.MaxTasks, "parallelism": req.Parallelism, "search_limit": req.SearchLimit, "style": req.Style,
		"max_cycles": req.MaxCycles,
		"channel":    sourcetext.Clean(r.channel()),
		"models":     r.manifest(req).Models,
	}
	if cb, ok := r.search.(*web.Combined); ok {
		var names []string
		for _, m := range cb.Members() {
			if n, ok := m.(interface{ Name() string }); ok {
				names = append(names, sourcetext.Clean(n.Name()))
			}
		}
		c["search_engines"] = names
	}
	if len(r.corpora) > 0 { // the first corpus's
		if dir := r.corpora[0].Dir(); dir != "" {
			c["corpus"] = dir
		}
		if m := r.corpora[0].EmbeddingModel(); m != "" {
			c["embedding_model"] = m
		}
	}
	return c
}
