package deepresearch_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/search"
)

// BenchmarkWebRun measures a run with a real provider client and web
// search: the OpenAI-compatible client against a local server that answers
// after a fixed delay (the offline model behind it), SearXNG-format search
// and page fetches through the SSRF-guarded fetcher, all on loopback.
// x-critical is the run's wall time over its chain of model calls (plan,
// the slowest agent's calls with its relevance judgements, the assessment
// of the cycle, the writer and the verification's judgement, each taking
// the delay and counted as if serial, though a turn's searches are judged
// at once).
func BenchmarkWebRun(b *testing.B) {
	for _, delay := range []time.Duration{20 * time.Millisecond, 50 * time.Millisecond} {
		b.Run(delay.String(), func(b *testing.B) {
			var docs []search.Document
			filepath.WalkDir("testdata/corpus", func(path string, d os.DirEntry, err error) error {
				if err == nil && filepath.Ext(path) == ".md" {
					data, _ := os.ReadFile(path)
					title, body, _ := strings.Cut(string(data), "\n")
					docs = append(docs, search.Document{DocID: d.Name(), Title: strings.TrimPrefix(title, "# "), Text: body})
				}
				return nil
			})
			web, err := deepresearchtest.NewWebServer(docs...)
			if err != nil {
				b.Fatal(err)
			}
			defer web.Close()
			model := deepresearchtest.NewOpenAIServer(extractive.New(extractive.Options{}), deepresearchtest.OpenAIOptions{Delay: delay})
			defer model.Close()
			b.Setenv("OPENAI_API_KEY", "")
			s := config.Defaults()
			s.Model.Provider, s.Model.Name, s.Model.BaseURL = "openai", "extractive", model.URL+"/v1"
			s.Search.Providers, s.Search.SearxngURL = []string{"searxng"}, web.URL
			s.Fetch.Allow = []string{strings.TrimPrefix(web.URL, "http://")}
			r, err := config.NewResearcher(s, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			ctx := context.Background()
			var ratio float64
			for b.Loop() {
				rec := &recorder{}
				start := time.Now()
				if _, err := runWith(ctx, r, question, rec.sink); err != nil {
					b.Fatal(err)
				}
				wall := time.Since(start)
				// An agent's calls: its own turns, and one relevance
				// judgement per search the model judged.
				calls := map[int]int{}
				for _, e := range rec.of(events.AgentFinished) {
					calls[e.Agent] += e.Data.(events.AgentFinishedData).Usage.Calls
				}
				for _, e := range rec.of(events.SourcesFiltered) {
					// "llm", or "lexical (llm failed: …)": the call was made.
					if strings.Contains(e.Data.(events.FilteredData).Judge, "llm") {
						calls[e.Agent]++
					}
				}
				slowest := 0
				for _, n := range calls {
					slowest = max(slowest, n)
				}
				// Plan, the slowest agent, the research loop's assessments,
				// the writer and the verification's judgement, each call
				// counted as if serial (a turn's searches are judged at
				// once, so the run can beat 1×).
				assessed := len(rec.of(events.Assessed))
				ratio += float64(wall) / float64(time.Duration(1+slowest+assessed+1+1)*delay)
			}
			b.ReportMetric(ratio/float64(b.N), "x-critical")
			b.ReportMetric(float64(model.Calls())/float64(b.N), "calls/run")
		})
	}
}
