package provider_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/internal/provider"
	"github.com/deepresearch/deepresearch/internal/retry"
)

// Each provider's embedding endpoint, spoken by a server that answers in
// its wire format: the request's path, model, inputs and key header, and
// the vectors read back in order.
func TestEmbedderWireFormats(t *testing.T) {
	for _, tc := range []struct {
		name      string
		cfg       provider.Config
		getenv    func(string) string
		docs, one string // fixtures for the batch and the query
		wantPath  string
		wantName  string
		checkBody func(t *testing.T, body map[string]any, query bool)
		wantKey   [2]string // header, value
	}{
		{
			name: "openai", cfg: provider.Config{Provider: provider.OpenAI}, getenv: env("OPENAI_API_KEY", "sk-test"),
			docs: "openai_embeddings.json", one: "openai_embeddings_one.json",
			wantPath: "/embeddings", wantName: "openai:text-embedding-3-small",
			checkBody: func(t *testing.T, body map[string]any, query bool) {
				want := "[alpha beta\ngamma delta]"
				if query {
					want = "[sort a slice]"
				}
				if fmt.Sprint(body["input"]) != want || body["model"] != "text-embedding-3-small" {
					t.Errorf("body %v", body)
				}
			},
			wantKey: [2]string{"Authorization", "Bearer sk-test"},
		},
		{
			name: "ollama through /v1", cfg: provider.Config{Provider: provider.Ollama, Name: "nomic-embed-text"}, getenv: env(),
			docs: "openai_embeddings.json", one: "openai_embeddings_one.json",
			wantPath: "/v1/embeddings", wantName: "ollama:nomic-embed-text",
			checkBody: func(t *testing.T, body map[string]any, query bool) {
				if body["model"] != "nomic-embed-text" {
					t.Errorf("body %v", body)
				}
			},
			wantKey: [2]string{"Authorization", ""},
		},
		{
			name: "gemini", cfg: provider.Config{Provider: provider.GoogleAI}, getenv: env("GEMINI_API_KEY", "gm-test"),
			docs: "gemini_batch_embed.json", one: "gemini_batch_embed_one.json",
			wantPath: "/v1beta/models/gemini-embedding-001:batchEmbedContents", wantName: "googleai:gemini-embedding-001",
			checkBody: func(t *testing.T, body map[string]any, query bool) {
				task, n := "RETRIEVAL_DOCUMENT", 2
				if query {
					task, n = "RETRIEVAL_QUERY", 1
				}
				reqs, _ := body["requests"].([]any)
				if len(reqs) != n {
					t.Fatalf("requests %v", body)
				}
				r0 := reqs[0].(map[string]any)
				if r0["model"] != "models/gemini-embedding-001" || r0["taskType"] != task {
					t.Errorf("request %v", r0)
				}
			},
			wantKey: [2]string{"X-Goog-Api-Key", "gm-test"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, reply{file: tc.docs}, reply{file: tc.one})
			cfg := tc.cfg
			cfg.BaseURL = s.URL
			e, err := provider.NewEmbedder(cfg, tc.getenv)
			if err != nil {
				t.Fatal(err)
			}
			if e.Name() != tc.wantName {
				t.Errorf("Name %q, want %q", e.Name(), tc.wantName)
			}
			texts := []string{"alpha beta\ngamma", "delta"}
			vs, err := e.EmbedDocuments(context.Background(), texts)
			if err != nil {
				t.Fatal(err)
			}
			if len(vs) != len(texts) || len(vs[0]) != 3 {
				t.Fatalf("vectors %v", vs)
			}
			if texts[0] != "alpha beta\ngamma" {
				t.Errorf("the caller's texts changed: %q", texts)
			}
			q, err := e.EmbedQuery(context.Background(), "sort a slice")
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(q) != "[0.7 0.8 0.9]" {
				t.Errorf("query vector %v", q)
			}
			reqs := s.requests()
			for i, r := range reqs {
				if !strings.HasSuffix(r.Path, tc.wantPath) || r.Method != "POST" {
					t.Errorf("request %d: %s %s, want POST …%s", i, r.Method, r.Path, tc.wantPath)
				}
				if got := r.Header.Get(tc.wantKey[0]); got != tc.wantKey[1] {
					t.Errorf("request %d: %s = %q, want %q", i, tc.wantKey[0], got, tc.wantKey[1])
				}
				tc.checkBody(t, r.Body, i == 1)
			}
		})
	}
}

