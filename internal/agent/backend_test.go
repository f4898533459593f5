package agent

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/deepresearch/deepresearch/search"
)

// memBackend is a small in-memory search backend: documents are split
// into passages at "## " headings and ranked by how often the query's
// terms (words of three letters or more, matched as word prefixes) occur
// in them. It is a real, if simple, implementation of search.Backend.
type memBackend struct {
	docs     map[string]search.Document
	passages []passage

	mu       sync.Mutex
	searches []string
	fetches  []string
}

type passage struct {
	doc     search.Document
	heading string
	text    string
}

func newMemBackend(docs ...search.Document) *memBackend {
	b := &memBackend{docs: map[string]search.Document{}}
	for _, d := range docs {
		b.docs[d.DocID] = d
		heading := d.Title
		var cur []string
		flush := func() {
			if t := strings.TrimSpace(strings.Join(cur, "\n")); t != "" {
				b.passages = append(b.passages, passage{d, heading, t})
			}
			cur = nil
		}
		for _, line := range strings.Split(d.Text, "\n") {
			if h, ok := strings.CutPrefix(line, "## "); ok {
				flush()
				heading = h
				continue
			}
			if strings.HasPrefix(line, "# ") {
				continue
			}
			cur = append(cur, line)
		}
		flush()
	}
	return b
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
}

func (b *memBackend) Search(ctx context.Context, query string, limit int) ([]search.Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.searches = append(b.searches, query)
	b.mu.Unlock()
	var terms []string
	for _, w := range words(query) {
		if len(w) >= 3 && !slices.Contains(terms, w) {
			terms = append(terms, w)
		}
	}
	var out []search.Result
	for _, p := range b.passages {
		score := 0.0
		for _, w := range words(p.doc.Title + " " + p.heading + " " + p.text) {
			for _, t := range terms {
				if strings.HasPrefix(w, t) {
					score++
				}
			}
		}
		if score > 0 {
			out = append(out, search.Result{
				DocID: p.doc.DocID, URL: p.doc.URL, Title: p.doc.Title,
				Location: "§ " + p.heading, Snippet: p.text, Score: score,
			})
		}
	}
	slices.SortStableFunc(out, func(x, y search.Result) int { return cmp.Compare(y.Score, x.Score) })
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

func (b *memBackend) Fetch(ctx context.Context, docID string) (search.Document, error) {
	if err := ctx.Err(); err != nil {
		return search.Document{}, err
	}
	b.mu.Lock()
	b.fetches = append(b.fetches, docID)
	b.mu.Unlock()
	d, ok := b.docs[docID]
	if !ok {
		return search.Document{}, fmt.Errorf("memBackend: %q: %w", docID, search.ErrNotFound)
	}
	return d, nil
}

// failingBackend fails every call, like a search service that is down.
type failingBackend struct{ err error }

func (f failingBackend) Search(context.Context, string, int) ([]search.Result, error) {
	return nil, f.err
}

func (f failingBackend) Fetch(context.Context, string) (search.Document, error) {
	return search.Document{}, f.err
}

// blockingBackend blocks in Search until its context is done, like a
// search service that hangs. started is closed when the first search
// begins (a turn's searches run at once).
type blockingBackend struct {
	started chan struct{}
	once    *sync.Once
}

func (b blockingBackend) Search(ctx context.Context, _ string, _ int) ([]search.Result, error) {
	b.once.Do(func() { close(b.started) })
	<-ctx.Done()
	return nil, ctx.Err()
}

func (b blockingBackend) Fetch(ctx context.Context, _ string) (search.Document, error) {
	<-ctx.Done()
	return search.Document{}, ctx.Err()
}

var corpusDocs = []search.Document{
	{DocID: "raft.md", URL: "file:///corpus/raft.md", Title: "The Raft Consensus Algorithm", Text: `# The Raft Consensus Algorithm

Raft is a consensus algorithm designed to be easy to understand. It is equivalent to Paxos in fault-tolerance and performance.

## Leader election

Raft uses a heartbeat mechanism to trigger leader election. When servers start up, they begin as followers. A server remains in follower state as long as it receives valid RPCs from a leader or candidate. If a follower receives no communication over a period of time called the election timeout, it assumes there is no viable leader and begins an election to choose a new leader.

## Log replication

Once a leader has been elected, it begins servicing client requests. The leader appends the command to its log as a new entry, then issues AppendEntries RPCs in parallel to each of the other servers to replicate the entry.`},
	{DocID: "paxos.md", URL: "file:///corpus/paxos.md", Title: "Paxos Made Simple", Text: `# Paxos Made Simple

The Paxos algorithm for implementing a fault-tolerant distributed system has been regarded as difficult to understand. In fact, it is among the simplest and most obvious of distributed algorithms.

## Choosing a value

A value is chosen when a single proposal with that value has been accepted by a majority of the acceptors. Proposers may elect a distinguished leader to ensure progress.`},
	{DocID: "election.md", URL: "file:///corpus/election.md", Title: "Leader Election Notes", Text: `# Leader Election Notes

## Randomized timeouts

Raft uses randomized election timeouts to ensure that split votes are rare and that they are resolved quickly. Election timeouts are chosen randomly from a fixed interval, e.g. 150 to 300 ms.

## Safety

Election safety means that at most one leader can be elected in a given term. A candidate wins an election if it receives votes from a majority of the servers in the full cluster for the same term.`},
	{DocID: "gomem.md", URL: "file:///corpus/gomem.md", Title: "The Go Memory Model", Text: `# The Go Memory Model

The Go memory model specifies the conditions under which reads of a variable in one goroutine can be guaranteed to observe values produced by writes to the same variable in a different goroutine.

## Happens before

Within a single goroutine, the happens-before order is the order expressed by the program.`},
}
