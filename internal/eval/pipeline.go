package eval

import (
	"context"
	"fmt"
	"slices"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/agent"
	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/internal/finalreport"
	"github.com/deepresearch/deepresearch/internal/purpose"
	"github.com/deepresearch/deepresearch/internal/relevance"
	"github.com/deepresearch/deepresearch/internal/search"
)

// PipelineConfig configures Pipeline.
type PipelineConfig struct {
	Model    llms.Model
	Search   search.Backend
	MaxTasks int // 0: agent.DefaultMaxTasks
	// Filtered, when set, sees every relevance filter report.
	Filtered func(relevance.Report)
}

// Pipeline answers with the references of Research, in order.
func Pipeline(cfg PipelineConfig) Answerer {
	return func(ctx context.Context, question string) ([]string, error) {
		rep, err := Research(ctx, cfg, question)
		if err != nil {
			return nil, err
		}
		var out []string
		for _, r := range rep.References {
			if !slices.Contains(out, r.ID) {
				out = append(out, r.ID)
			}
		}
		return out, nil
	}
}

// Research is a full research run built from the internal stages, the
// way the root package runs them: plan, one agent per task (run one after
// another, so the evaluation is deterministic), merge, final report.
func Research(ctx context.Context, cfg PipelineConfig, question string) (*finalreport.Report, error) {
	tasks, _, err := agent.Plan(ctx, cfg.Model, question, cfg.MaxTasks)
	if err != nil {
		return nil, err
	}
	merger := collapse.NewMerger()
	var merged []collapse.MergedReport
	for _, t := range tasks {
		res, err := agent.Run(ctx, agent.Config{
			Model: cfg.Model, Search: cfg.Search, Canonical: canon.Key, Channel: "corpus",
			Hooks: agent.Hooks{Filtered: cfg.Filtered},
		}, t)
		if err != nil {
			return nil, fmt.Errorf("task %s: %w", t.ID, err)
		}
		mr, err := merger.Add(collapse.Report{Section: t.Title, Text: res.Report, Mapping: res.Sources})
		if err != nil {
			return nil, err
		}
		merged = append(merged, mr)
	}
	return finalreport.Write(purpose.With(ctx, purpose.Writer), finalreport.Config{Model: cfg.Model},
		finalreport.Input{Question: question, Sections: merged, Sources: merger.Sources()})
}