// Failures are typed like a chat call's: a bad key names its variable and
// is not retried, a rate limit is retried after its backoff on the
// injected clock, and a reply whose vectors disagree with the request is
// malformed.
func TestEmbedderFailures(t *testing.T) {
	spent := []time.Duration{250 * time.Millisecond, 500 * time.Millisecond, time.Second}
	for _, tc := range []struct {
		name      string
		replies   []reply
		wantErr   error
		wantMsg   string
		wantWaits []time.Duration
	}{
		{"bad key", []reply{{status: 401, file: "openai_401.json"}}, provider.ErrBadKey, "check OPENAI_API_KEY", nil},
		{"rate limit then success", []reply{{status: 429, file: "openai_429.json"}, {file: "openai_embeddings.json"}}, nil, "", []time.Duration{250 * time.Millisecond}},
		{"server error twice then success", []reply{{status: 500, file: "openai_500.json"}, {status: 503, file: "openai_500.json"}, {file: "openai_embeddings.json"}}, nil, "", []time.Duration{250 * time.Millisecond, 500 * time.Millisecond}},
		// A garbled reply is retried like a garbled stream, and fails once
		// the retries are spent.
		{"ragged vectors", slices.Repeat([]reply{{file: "openai_embeddings_ragged.json"}}, 4), provider.ErrMalformed, "vector 2 has 2 dimensions", spent},
		{"one vector for two texts", slices.Repeat([]reply{{file: "openai_embeddings_one.json"}}, 4), provider.ErrMalformed, "unexpected length of response", spent},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, tc.replies...)
			e, err := provider.NewEmbedder(provider.Config{Provider: provider.OpenAI, BaseURL: s.URL}, env("OPENAI_API_KEY", "sk-test"))
			if err != nil {
				t.Fatal(err)
			}
			clk := clock.NewFake(t0)
			r := &retry.Embedder{Embedder: e, Policy: retry.Policy{Retries: 3, Backoff: 500 * time.Millisecond, Jitter: func() float64 { return 0 }, Clock: clk}}
			var vs [][]float32
			waits := clk.Drive(func() { vs, err = r.EmbedDocuments(context.Background(), []string{"a", "b"}) })
			switch {
			case tc.wantErr == nil && (err != nil || len(vs) != 2):
				t.Fatalf("err %v, vectors %v", err, vs)
			case tc.wantErr != nil && (!errors.Is(err, tc.wantErr) || !strings.Contains(err.Error(), tc.wantMsg)):
				t.Fatalf("err %v, want %v containing %q", err, tc.wantErr, tc.wantMsg)
			}
			if fmt.Sprint(waits) != fmt.Sprint(tc.wantWaits) {
				t.Errorf("waits %v, want %v", waits, tc.wantWaits)
			}
		})
	}
}

func TestEmbedderProviders(t *testing.T) {
	for _, p := range []string{"", provider.Extractive, provider.Anthropic} {
		if _, err := provider.NewEmbedder(provider.Config{Provider: p}, env()); !errors.Is(err, provider.ErrNoEmbeddings) {
			t.Errorf("%q: err %v, want ErrNoEmbeddings", p, err)
		}
	}
	if _, err := provider.NewEmbedder(provider.Config{Provider: provider.OpenAI}, env()); !errors.Is(err, provider.ErrNoKey) {
		t.Errorf("openai without a key: err %v", err)
	}
}
