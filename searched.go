package deepresearch

import (
	"path/filepath"

	"github.com/deepresearch/deepresearch/internal/source"
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
		"channel":    source.Clean(r.channel()),
		"models":     r.manifest(req).Models,
	}
	if r.search == nil && r.cfg.Corpus != "" {
		dir := r.cfg.Corpus
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		c["corpus"] = dir
	}
	if len(r.cfg.SearchEngines) > 0 {
		c["search_engines"] = r.cfg.SearchEngines
	}
	if r.cfg.EmbeddingModel != "" {
		c["embedding_model"] = r.cfg.EmbeddingModel
	}
	return c
}
