package extractive

import (
	"context"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/purpose"
)

// Tool results in the format internal/agent writes.
const searchResult1 = `[1] The Raft Consensus Algorithm
URL: file:///docs/raft.md
Location: § Leader election
Raft is a consensus algorithm designed to be easy to understand. It is equivalent to Paxos in fault-tolerance and performance. Raft elects a leader, e.g. the first server whose election timeout expires, and the leader manages the replicated log.

[2] Paxos Made Simple
URL: file:///docs/paxos.md
Location: § Introduction
The Paxos algorithm for implementing a fault-tolerant distributed system has been regarded as difficult to understand. In fact, it is among the simplest and most obvious of distributed algorithms [7].`

const searchResult2 = `[1] The Raft Consensus Algorithm
URL: file:///docs/raft.md
Location: § Log replication
Once a leader has been elected, it begins servicing client requests. Each client request contains a command to be executed by the replicated state machines.

[3] Consensus in the U.S. Financial System
URL: file:///docs/finance.md
Location: § Overview
Banks in the U.S. rely on consensus protocols for settlement, i.e. the final transfer of funds. Latency of 2.5 ms per round is typical.`

const openResult = `[1] The Raft Consensus Algorithm
URL: file:///docs/raft.md

# The Raft Consensus Algorithm

Raft is a consensus algorithm designed to be easy to understand. It is equivalent to Paxos in fault-tolerance and performance.

## Leader election

Raft uses a heartbeat mechanism to trigger leader election. When servers start up, they begin as followers. A server remains in follower state as long as it receives valid RPCs from a leader or candidate.

` + "```go\nfunc elect() { return }\n```" + `

- Election safety: at most one leader can be elected in a given term.
- Ok.

## Log replication

The leader appends the command to its log as a new entry, then issues AppendEntries RPCs in parallel to each of the other servers to replicate the entry.`

func sys(role string) llms.MessageContent {
	return llms.TextParts(llms.ChatMessageTypeSystem, "Role: "+role+"\n\nYou are a helpful assistant.")
}

func human(text string) llms.MessageContent { return llms.TextParts(llms.ChatMessageTypeHuman, text) }

func aiCalls(calls ...llms.ToolCall) llms.MessageContent {
	m := llms.MessageContent{Role: llms.ChatMessageTypeAI}
	for _, c := range calls {
		m.Parts = append(m.Parts, c)
	}
	return m
}

func call(id, name, args string) llms.ToolCall {
	return llms.ToolCall{ID: id, Type: "function", FunctionCall: &llms.FunctionCall{Name: name, Arguments: args}}
}

func toolMsg(id, name, content string) llms.MessageContent {
	return llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
		llms.ToolCallResponse{ToolCallID: id, Name: name, Content: content},
	}}
}

var researchTools = []llms.Tool{
	{Type: "function", Function: &llms.FunctionDefinition{Name: "search", Parameters: map[string]any{"type": "object"}}},
	{Type: "function", Function: &llms.FunctionDefinition{Name: "open", Parameters: map[string]any{"type": "object"}}},
	{Type: "function", Function: &llms.FunctionDefinition{Name: "think", Parameters: map[string]any{"type": "object"}}},
}

// reporterConversation is a full research conversation followed by the
// report request.
func reporterConversation() []llms.MessageContent {
	return []llms.MessageContent{
		sys("reporter"),
		human("Research task: Raft\nQuestion: How does the Raft consensus algorithm elect a leader?"),
		aiCalls(call("call_1", "search", `{"query":"raft consensus leader election"}`), call("call_2", "search", `{"query":"raft leader"}`)),
		toolMsg("call_1", "search", searchResult1),
		toolMsg("call_2", "search", searchResult2),
		aiCalls(call("call_3", "open", `{"source":1}`), call("call_4", "open", `{"source":9}`)),
		toolMsg("call_3", "open", openResult),
		toolMsg("call_4", "open", "Error: there is no source [9]"),
		llms.TextParts(llms.ChatMessageTypeAI, "Research complete."),
		human("Write the intermediate report now.\nQuestion: How does the Raft consensus algorithm elect a leader?"),
	}
}

func generate(t *testing.T, m *Model, msgs []llms.MessageContent, opts ...llms.CallOption) *llms.ContentChoice {
	t.Helper()
	resp, err := m.GenerateContent(context.Background(), msgs, opts...)
	if err != nil {
		t.Fatalf("GenerateContent: %v", err)
	}
	if len(resp.Choices) != 1 {
		t.Fatalf("got %d choices, want 1", len(resp.Choices))
	}
	return resp.Choices[0]
}

// generateAs makes one call whose context is marked with purpose s, the way
// internal/agent and internal/finalreport call the model.
func generateAs(t *testing.T, m *Model, s purpose.Purpose, msgs []llms.MessageContent, opts ...llms.CallOption) *llms.ContentChoice {
	t.Helper()
	resp, err := m.GenerateContent(purpose.With(context.Background(), s), msgs, opts...)
	if err != nil {
		t.Fatalf("GenerateContent: %v", err)
	}
	if len(resp.Choices) != 1 {
		t.Fatalf("got %d choices, want 1", len(resp.Choices))
	}
	return resp.Choices[0]
}
