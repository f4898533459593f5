package config

import (
	"context"

	"github.com/rs/zerolog"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/corpus"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/runstore"
)

// Index brings the index of the corpus settings name (corpus.dir,
// corpus.index) up to date, with the embedding model of
// model.embeddings, when one is set, and progress (nil: none) called as
// corpus.Options.Progress is: what `deepresearch index` does. Embedding
// calls are retried twice (corpus.Options.MaxRetries).
func Index(ctx context.Context, s Settings, progress func(corpus.Stats)) (corpus.Stats, error) {
	e, err := embedder(s.Model, s.Getenv)
	if err != nil {
		return corpus.Stats{}, &deepresearch.StageError{Stage: events.StageIndex, Err: err}
	}
	st, err := corpus.Index(ctx, s.Corpus.Dir, corpus.Options{IndexPath: s.Corpus.Index, Embedder: e, Progress: progress})
	if err != nil {
		return st, &deepresearch.StageError{Stage: events.StageIndex, Err: err}
	}
	return st, nil
}

// RenderOptions is the render.Options of s (output.chromium), as every
// front end renders with.
func RenderOptions(s Settings) render.Options {
	return render.Options{Chromium: s.Output.Chromium}
}

// RunsOptions is the RunsOptions of a serving front end (serve, mcp)
// whose runs start from origin (deepresearch.OriginServer,
// deepresearch.OriginCLI, …), under the serve.* limits: serve.max_runs,
// serve.run_timeout, serve.max_resumes, serve.plan_timeout and
// serve.plan_timeout_action; the HTTP server (OriginServer) re-checks its
// stored reports every recheck.every, other origins never. logger
// receives the service's diagnostics (nil: none).
func RunsOptions(s Settings, origin string, logger *zerolog.Logger) deepresearch.RunsOptions {
	o := deepresearch.RunsOptions{
		MaxRuns: s.Serve.MaxRuns, RunTimeout: s.Serve.RunTimeout, MaxResumes: s.Serve.MaxResumes, ReviewTimeout: s.Serve.PlanTimeout,
		OnReviewTimeout: deepresearch.TimeoutAction(s.Serve.PlanTimeoutAction), Origin: origin, Logger: logger,
	}
	if origin == runstore.OriginServer {
		o.RecheckEvery = s.Recheck.Every
	}
	return o
}
