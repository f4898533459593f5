package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/search"
	"github.com/deepresearch/deepresearch/source"
)

// TestRunReadsFirst: a task's Read documents are opened before the first
// turn — numbered as sources, each an open call of the budget, their text
// recorded as read — and the report can cite them; a document the
// backend does not have is left out.
func TestRunReadsFirst(t *testing.T) {
	backend := newMemBackend(corpusDocs...)
	var rec recorder
	task := raftTask
	task.Gap = "reference: Paxos Made Simple, named in [1] The Raft Consensus Algorithm"
	task.Question = "Paxos Made Simple: " + raftTask.Question
	task.Read = []string{"missing.md", "paxos.md"}
	res, err := Run(context.Background(), Config{Model: extractive.New(extractive.Options{}), Search: backend, Hooks: rec.hooks(t)}, task)
	if err != nil {
		t.Fatal(err)
	}
	checkCitations(t, res)
	if len(rec.toolCalls) == 0 || rec.toolCalls[0] != ToolOpen {
		t.Errorf("tool calls %v, want an open first", rec.toolCalls)
	}
	src, ok := res.Sources[1]
	if !ok || src.ID != "paxos.md" {
		t.Fatalf("source [1] = %+v, want paxos.md; sources %v", src, res.Sources)
	}
	if !strings.Contains(res.Texts[1], "Paxos") {
		t.Errorf("what was read of [1]: %q", res.Texts[1])
	}
	for _, s := range res.Sources {
		if s.ID == "missing.md" {
			t.Errorf("a document the backend lacks was numbered: %+v", s)
		}
	}
	if res.ToolCalls != len(rec.toolCalls) {
		t.Errorf("ToolCalls = %d, hooks saw %v", res.ToolCalls, rec.toolCalls)
	}
	if !strings.Contains(res.Report, "[1]") {
		t.Errorf("the report does not cite the document read first:\n%s", res.Report)
	}
}

// TestReadKeepsChannel: a document read first keeps the channel its
// backend gives it (a corpus document that declares a web address is
// still a local document), as a search result of it would.
func TestReadKeepsChannel(t *testing.T) {
	var docs []search.Document
	for _, d := range corpusDocs {
		if d.DocID == "paxos.md" {
			d.URL, d.Channel = "https://example.org/paxos", source.ChannelCorpus
		}
		docs = append(docs, d)
	}
	task := raftTask
	task.Read = []string{"paxos.md"}
	res, err := Run(context.Background(), Config{Model: extractive.New(extractive.Options{}), Search: newMemBackend(docs...)}, task)
	if err != nil {
		t.Fatal(err)
	}
	if src := res.Sources[1]; src.ID != "paxos.md" || src.Channel != source.ChannelCorpus || src.Kind() != source.KindLocal {
		t.Errorf("source [1] = %+v (kind %q), want paxos.md on the corpus channel, a local document", src, src.Kind())
	}
}
