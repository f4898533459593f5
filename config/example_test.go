package config_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/render"
)

// What `deepresearch run` does, in a few lines: settings (here the
// built-in defaults with a corpus), a Researcher, a run with per-run
// options, the report rendered in the chosen format. A server or an MCP
// handler does the same with its own run ID and event sink, and can store
// the report as JSON and render it again later (LoadReport).
func ExampleNewResearcher() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)

	s := config.Defaults()
	s.Corpus.Dir, s.Corpus.Index = "../testdata/corpus", filepath.Join(dir, "index.db")
	r, err := config.NewResearcher(s, nil)
	if err != nil {
		panic(err)
	}
	defer r.Close()

	run, err := r.Start(context.Background(), deepresearch.Request{
		Question: "How are cable faults repaired?", RunID: "run-1", MaxTasks: 1, Style: "plain",
	}, deepresearch.RunOptions{Sink: func(e events.Event) { /* stream e as JSON to a client */ }})
	if err != nil {
		panic(err)
	}
	rep, err := run.Wait()
	if err != nil {
		panic(err)
	}
	stored, _ := json.Marshal(rep) // keep it in a store …
	again, _ := deepresearch.LoadReport(stored)
	page, _ := again.Render(render.HTML) // … and render it later
	fmt.Println(rep.RunID, strings.HasPrefix(string(page), "<!DOCTYPE html>"))
	// Output:
	// run-1 true
}
