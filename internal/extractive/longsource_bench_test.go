package extractive

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"
)

// longSource is an opened source of about n bytes after its tool header:
// a long guide whose many sections each describe one setting in prose,
// a list and a command, with one section that answers the question of
// longSourceConversation.
func longSource(n int) string {
	var b strings.Builder
	b.WriteString("[1] The Raft Operations Guide\nURL: file:///docs/raft-ops.md\n\n# The Raft Operations Guide\n\nThis guide describes every setting of a Raft cluster and how operators tune it.\n\n")
	verbs := []string{"replicates", "compacts", "snapshots", "forwards", "retries", "batches"}
	for i := 0; b.Len() < n; i++ {
		v := verbs[i%len(verbs)]
		fmt.Fprintf(&b, "## Setting raft_option_%d\n\nThe server %s entries of term %d when the follower's heartbeatTimeout%d expires; readers and writers of log segment %d wait on the commit index.\n\n", i, v, i, i, i)
		fmt.Fprintf(&b, "- Default: %d milliseconds, raised by StartCPUProfile%d.\n- Queries served from cache %d.\n\nTo change it:\n\n    $ raftctl set raft_option_%d=%d\n\n", 100+i%900, i, i, i, i%7)
		if i == 500 {
			b.WriteString("## Leader election\n\nA follower that hears no heartbeat before its election timeout becomes a candidate and requests votes; the candidate that wins a majority of votes is elected leader for the term.\n\n")
		}
	}
	return b.String()
}

// longSourceConversation is a reporter turn after a search and the open of
// one long source (n bytes).
func longSourceConversation(n int) []llms.MessageContent {
	q := "How does the Raft consensus algorithm elect a leader?"
	return []llms.MessageContent{
		sys("reporter"),
		human("Research task: Raft leader election\nQuestion: " + q),
		aiCalls(call("call_1", "search", `{"query":"raft leader election"}`)),
		toolMsg("call_1", "search", searchResult1),
		aiCalls(call("call_2", "open", `{"source":1}`)),
		toolMsg("call_2", "open", longSource(n)),
		llms.TextParts(llms.ChatMessageTypeAI, "Research complete."),
		human("Write the intermediate report now.\nQuestion: " + q),
	}
}

// BenchmarkReporterLongSource measures one reporter turn over a
// conversation that opened a 1 MB source: the offline model splits,
// stems and scores every unit of it.
func BenchmarkReporterLongSource(b *testing.B) {
	m := New(Options{})
	msgs := longSourceConversation(1 << 20)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.GenerateContent(context.Background(), msgs); err != nil {
			b.Fatal(err)
		}
	}
}

// TestReporterLongSource checks what BenchmarkReporterLongSource measures:
// the reporter quotes the section of the long source that answers.
func TestReporterLongSource(t *testing.T) {
	got := generate(t, New(Options{}), longSourceConversation(1<<18)).Content
	if !strings.Contains(got, "is elected leader for the term") {
		t.Errorf("the report lacks the answering passage:\n%s", got)
	}
}
