package deepresearch_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/tmc/langchaingo/llms/openai"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/extractive"
)

// judgesOf runs question on r and returns the judges its sources.filtered
// events name and the judge of its verification.
func judgesOf(t *testing.T, r *deepresearch.Researcher) (filtered map[string]int, verified string) {
	t.Helper()
	filtered = map[string]int{}
	rep, err := runWith(context.Background(), r, question, func(e events.Event) {
		switch d := e.Data.(type) {
		case events.FilteredData:
			filtered[d.Judge]++
		case events.VerifiedData:
			verified = d.Judge
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verification == nil || rep.Verification.Judge != verified {
		t.Fatalf("the report's verification %+v does not match its event's judge %q", rep.Verification, verified)
	}
	return filtered, verified
}

// TestNewWithLanguageModel: an embedder who gives New a language model —
// here a langchaingo OpenAI client talking to an OpenAI-compatible server
// — gets relevance judged by the model and citations verified by the
// model, exactly as config.NewResearcher gives the CLI; the built-in model is
// judged lexically.
func TestNewWithLanguageModel(t *testing.T) {
	t.Parallel()
	srv := deepresearchtest.NewOpenAIServer(deepresearchtest.JudgingModel(extractive.New(extractive.Options{})), deepresearchtest.OpenAIOptions{})
	defer srv.Close()
	model, err := openai.New(openai.WithBaseURL(srv.URL+"/v1"), openai.WithToken("test"), openai.WithModel("extractive"))
	if err != nil {
		t.Fatal(err)
	}
	embedded, err := deepresearch.New(deepresearch.Config{Model: model, MaxRetries: -1,
		Search: deepresearchtest.Corpus(t, filepath.Join("testdata", "corpus"), filepath.Join(t.TempDir(), "index.db"))})
	if err != nil {
		t.Fatal(err)
	}
	defer embedded.Close()
	filtered, verified := judgesOf(t, embedded)
	if len(filtered) != 1 || filtered["llm"] == 0 || verified != "llm" {
		t.Errorf("New with a language model: relevance judged by %v, verification by %q; want llm", filtered, verified)
	}

	s := config.Defaults()
	s.Model.Provider, s.Model.Name, s.Model.BaseURL = "openai", "extractive", srv.URL+"/v1"
	s.Corpus.Dir, s.Corpus.Index = filepath.Join("testdata", "corpus"), filepath.Join(t.TempDir(), "index.db")
	fromSettings, err := config.NewResearcher(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer fromSettings.Close()
	cliFiltered, cliVerified := judgesOf(t, fromSettings)
	if len(cliFiltered) != 1 || cliFiltered["llm"] == 0 || cliVerified != verified {
		t.Errorf("config.NewResearcher: relevance judged by %v, verification by %q; New gave %v, %q", cliFiltered, cliVerified, filtered, verified)
	}

	offline, err := deepresearch.New(deepresearch.Config{Search: deepresearchtest.Corpus(t, filepath.Join("testdata", "corpus"), filepath.Join(t.TempDir(), "index.db"))})
	if err != nil {
		t.Fatal(err)
	}
	defer offline.Close()
	if filtered, verified := judgesOf(t, offline); len(filtered) != 1 || filtered["lexical"] == 0 || verified != "lexical" {
		t.Errorf("the built-in model: relevance judged by %v, verification by %q; want lexical", filtered, verified)
	}
}
