package deepresearch_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/deepresearch/deepresearch"
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
	// [4] Anatomy of a Submarine Cable
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
