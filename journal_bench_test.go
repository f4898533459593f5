package deepresearch_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/runstore"
	"github.com/deepresearch/deepresearch/search"
	"github.com/deepresearch/deepresearch/sqlitestore"
)

// BenchmarkJournal measures what keeping a run's journal costs: the same
// run — the OpenAI client against a local server answering after 50ms
// (the offline model behind it), SearXNG-format web search, pages read
// through the fetcher — kept in an SQLite run store with its events,
// without and with its journal, the two alternating so that both meet the
// same load. It reports the wall time of each (ms-plain, ms-journaled),
// the difference as a share of the plain run (overhead-%), the time the
// run's calls spent waiting for their entries to be committed, summed over
// every call though agents wait at once (append-ms), and the journal's
// size (bytes/run, as stored) and entries. cpu-ms is the processor time
// the journal adds to a run (the whole process's, the double's included,
// journaled less plain): on a loaded machine, the figure that does not
// depend on the load.
func BenchmarkJournal(b *testing.B) {
	web, err := deepresearchtest.NewWebServer(benchDocs(b)...)
	if err != nil {
		b.Fatal(err)
	}
	defer web.Close()
	model := deepresearchtest.NewOpenAIServer(extractive.New(extractive.Options{}), deepresearchtest.OpenAIOptions{Delay: 50 * time.Millisecond})
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
	st, err := sqlitestore.Open(b.Context(), filepath.Join(b.TempDir(), "runs.db"), sqlitestore.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	ctx := context.Background()
	tj := &timedJournal{st: st}
	n := 0
	run := func(journaled bool) (time.Duration, time.Duration) {
		id := fmt.Sprintf("run%d", n)
		n++
		if err := st.Create(ctx, sqlitestore.Run{ID: id, Question: question}); err != nil {
			b.Fatal(err)
		}
		st.Start(ctx, id)
		var js deepresearch.JournalStore // none
		if journaled {
			js = tj
		}
		start, cpu0 := time.Now(), cpuTime()
		rep, err := researchJournaled(ctx, r, deepresearch.Request{Question: question, RunID: id}, js, func(e events.Event) {
			if err := st.Append(ctx, e); err != nil {
				b.Fatal(err)
			}
		})
		took, cpu := time.Since(start), cpuTime()-cpu0
		if err != nil {
			b.Fatal(err)
		}
		st.Finish(ctx, id, runstore.Finished, rep.Usage, "")
		return took, cpu
	}
	var plain, journaled, plainCPU, journaledCPU time.Duration
	runs := 0
	for b.Loop() {
		for k := range 2 {
			wall, cpu := run((runs+k)%2 == 1)
			if (runs+k)%2 == 1 {
				journaled, journaledCPU = journaled+wall, journaledCPU+cpu
			} else {
				plain, plainCPU = plain+wall, plainCPU+cpu
			}
		}
		runs++
	}
	b.ReportMetric(float64((journaledCPU-plainCPU).Microseconds())/1000/float64(runs), "cpu-ms")
	b.ReportMetric(float64(plain.Milliseconds())/float64(runs), "ms-plain")
	b.ReportMetric(float64(journaled.Milliseconds())/float64(runs), "ms-journaled")
	b.ReportMetric(100*(float64(journaled)-float64(plain))/float64(plain), "overhead-%")
	b.ReportMetric(float64(tj.wait.Microseconds())/1000/float64(runs), "append-ms")
	b.ReportMetric(float64(tj.bytes)/float64(runs), "bytes/run")
	b.ReportMetric(float64(tj.entries)/float64(runs), "entries/run")
}

// timedJournal is a JournalStore that times its appends.
type timedJournal struct {
	st             deepresearch.JournalStore
	mu             sync.Mutex
	wait           time.Duration
	bytes, entries int
}

func (t *timedJournal) AppendJournal(ctx context.Context, run string, entry []byte) error {
	defer t.note(time.Now(), entry)
	return t.st.AppendJournal(ctx, run, entry)
}

func (t *timedJournal) note(start time.Time, entry []byte) {
	t.mu.Lock()
	t.wait += time.Since(start)
	t.bytes += len(entry)
	t.entries++
	t.mu.Unlock()
}

// QueueJournal passes the store's on (see deepresearch.JournalStore),
// timing the queueing.
func (t *timedJournal) QueueJournal(ctx context.Context, run string, entry []byte, done func(error)) error {
	defer t.note(time.Now(), entry)
	return t.st.(interface {
		QueueJournal(context.Context, string, []byte, func(error)) error
	}).QueueJournal(ctx, run, entry, done)
}

func (t *timedJournal) Journal(ctx context.Context, run string) ([][]byte, error) {
	return t.st.Journal(ctx, run)
}

// cpuTime is the processor time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchDocs(b *testing.B) []search.Document {
	b.Helper()
	var docs []search.Document
	files, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*", "*.md"))
	for _, f := range files {
		data, err := readFile(f)
		if err != nil {
			b.Fatal(err)
		}
		title, body, _ := strings.Cut(data, "\n")
		docs = append(docs, search.Document{DocID: filepath.Base(f), Title: strings.TrimPrefix(title, "# "), Text: body})
	}
	if len(docs) == 0 {
		b.Fatal("no documents")
	}
	return docs
}
