package provider

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/retry"
)

// ParseRole reads a per-role model setting, "provider:name"
// ("anthropic:claude-sonnet-4-5", "ollama:llama3.1:8b"). A value whose part
// before the first colon is not a provider is a model name for the main
// provider ("gpt-4.1", "llama3.1:8b"); the empty string is empty results,
// meaning the main model.
func ParseRole(s string) (provider, name string) {
	s = strings.TrimSpace(s)
	if p, n, ok := strings.Cut(s, ":"); ok && slices.Contains(Providers, strings.ToLower(p)) {
		return strings.ToLower(p), strings.TrimSpace(n)
	}
	return "", s
}

// Roles are the models of a run's three roles.
type Roles struct {
	Planner, Researcher, Writer llms.Model
}

// RoleSettings are the per-role settings, each "provider:name" or empty
// (config model.planner, model.researcher, model.writer).
type RoleSettings struct {
	Planner, Researcher, Writer string
}

// NewRoles builds the main model from main and a model for each role.
// An empty role is the main model itself. A role on the main provider
// keeps main's BaseURL and APIKey; a role on another provider takes its
// address and key from getenv. Models of one provider and address share
// one concurrency cap of main.MaxConcurrent.
func NewRoles(ctx context.Context, main Config, roles RoleSettings, getenv func(string) string) (Roles, error) {
	limiters := map[string]*retry.Limiter{}
	build := func(cfg Config) (llms.Model, error) {
		key := cfg.Provider
		if ep, err := resolve(cfg, getenv); err == nil {
			key = ep.provider + " " + ep.baseURL
		}
		if cfg.Limiter == nil && cfg.MaxConcurrent > 0 {
			if limiters[key] == nil {
				limiters[key] = retry.NewLimiter(cfg.MaxConcurrent)
			}
			cfg.Limiter = limiters[key]
		}
		return New(ctx, cfg, getenv)
	}
	mainModel, err := build(main)
	if err != nil {
		return Roles{}, err
	}
	mainProvider := strings.ToLower(firstNonBlank(main.Provider, Extractive))
	role := func(which, setting string) (llms.Model, error) {
		p, name := ParseRole(setting)
		if p == "" && name == "" {
			return mainModel, nil
		}
		cfg := main
		if p != "" && p != mainProvider {
			cfg = Config{Provider: p, MaxConcurrent: main.MaxConcurrent, Temperature: main.Temperature,
				Tools: main.Tools, HTTPClient: main.HTTPClient}
		}
		cfg.Name = name
		m, err := build(cfg)
		if err != nil {
			return nil, fmt.Errorf("model.%s %q: %w", which, setting, err)
		}
		return m, nil
	}
	var r Roles
	if r.Planner, err = role("planner", roles.Planner); err != nil {
		return Roles{}, err
	}
	if r.Researcher, err = role("researcher", roles.Researcher); err != nil {
		return Roles{}, err
	}
	if r.Writer, err = role("writer", roles.Writer); err != nil {
		return Roles{}, err
	}
	return r, nil
}
