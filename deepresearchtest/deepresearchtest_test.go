package deepresearchtest_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"go.uber.org/goleak"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/search"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var docs = []search.Document{
	{DocID: "tat8", URL: "https://example.org/tat-8", Title: "TAT-8",
		Text: "TAT-8 was the first transatlantic fibre-optic cable.\n\nIt entered service in December 1988 and carried 280 megabits per second."},
	{DocID: "repair", URL: "https://example.org/repair", Title: "Cable repair",
		Text: "A repair ship raises the damaged cable with a grapnel.\n\nThe cable is spliced on board and lowered again."},
}

func TestBackend(t *testing.T) {
	b, err := deepresearchtest.NewBackend(docs...)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := b.Search(ctx, "When did the fibre cable TAT-8 enter service?", 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) == 0 || res[0].DocID != "tat8" || res[0].Location != "paragraph 1" || res[0].URL != "https://example.org/tat-8" {
		t.Fatalf("search: %+v", res)
	}
	if got, _ := b.Search(ctx, "nothing matches zzz", 5); len(got) != 0 {
		t.Errorf("unexpected results %+v", got)
	}
	if _, err := b.Fetch(ctx, "missing"); !errors.Is(err, search.ErrNotFound) {
		t.Errorf("fetch of an unknown id: %v", err)
	}
	if _, err := deepresearchtest.NewBackend(docs[0], docs[0]); err == nil {
		t.Error("two documents with one DocID were accepted")
	}
}

// Testing code that embeds deepresearch, offline and deterministic.
func Example() {
	backend, _ := deepresearchtest.NewBackend(docs...)
	r, _ := deepresearch.New(deepresearch.Config{Model: deepresearchtest.Model(0), Search: backend, Limits: deepresearch.Limits{MaxTasks: 2}})
	run, err := r.Start(context.Background(), deepresearch.Request{Question: "When did TAT-8 enter service?"}, deepresearch.RunOptions{})
	if err != nil {
		panic(err)
	}
	rep, err := run.Wait()
	if err != nil {
		panic(err)
	}
	for _, ref := range rep.References {
		fmt.Printf("[%d] %s %s\n", ref.Number, ref.Title, ref.URL)
	}
	// Output:
	// [1] TAT-8 https://example.org/tat-8
}
