package provider

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/deepresearch/deepresearch/internal/retry"
)

// Provider names accepted in Config.Provider and before the colon of a
// role ("anthropic:claude-sonnet-4-5").
const (
	OpenAI     = "openai"
	Anthropic  = "anthropic"
	GoogleAI   = "googleai"
	Ollama     = "ollama"
	Extractive = "extractive"
)

// Providers lists the accepted provider names.
var Providers = []string{OpenAI, Anthropic, GoogleAI, Ollama, Extractive}

// Default model names, used when Config.Name is empty.
var DefaultNames = map[string]string{
	OpenAI:    "gpt-4.1-mini",
	Anthropic: "claude-sonnet-4-5",
	GoogleAI:  "gemini-2.5-flash",
	Ollama:    "llama3.1",
}

// Default addresses, used when neither Config.BaseURL nor the provider's
// variable gives one.
const (
	DefaultOpenAIURL    = "https://api.openai.com/v1"
	DefaultAnthropicURL = "https://api.anthropic.com/v1"
	DefaultGoogleAIURL  = "https://generativelanguage.googleapis.com"
	DefaultOllamaHost   = "http://localhost:11434"
)

// ToolMode says how tools reach the model.
type ToolMode string

const (
	// ToolsAuto sends tools natively and switches to the text protocol
	// when the provider rejects them (ErrToolsUnsupported). The default.
	ToolsAuto ToolMode = "auto"
	// ToolsNative always sends tools natively.
	ToolsNative ToolMode = "native"
	// ToolsText never sends tools natively: they are described in the
	// prompt and calls are read from the reply's JSON (see ToolFallback).
	ToolsText ToolMode = "text"
)

// Config says which model to build. The zero value of each field means
// something: see each.
type Config struct {
	// Provider is one of Providers; empty means Extractive.
	Provider string
	// Name is the model ("gpt-4.1-mini", "claude-sonnet-4-5",
	// "gemini-2.5-flash", "llama3.1:8b"); empty means DefaultNames.
	Name string
	// BaseURL overrides the provider's address: any OpenAI-compatible
	// server for OpenAI (vLLM, llama.cpp, LM Studio, OpenRouter), the
	// Ollama host for Ollama. Empty means the provider's variable
	// (OPENAI_BASE_URL, OLLAMA_HOST), then its public default.
	BaseURL string
	// APIKey overrides the provider's variable (OPENAI_API_KEY,
	// ANTHROPIC_API_KEY, GOOGLE_API_KEY or GEMINI_API_KEY).
	APIKey string
	// MaxConcurrent caps concurrent calls to this provider; 0 means no
	// cap. Ignored when Limiter is set.
	MaxConcurrent int
	// Limiter, if set, is shared with other models of the same provider
	// (NewRoles does this).
	Limiter *retry.Limiter
	// Temperature, if set, is sent when a call does not set one. When nil
	// no temperature is sent (langchaingo would send 0), so the provider's
	// default applies.
	Temperature *float64
	// LegacyMaxTokens sends max_tokens instead of max_completion_tokens
	// to OpenAI-compatible servers, for llama.cpp servers that ignore the
	// newer field.
	LegacyMaxTokens bool
	// Tools chooses how tools reach the model; empty means ToolsAuto.
	Tools ToolMode
	// HTTPClient, if set, is the client whose Transport carries requests
	// (tests, proxies). Its Transport is wrapped, never modified.
	HTTPClient *http.Client
}

// endpoint is a Config resolved against the environment.
type endpoint struct {
	provider string
	name     string
	baseURL  string
	apiKey   string
	keyVar   string // the variable that supplied, or should supply, the key
}

