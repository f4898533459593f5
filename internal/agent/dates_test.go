package agent

import (
	"context"
	"testing"

	"github.com/deepresearch/deepresearch/search"
)

// datedBackend returns two web results, one dated by the search engine
// (as SearXNG writes it), one whose page states its dates.
type datedBackend struct{}

func (datedBackend) Search(context.Context, string, int) ([]search.Result, error) {
	return []search.Result{
		{DocID: "https://a.example/", URL: "https://a.example/", Title: "Repeaters amplify", Channel: "web", Published: "2024-03-01T00:00:00",
			Snippet: "Repeaters amplify the optical signal every seventy kilometres along a submarine cable."},
		{DocID: "https://b.example/", URL: "https://b.example/", Title: "Repeaters are powered", Channel: "web",
			Snippet: "Repeaters are powered through a copper conductor in the submarine cable from the shore."},
	}, nil
}

func (datedBackend) Fetch(_ context.Context, id string) (search.Document, error) {
	return search.Document{DocID: id, URL: id, Text: "Repeaters are powered from the shore.",
		Published: "2023-05-06T07:08:09+02:00", Modified: "not a date"}, nil
}

// A search result's date dates its source; opening a source its result
// did not date takes the page's dates; a dated source keeps its own.
func TestSourcesCarryDates(t *testing.T) {
	s := newSession(Config{Search: datedBackend{}}, Task{Objective: "submarine cable repeaters", Question: "submarine cable repeaters"})
	if _, err := s.search(t.Context(), "submarine cable repeaters", nil); err != nil {
		t.Fatal(err)
	}
	if got := s.Sources(); len(got) != 2 || got[1].Published != "2024-03-01T00:00:00Z" || got[2].Published != "" {
		t.Fatalf("sources after the search: %+v", got)
	}
	for n := 1; n <= 2; n++ {
		if _, err := s.open(t.Context(), n); err != nil {
			t.Fatal(err)
		}
	}
	got := s.Sources()
	if got[1].Published != "2024-03-01T00:00:00Z" {
		t.Errorf("the result's date was replaced by the page's: %+v", got[1])
	}
	if got[2].Published != "2023-05-06T07:08:09+02:00" || got[2].Modified != "" {
		t.Errorf("opened page's dates: %+v", got[2])
	}
}
