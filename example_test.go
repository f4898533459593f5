package deepresearch_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tmc/langchaingo/llms/openai"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/corpus"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/search"
)

// Embedding in a few lines: research a folder of documents offline and
// print the report's first line and its references.
func Example() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)

	docs, err := corpus.Open("testdata/corpus", corpus.Options{IndexPath: filepath.Join(dir, "index.db")})
	if err != nil {
		panic(err)
	}
	r, err := deepresearch.New(deepresearch.Config{Search: docs, Limits: deepresearch.Limits{MaxTasks: 2}})
	if err != nil {
		panic(err)
	}
	defer r.Close()

	run, err := r.Start(context.Background(), deepresearch.Request{Question: "When did TAT-8 enter service and what did fibre change?"}, deepresearch.RunOptions{})
	if err != nil {
		panic(err)
	}
	rep, err := run.Wait()
	if err != nil {
		panic(err)
	}
	fmt.Println(strings.SplitN(rep.Text, "\n", 2)[0])
	for _, ref := range rep.References {
		fmt.Printf("[%d] %s\n", ref.Number, ref.Title)
	}
	// Output:
	// # When did TAT-8 enter service and what did fibre change?
	// [1] TAT-8: The First Transatlantic Fibre-Optic Cable
	// [2] Repeaters, Regenerators and Optical Amplifiers
	// [3] From Words per Minute to Terabits per Second
}

// Streaming events to a chat backend: each event is JSON-serialisable.
// Run.Events yields every event of the run, from its first, to any
// number of callers; Wait returns the report.
func ExampleRun_Events() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	r, _ := deepresearch.New(deepresearch.Config{Search: exampleCorpus(dir), Limits: deepresearch.Limits{MaxTasks: 1}})
	defer r.Close()

	run, err := r.Start(context.Background(), deepresearch.Request{Question: "How are cable faults repaired?"}, deepresearch.RunOptions{})
	if err != nil {
		panic(err)
	}
	for e := range run.Events() {
		switch e.Type {
		case events.PlanReady, events.SourcesMerged, events.RunFinished:
			fmt.Println(e.Seq > 0, e.Type)
		}
	}
	if _, err := run.Wait(); err != nil {
		panic(err)
	}
	// Output:
	// true plan
	// true sources.merged
	// true run.finished
}

// Embedding with a language model: any langchaingo llms.Model plugs in
// (here an OpenAI client talking to the test kit's OpenAI-compatible
// server), with any search.Backend. The Researcher then does what the CLI
// does with a configured model: the model judges which search results are
// relevant (each sources.filtered event names its judge) and whether each
// cited source supports its sentence (report.verified, Verification.Judge).
func ExampleNew_languageModel() {
	srv := deepresearchtest.NewOpenAIServer(deepresearchtest.JudgingModel(deepresearchtest.Model(0)), deepresearchtest.OpenAIOptions{})
	defer srv.Close()
	model, err := openai.New(openai.WithBaseURL(srv.URL+"/v1"), openai.WithToken("none"), openai.WithModel("extractive"))
	if err != nil {
		panic(err)
	}
	backend, err := deepresearchtest.NewBackend(
		search.Document{Title: "Cable repair", URL: "https://example.com/repair",
			Text: "A cable ship grapples the broken submarine cable from the sea floor.\n\nThe repaired cable is spliced on deck and lowered again."},
		search.Document{Title: "Cable faults", URL: "https://example.com/faults",
			Text: "Most submarine cable faults are caused by fishing trawlers and ship anchors."},
	)
	if err != nil {
		panic(err)
	}
	r, err := deepresearch.New(deepresearch.Config{Model: model, Search: backend, Limits: deepresearch.Limits{MaxTasks: 1}})
	if err != nil {
		panic(err)
	}
	defer r.Close()

	run, err := r.Start(context.Background(), deepresearch.Request{Question: "How are submarine cables repaired?"}, deepresearch.RunOptions{})
	if err != nil {
		panic(err)
	}
	judges := map[string]bool{}
	for e := range run.Events() {
		if d, ok := e.Data.(events.FilteredData); ok {
			judges[d.Judge] = true
		}
	}
	rep, err := run.Wait()
	if err != nil {
		panic(err)
	}
	fmt.Println("relevance judged by", judges)
	fmt.Println("citations verified by", rep.Verification.Judge)
	// Output:
	// relevance judged by map[llm:true]
	// citations verified by llm
}

// What a run would spend, before it runs: the plan (offline, the offline
// planner's; with a language model, one planning call) and the expected
// and maximum model calls, tokens and dollars, priced here at $2.50 and
// $10 per million input and output tokens.
func ExampleResearcher_Estimate() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	price := func(_ string, u events.Usage) float64 {
		return (float64(u.PromptTokens)*2.5 + float64(u.CompletionTokens)*10) / 1e6
	}
	r, _ := deepresearch.New(deepresearch.Config{Search: exampleCorpus(dir), Price: price})
	defer r.Close()

	est, err := r.Estimate(context.Background(), deepresearch.Request{
		Question: "How are cable faults found and repaired?", Outline: []string{"Finding faults", "Repair ships"}, MaxCycles: 1})
	if err != nil {
		panic(err)
	}
	for _, t := range est.Plan {
		fmt.Println(t.Title)
	}
	fmt.Printf("expected %d calls; at most %d calls, $%.2f\n", est.Expected.Calls, est.Maximum.Calls, est.Maximum.CostUSD)
	// Output:
	// Finding faults
	// Repair ships
	// expected 13 calls; at most 21 calls, $0.82
}

// exampleCorpus is the examples' corpus, indexed in dir.
func exampleCorpus(dir string) *corpus.Corpus {
	c, err := corpus.Open("testdata/corpus", corpus.Options{IndexPath: filepath.Join(dir, "index.db")})
	if err != nil {
		panic(err)
	}
	return c
}
