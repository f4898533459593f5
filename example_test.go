package deepresearch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config"
)

// Embedding in a few lines: research a folder of documents offline and
// print the report's first line and its references.
func Example() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)

	r, err := deepresearch.New(deepresearch.Config{
		Corpus:    "testdata/corpus",
		IndexPath: filepath.Join(dir, "index.db"),
		MaxTasks:  2,
	})
	if err != nil {
		panic(err)
	}
	defer r.Close()

	rep, err := r.Run(context.Background(), "When did TAT-8 enter service and what did fibre change?")
	if err != nil {
		panic(err)
	}
	fmt.Println(strings.SplitN(rep.Text, "\n", 2)[0])
	for _, ref := range rep.References {
		fmt.Printf("[%d] %s\n", ref.Number, ref.Title)
	}
	// Output:
	// # When did TAT-8 enter service and what did fibre change
	// [1] TAT-8: The First Transatlantic Fibre-Optic Cable
	// [2] Repeaters, Regenerators and Optical Amplifiers
	// [3] From Words per Minute to Terabits per Second
	// [4] Submarine Cable Glossary
	// [5] Anatomy of a Submarine Cable
}

// Streaming events to a chat backend: each event is JSON-serialisable.
func ExampleResearcher_Stream() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	r, _ := deepresearch.New(deepresearch.Config{Corpus: "testdata/corpus", IndexPath: filepath.Join(dir, "index.db"), MaxTasks: 1})
	defer r.Close()

	for e, err := range r.Stream(context.Background(), "How are cable faults repaired?") {
		if err != nil {
			panic(err)
		}
		switch e.Type {
		case deepresearch.PlanReady, deepresearch.SourcesMerged, deepresearch.RunFinished:
			fmt.Println(e.Seq > 0, e.Type)
		}
	}
	// Output:
	// true plan
	// true sources.merged
	// true run.finished
}

// What `deepresearch run` does, in a few lines: settings (here the
// built-in defaults with a corpus), a Researcher, a run with per-run
// options, the report rendered in the chosen format. A server or an MCP
// handler does the same with its own run ID and event sink, and can store
// the report as JSON and render it again later (LoadReport).
func ExampleFromSettings() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)

	s := config.Defaults()
	s.Corpus.Dir, s.Corpus.Index = "testdata/corpus", filepath.Join(dir, "index.db")
	r, err := deepresearch.FromSettings(s, nil)
	if err != nil {
		panic(err)
	}
	defer r.Close()

	rep, err := r.Research(context.Background(), deepresearch.Request{
		Question: "How are cable faults repaired?", RunID: "run-1", MaxTasks: 1, Style: "plain",
	}, func(e deepresearch.Event) { /* stream e as JSON to a client */ })
	if err != nil {
		panic(err)
	}
	stored, _ := json.Marshal(rep) // keep it in a store …
	again, _ := deepresearch.LoadReport(stored)
	page, _ := again.Render(deepresearch.FormatHTML) // … and render it later
	fmt.Println(rep.RunID, strings.HasPrefix(string(page), "<!DOCTYPE html>"))
	// Output:
	// run-1 true
}
