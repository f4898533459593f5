package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/internal/purpose"
)

func TestPlanExtractive(t *testing.T) {
	m := extractive.New(extractive.Options{})
	const q = "How does the Raft consensus algorithm compare with Paxos?"
	tasks, u, err := Plan(context.Background(), m, q, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(tasks) != 3 {
		t.Fatalf("%d tasks, want 3", len(tasks))
	}
	for i, task := range tasks {
		if task.Index != i || task.ID != fmt.Sprintf("t%d", i+1) || task.Title == "" || task.Objective != q {
			t.Errorf("task %d = %+v", i, task)
		}
		for _, w := range strings.Fields(strings.TrimPrefix(strings.Trim(task.Question, "?"), "What is ")) {
			if !strings.Contains(q, w) {
				t.Errorf("task %d question %q: %q is not a word of the question", i, task.Question, w)
			}
		}
	}
	if u.Calls != 1 || u.PromptTokens == 0 || u.CompletionTokens == 0 {
		t.Errorf("usage %+v", u)
	}
	again, _, _ := Plan(context.Background(), m, q, 3)
	if fmt.Sprint(again) != fmt.Sprint(tasks) {
		t.Errorf("plan is not deterministic")
	}
}

func TestPlanParsing(t *testing.T) {
	const q = "What is Raft?"
	tests := []struct {
		name     string
		reply    string
		maxTasks int
		want     []string // title|question
	}{
		{"object", `{"tasks":[{"title":"A","question":"Qa?"},{"title":"B","question":"Qb?"}]}`, 4, []string{"A|Qa?", "B|Qb?"}},
		{"fenced", "```json\n{\"tasks\":[{\"title\":\"A\",\"question\":\"Qa?\"}]}\n```", 4, []string{"A|Qa?"}},
		{"prose around", "Sure! Here is the plan:\n{\"tasks\": [{\"title\": \"A\", \"question\": \"Qa?\"}]}\nGood luck {not json}.", 4, []string{"A|Qa?"}},
		{"bare array", `[{"title":"A","question":"Qa?"},{"question":"What are the failure modes of Raft leader election?"}]`, 4,
			[]string{"A|Qa?", "What are the failure modes of…|What are the failure modes of Raft leader election?"}},
		{"strings", `{"tasks":["Qa?","Qb?"]}`, 4, []string{"Qa|Qa?", "Qb|Qb?"}},
		{"capped", `{"tasks":[{"title":"A","question":"Qa?"},{"title":"B","question":"Qb?"},{"title":"C","question":"Qc?"}]}`, 2, []string{"A|Qa?", "B|Qb?"}},
		{"empty questions dropped", `{"tasks":[{"title":"A","question":" "},{"title":"B","question":"Qb?"}]}`, 4, []string{"B|Qb?"}},
		{"multi-line fields folded", `{"tasks":[{"title":"A\nB","question":"Line one\nline two?"}]}`, 4, []string{"A B|Line one line two?"}},
		{"truncated list keeps finished tasks", `{"tasks":[{"title":"A","question":"Qa?"},{"title":"B","question":"Qb?"},{"title":"C","quest`, 4, []string{"A|Qa?", "B|Qb?"}},
		{"truncated bare array", "```json\n[\"Qa?\", {\"title\":\"B\",\"question\":\"Qb?\"}, {\"ti", 4, []string{"Qa|Qa?", "B|Qb?"}},
		{"numbered prose", "Here is my plan.\n\n1. **Election**: How does Raft elect a leader?\n2) What is a Raft term?\n- Replication: How are log entries replicated?\nThat is all.", 4,
			[]string{"Election|How does Raft elect a leader?", "What is a Raft term|What is a Raft term?", "Replication|How are log entries replicated?"}},
		{"garbage falls back", "I cannot help with that.", 4, []string{"What is Raft|What is Raft?"}},
		{"no tasks falls back", `{"tasks":[]}`, 4, []string{"What is Raft|What is Raft?"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &scripted{turns: []turn{reply(tt.reply)}}
			tasks, _, err := Plan(context.Background(), m, q, tt.maxTasks)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for i, task := range tasks {
				got = append(got, task.Title+"|"+task.Question)
				if task.Index != i || task.ID != fmt.Sprintf("t%d", i+1) {
					t.Errorf("task %d numbered %d/%s", i, task.Index, task.ID)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("got\n%q\nwant\n%q", got, tt.want)
			}
			if len(m.calls) != 1 || m.calls[0].streaming || len(m.calls[0].tools) != 0 {
				t.Errorf("planner call: %d calls, streaming %v, %d tools", len(m.calls), m.calls[0].streaming, len(m.calls[0].tools))
			}
			msgs := m.calls[0].msgs
			if strings.Contains(textOf(msgs[0]), "Role:") || textOf(msgs[1]) != fmt.Sprintf("Question: %s\nMax tasks: %d", q, tt.maxTasks) {
				t.Errorf("planner prompt %q / %q", textOf(msgs[0]), textOf(msgs[1]))
			}
			if m.calls[0].purpose != purpose.Planner {
				t.Errorf("planner call's purpose = %q", m.calls[0].purpose)
			}
			for _, task := range tasks {
				if task.Objective != q {
					t.Errorf("task %s objective = %q, want the question", task.ID, task.Objective)
				}
			}
		})
	}
}

func TestPlanErrors(t *testing.T) {
	boom := errors.New("unavailable")
	_, _, err := Plan(context.Background(), &scripted{turns: []turn{{err: boom}}}, "What is Raft?", 3)
	if !errors.Is(err, boom) || !strings.HasPrefix(err.Error(), "agent: plan: ") {
		t.Errorf("model error: %v", err)
	}
	if _, _, err := Plan(context.Background(), &scripted{}, "  ", 3); !errors.Is(err, ErrEmptyQuestion) {
		t.Errorf("empty question: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := Plan(ctx, extractive.New(extractive.Options{}), "What is Raft?", 3); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
	m := &scripted{turns: []turn{reply(`["Q1?","Q2?","Q3?","Q4?","Q5?","Q6?"]`)}}
	tasks, _, err := Plan(context.Background(), m, "What is Raft?", 0)
	if err != nil || len(tasks) != DefaultMaxTasks {
		t.Errorf("maxTasks 0: %d tasks, %v", len(tasks), err)
	}
}

func ExamplePlan() {
	m := extractive.New(extractive.Options{})
	tasks, _, err := Plan(context.Background(), m, "How does Raft compare with Paxos?", 3)
	if err != nil {
		panic(err)
	}
	for _, t := range tasks {
		fmt.Printf("%s %s: %s\n", t.ID, t.Title, t.Question)
	}
	// Output:
	// t1 Overview: How does Raft compare with Paxos?
	// t2 Raft: What is Raft?
	// t3 Paxos: What is Paxos?
}

func ExampleRun() {
	backend := newMemBackend(corpusDocs...)
	res, err := Run(context.Background(), Config{
		Model:  extractive.New(extractive.Options{}),
		Search: backend,
		Hooks: Hooks{
			ToolCall: func(name, args string) { fmt.Println("tool:", name, args) },
		},
	}, Task{ID: "t1", Title: "Leader election", Question: "How does Raft elect a leader?"})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Report)
	for _, c := range res.Cited {
		fmt.Printf("[%d] %s\n", c.Number, c.Source.Title)
	}
	// Output:
	// tool: search {"query":"How does Raft elect a leader"}
	// tool: search {"query":"Raft elect leader"}
	// tool: search {"query":"Raft elect"}
	// tool: open {"source":1}
	// tool: open {"source":2}
	// Raft uses a heartbeat mechanism to trigger leader election. [1] When servers start up, they begin as followers. [1] A server remains in follower state as long as it receives valid RPCs from a leader or candidate. [1] If a follower receives no communication over a period of time called the election timeout, it assumes there is no viable leader and begins an election to choose a new leader. [1]
	//
	// Once a leader has been elected, it begins servicing client requests. [1] The leader appends the command to its log as a new entry, then issues AppendEntries RPCs in parallel to each of the other servers to replicate the entry. [1]
	//
	// Raft is a consensus algorithm designed to be easy to understand. [1] It is equivalent to Paxos in fault-tolerance and performance. [1]
	//
	// Election safety means that at most one leader can be elected in a given term. [2] A candidate wins an election if it receives votes from a majority of the servers in the full cluster for the same term. [2]
	//
	// Raft uses randomized election timeouts to ensure that split votes are rare and that they are resolved quickly. [2] Election timeouts are chosen randomly from a fixed interval, e.g. 150 to 300 ms. [2]
	// [1] The Raft Consensus Algorithm
	// [2] Leader Election Notes
}
