package provider_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/provider"
)

func TestDescribeHidesKeys(t *testing.T) {
	tests := []struct {
		cfg  provider.Config
		env  []string
		want string
	}{
		{provider.Config{}, nil, "{extractive   none }"},
		{provider.Config{Provider: "openai"}, []string{"OPENAI_API_KEY", "sk-secret"}, "{openai gpt-4.1-mini https://api.openai.com/v1 OPENAI_API_KEY }"},
		{provider.Config{Provider: "openai", APIKey: "sk-secret", BaseURL: "http://user:pw@localhost:8080/v1"}, nil, "{openai gpt-4.1-mini http://localhost:8080/v1 config }"},
		{provider.Config{Provider: "googleai"}, []string{"GEMINI_API_KEY", "sk-secret"}, "{googleai gemini-2.5-flash https://generativelanguage.googleapis.com GEMINI_API_KEY }"},
		{provider.Config{Provider: "anthropic"}, nil, "{anthropic claude-sonnet-4-5 https://api.anthropic.com/v1 missing anthropic: no API key: set ANTHROPIC_API_KEY (or model.api_key)}"},
		{provider.Config{Provider: "ollama", Name: "qwen3:8b"}, []string{"OLLAMA_HOST", "0.0.0.0:11434"}, "{ollama qwen3:8b http://localhost:11434/v1 none }"},
	}
	for _, tt := range tests {
		d := provider.Describe(tt.cfg, env(tt.env...))
		got := fmt.Sprint(d)
		if got != tt.want || strings.Contains(got, "secret") || strings.Contains(got, "pw") {
			t.Errorf("Describe(%+v)\n got %s\nwant %s", tt.cfg.Provider, got, tt.want)
		}
	}
}
