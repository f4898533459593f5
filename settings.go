package deepresearch

import (
	"github.com/rs/zerolog"

	"github.com/deepresearch/deepresearch/config"
)

// FromSettings returns a Researcher built from settings, as every front
// end (the CLI, the HTTP server, the MCP server) reads them: the model
// provider, the corpus and its index, the research limits and the citation
// style. log receives diagnostics (nil: none). It does no I/O; the corpus
// is indexed on the first run.
func FromSettings(s config.Settings, log *zerolog.Logger) (*Researcher, error) {
	if s.Model.Provider != "extractive" {
		return nil, configErrorf("model.provider %q is not available in this build: use \"extractive\"", s.Model.Provider)
	}
	for key, v := range map[string]string{"model.name": s.Model.Name, "model.base_url": s.Model.BaseURL, "model.api_key": s.Model.APIKey} {
		if v != "" {
			return nil, configErrorf("%s is set, but the extractive model takes no %s", key, key[len("model."):])
		}
	}
	style, err := ParseStyle(s.Output.Style)
	if err != nil {
		return nil, err
	}
	return New(Config{
		Corpus:      s.Corpus.Dir,
		IndexPath:   s.Corpus.Index,
		MaxTasks:    s.Research.MaxTasks,
		Parallelism: s.Research.Parallelism,
		SearchLimit: s.Research.SearchLimit,
		Budget: Budget{
			MaxToolCalls: s.Research.MaxToolCalls,
			MaxTokens:    s.Research.MaxTokens,
			Timeout:      s.Research.AgentTimeout,
		},
		MaxRunTokens: s.Research.MaxRunTokens,
		Style:        style,
		Logger:       log,
	})
}
