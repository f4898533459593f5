package provider_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/provider"
)

func TestNewKeysAndAddresses(t *testing.T) {
	tests := []struct {
		name    string
		cfg     provider.Config
		env     []string
		wantErr error
		wantMsg string
	}{
		{"extractive needs nothing", provider.Config{}, nil, nil, ""},
		{"openai without a key", provider.Config{Provider: "openai"}, nil, provider.ErrNoKey, "openai: no API key: set OPENAI_API_KEY (or model.api_key)"},
		{"openrouter without a key", provider.Config{Provider: "openai", BaseURL: "https://openrouter.ai/api/v1"}, nil, provider.ErrNoKey, "set OPENAI_API_KEY"},
		{"local openai-compatible server needs no key", provider.Config{Provider: "openai", BaseURL: "http://localhost:8080/v1"}, nil, nil, ""},
		{"OPENAI_BASE_URL to a local server", provider.Config{Provider: "openai"}, []string{"OPENAI_BASE_URL", "http://127.0.0.1:1234/v1"}, nil, ""},
		{"openai key from config", provider.Config{Provider: "openai", APIKey: "sk-x"}, nil, nil, ""},
		{"anthropic without a key", provider.Config{Provider: "anthropic"}, nil, provider.ErrNoKey, "anthropic: no API key: set ANTHROPIC_API_KEY (or model.api_key)"},
		{"anthropic with a key", provider.Config{Provider: "Anthropic"}, []string{"ANTHROPIC_API_KEY", "k"}, nil, ""},
		{"gemini without a key", provider.Config{Provider: "googleai"}, nil, provider.ErrNoKey, "set GOOGLE_API_KEY or GEMINI_API_KEY"},
		{"gemini with GEMINI_API_KEY", provider.Config{Provider: "googleai"}, []string{"GEMINI_API_KEY", "k"}, nil, ""},
		{"ollama needs nothing", provider.Config{Provider: "ollama"}, nil, nil, ""},
		{"unknown provider", provider.Config{Provider: "cohere"}, nil, provider.ErrUnknownProvider, `unknown model provider "cohere": want one of openai, anthropic, googleai, ollama, extractive`},
		{"base URL with a bad scheme", provider.Config{Provider: "openai", BaseURL: "file:///etc/passwd"}, nil, nil, "want an http or https URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := provider.New(context.Background(), tt.cfg, env(tt.env...))
			switch {
			case tt.wantMsg == "" && err != nil:
				t.Fatalf("err %v", err)
			case tt.wantMsg == "" && m == nil:
				t.Fatal("no model")
			case tt.wantMsg != "" && (err == nil || !strings.Contains(err.Error(), tt.wantMsg)):
				t.Fatalf("err %v, want one containing %q", err, tt.wantMsg)
			case tt.wantErr != nil && !errors.Is(err, tt.wantErr):
				t.Fatalf("err %v is not %v", err, tt.wantErr)
			}
		})
	}
}

func TestOllamaHost(t *testing.T) {
	// Each OLLAMA_HOST form reaches the same server's /v1.
	for _, form := range []string{"%s", "%s/", "%s/v1", "HOSTPORT"} {
		t.Run(form, func(t *testing.T) {
			s := newServer(t, reply{file: "openai_text.json"})
			host := strings.Replace(form, "%s", s.URL, 1)
			host = strings.Replace(host, "HOSTPORT", strings.TrimPrefix(s.URL, "http://"), 1)
			m := mustNew(t, provider.Config{Provider: provider.Ollama}, env("OLLAMA_HOST", host))
			if _, err := m.GenerateContent(context.Background(), human("q")); err != nil {
				t.Fatal(err)
			}
			if p := s.requests()[0].Path; p != "/v1/chat/completions" {
				t.Errorf("path %s", p)
			}
		})
	}
}

func TestParseRole(t *testing.T) {
	tests := []struct{ in, provider, name string }{
		{"", "", ""},
		{"anthropic:claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5"},
		{"ollama:llama3.1:8b", "ollama", "llama3.1:8b"},
		{"OpenAI:gpt-4.1", "openai", "gpt-4.1"},
		{"llama3.1:8b", "", "llama3.1:8b"},
		{"gpt-4.1-mini", "", "gpt-4.1-mini"},
		{"openai/gpt-4o:free", "", "openai/gpt-4o:free"},
		{"googleai:", "googleai", ""},
	}
	for _, tt := range tests {
		p, n := provider.ParseRole(tt.in)
		if p != tt.provider || n != tt.name {
			t.Errorf("ParseRole(%q) = %q, %q; want %q, %q", tt.in, p, n, tt.provider, tt.name)
		}
	}
}

func TestNewRoles(t *testing.T) {
	main := newServer(t, reply{file: "openai_text.json"}, reply{file: "openai_text.json"})
	writer := newServer(t, reply{file: "anthropic_tools.json"})
	getenv := env("OPENAI_API_KEY", "sk-main", "ANTHROPIC_API_KEY", "sk-ant", "ANTHROPIC_BASE_URL", writer.URL+"/v1")
	cfg := provider.Config{Provider: "openai", Name: "gpt-4.1", BaseURL: main.URL + "/v1", MaxConcurrent: 2}
	r, err := provider.NewRoles(context.Background(), cfg,
		provider.RoleSettings{Researcher: "gpt-4.1-mini", Writer: "anthropic:claude-opus-4-1"}, getenv)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []llms.Model{r.Planner, r.Researcher, r.Writer} {
		if _, err := m.GenerateContent(context.Background(), human("q")); err != nil {
			t.Fatal(err)
		}
	}
	reqs := main.requests()
	if len(reqs) != 2 || reqs[0].Body["model"] != "gpt-4.1" || reqs[1].Body["model"] != "gpt-4.1-mini" || reqs[1].Header.Get("Authorization") != "Bearer sk-main" {
		t.Errorf("main server saw models %v", reqs)
	}
	if w := writer.requests(); len(w) != 1 || w[0].Body["model"] != "claude-opus-4-1" || w[0].Header.Get("X-Api-Key") != "sk-ant" {
		t.Errorf("writer server saw %v", w)
	}
	if _, err := provider.NewRoles(context.Background(), cfg, provider.RoleSettings{Writer: "googleai:gemini-2.5-pro"}, getenv); !errors.Is(err, provider.ErrNoKey) || !strings.Contains(err.Error(), "model.writer") {
		t.Errorf("writer without a key: %v", err)
	}
}