// resolve fills in the name, address and key from cfg, then getenv, then
// the defaults. A provider that needs a key and has none is a *KeyError.
func resolve(cfg Config, getenv func(string) string) (endpoint, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	p := strings.ToLower(strings.TrimSpace(cfg.Provider))
	if p == "" {
		p = Extractive
	}
	e := endpoint{provider: p, name: firstNonBlank(cfg.Name, DefaultNames[p]), apiKey: cfg.APIKey}
	switch p {
	case Extractive:
		return e, nil
	case OpenAI:
		e.baseURL = firstNonBlank(cfg.BaseURL, getenv("OPENAI_BASE_URL"), DefaultOpenAIURL)
		e.keyVar = "OPENAI_API_KEY"
		e.apiKey = firstNonBlank(e.apiKey, getenv("OPENAI_API_KEY"))
		// A local OpenAI-compatible server needs no key; OpenAI and
		// OpenRouter do.
		if e.apiKey == "" && needsKey(e.baseURL) {
			return e, &KeyError{Provider: p, Vars: []string{"OPENAI_API_KEY"}}
		}
	case Anthropic:
		e.baseURL = firstNonBlank(cfg.BaseURL, getenv("ANTHROPIC_BASE_URL"), DefaultAnthropicURL)
		e.keyVar = "ANTHROPIC_API_KEY"
		e.apiKey = firstNonBlank(e.apiKey, getenv("ANTHROPIC_API_KEY"))
		if e.apiKey == "" {
			return e, &KeyError{Provider: p, Vars: []string{"ANTHROPIC_API_KEY"}}
		}
	case GoogleAI:
		e.baseURL = strings.TrimSuffix(strings.TrimRight(firstNonBlank(cfg.BaseURL, DefaultGoogleAIURL), "/"), "/v1beta")
		e.keyVar = "GOOGLE_API_KEY"
		if e.apiKey == "" {
			if k := getenv("GOOGLE_API_KEY"); k != "" {
				e.apiKey = k
			} else if k := getenv("GEMINI_API_KEY"); k != "" {
				e.apiKey, e.keyVar = k, "GEMINI_API_KEY"
			}
		}
		if e.apiKey == "" {
			return e, &KeyError{Provider: p, Vars: []string{"GOOGLE_API_KEY", "GEMINI_API_KEY"}}
		}
	case Ollama:
		host := firstNonBlank(cfg.BaseURL, getenv("OLLAMA_HOST"), DefaultOllamaHost)
		e.baseURL = ollamaV1(host)
	default:
		return e, fmt.Errorf("%w %q: want one of %s", ErrUnknownProvider, cfg.Provider, strings.Join(Providers, ", "))
	}
	u, err := url.Parse(e.baseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return e, fmt.Errorf("%s: base URL %q: want an http or https URL", p, e.baseURL)
	}
	e.baseURL = strings.TrimRight(e.baseURL, "/")
	return e, nil
}

// needsKey reports whether an OpenAI-compatible address is a hosted
// service that always wants a key.
func needsKey(base string) bool {
	u, err := url.Parse(base)
	if err != nil {
		return true
	}
	h := strings.ToLower(u.Hostname())
	return h == "api.openai.com" || h == "openrouter.ai" || strings.HasSuffix(h, ".openai.com")
}

// ollamaV1 turns OLLAMA_HOST ("0.0.0.0:11434", "localhost",
// "http://box:11434/") into the address of its OpenAI-compatible API.
func ollamaV1(host string) string {
	host = strings.TrimSpace(host)
	// Like the ollama client: without a scheme the port defaults to
	// 11434, with one to the scheme's.
	bare := !strings.Contains(host, "://")
	if bare {
		host = "http://" + host
	}
	u, err := url.Parse(host)
	if err != nil {
		return host
	}
	switch u.Hostname() {
	case "0.0.0.0", "::":
		// A listen address, not a place to connect to.
		u.Host = strings.Replace(u.Host, u.Hostname(), "localhost", 1)
		if strings.HasPrefix(u.Host, "[") {
			u.Host = "localhost" + strings.TrimPrefix(u.Host, "[::]")
		}
	}
	if bare && u.Port() == "" {
		u.Host += ":11434"
	}
	u.Path = strings.TrimSuffix(strings.TrimRight(u.Path, "/"), "/v1") + "/v1"
	return u.String()
}

// firstNonBlank is the first of vals that is not blank, trimmed; "" when
// all are.
func firstNonBlank(vals ...string) string {
	for _, v := range vals {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}
