package extractive

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/deepresearch/deepresearch/internal/agent"
	goldenfile "github.com/deepresearch/deepresearch/internal/golden"
	"github.com/deepresearch/deepresearch/internal/terms"

	"github.com/tmc/langchaingo/llms"
	"go.uber.org/goleak"

	"github.com/deepresearch/deepresearch/internal/purpose"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func golden(t *testing.T, name, got string) { t.Helper(); goldenfile.Check(t, name, got) }

type planReply struct {
	Tasks []struct {
		Title    string `json:"title"`
		Question string `json:"question"`
	} `json:"tasks"`
}

func TestPlanner(t *testing.T) {
	const q = "How does the Go memory model define happens-before?"
	tests := []struct {
		name     string
		maxTasks string
		want     int
	}{
		{"one task is the question", "1", 1},
		{"two", "2", 2},
		{"one per phrase", "4", 3},
		{"no more than the phrases", "10", 3},
		{"missing", "", 3},
		{"invalid", "many", 3},
	}
	m := New(Options{})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := []llms.MessageContent{human("Question: " + q + "\nMax tasks: " + tt.maxTasks)}
			c := generateAs(t, m, purpose.Planner, msgs)
			if len(c.ToolCalls) != 0 || c.StopReason != StopReasonStop {
				t.Fatalf("planner reply has tool calls %v / stop reason %q", c.ToolCalls, c.StopReason)
			}
			var r planReply
			if err := json.Unmarshal([]byte(c.Content), &r); err != nil {
				t.Fatalf("reply is not JSON: %v\n%s", err, c.Content)
			}
			if len(r.Tasks) != tt.want {
				t.Fatalf("got %d tasks, want %d: %s", len(r.Tasks), tt.want, c.Content)
			}
			if r.Tasks[0].Question != q || r.Tasks[0].Title != OverviewTitle {
				t.Errorf("first task %+v, want the question itself", r.Tasks[0])
			}
			qstems := stemSet(q)
			seen := map[string]bool{}
			for _, task := range r.Tasks {
				if task.Title == "" || len(strings.Fields(task.Title)) > 5 {
					t.Errorf("title %q: want 1 to 5 words", task.Title)
				}
				for st := range stemSet(task.Question) {
					if !qstems[st] {
						t.Errorf("task question %q adds the word %q, not in the question", task.Question, st)
					}
				}
				if !strings.HasSuffix(task.Question, "?") {
					t.Errorf("question %q is not a question", task.Question)
				}
				if seen[task.Question] {
					t.Errorf("duplicate question %q", task.Question)
				}
				seen[task.Question] = true
			}
			again := generateAs(t, m, purpose.Planner, msgs)
			if again.Content != c.Content {
				t.Errorf("planner is not deterministic:\n%s\n%s", c.Content, again.Content)
			}
		})
	}
}

func TestPlannerGolden(t *testing.T) {
	var b strings.Builder
	m := New(Options{})
	for _, q := range []string{
		"How does the Go memory model define happens-before?",
		"Compare Raft and Paxos for replicated state machines.",
		"Why?",
	} {
		c := generate(t, m, []llms.MessageContent{sys("planner"), human("Question: " + q + "\nMax tasks: 3")})
		b.WriteString(c.Content + "\n")
	}
	golden(t, "planner.golden", b.String())
}

func TestKeyPhrases(t *testing.T) {
	tests := []struct {
		q       string
		phrases string
		sides   string
	}{
		{"How does the Go memory model define happens-before?", "Go memory model|happens-before", ""},
		{"What is Raft?", "Raft", ""},
		{"Compare Raft and Paxos for replicated state machines.", "Raft|Paxos|replicated state machines", "Raft|Paxos"},
		{"What is the difference between goroutines and OS threads?", "goroutines|OS threads", "goroutines|OS threads"},
		{`When should I use "sync.Once" vs init functions?`, "sync.Once|init functions", "sync.Once|init functions"},
		{"How were transatlantic telegraph cables laid and repaired?", "transatlantic telegraph cables laid|repaired", "transatlantic telegraph cables laid|transatlantic telegraph cables repaired"},
		{"Are channels, mutexes and atomics safe?", "channels|mutexes|atomics safe", "mutexes|atomics safe"},
		{"Use Raft or Paxos?", "Raft|Paxos", "Raft|Paxos"},
		{"How do I compute a SHA-256 checksum of a file, in Go?", "compute|SHA-256 checksum|file|Go", ""},
		{"Why?", "", ""},
		{"How do I read and write comma-separated values files?", "read|write comma-separated values files", "read comma-separated values files|write comma-separated values files"},
		{"How do I compress and decompress data in gzip format?", "compress|decompress data|gzip format", "compress|decompress data"},
		{"How do I set up encrypted connections with certificates?", "set|encrypted connections|certificates", ""},
		// A word in -s before an object pronoun is the phrase's verb; before
		// an article it may be a plural noun and stays.
		{"The development-process HOWTO sends you to another page about sending patches", "development-process HOWTO|another page|sending patches", ""},
		{"The kernel's top-level README tells you to check a page", "kernel's top-level README|check|page", ""},
		{"How do I format all my source files the standard way?", "format|source files|standard", ""},
	}
	join := func(ps []phrase) string {
		var s []string
		for _, p := range ps {
			s = append(s, p.String())
		}
		return strings.Join(s, "|")
	}
	for _, tt := range tests {
		ps, pairs := keyPhrases(tt.q)
		var sides []phrase
		for _, p := range pairs {
			sides = append(sides, p.a, p.b)
		}
		if join(ps) != tt.phrases || join(sides) != tt.sides {
			t.Errorf("keyPhrases(%q) = %q / sides %q, want %q / %q", tt.q, join(ps), join(sides), tt.phrases, tt.sides)
		}
	}
}

// templateWords are the words of the old planner's section templates and
// of generic research phrasing: none may ever enter a search query.
var templateWords = terms.Set(`background definition definitions key concept concepts understand understanding
history historical evidence example examples document documents documented limitation limitations
trade off offs tradeoff tradeoffs open problem problems mechanism mechanisms component components
main alternative alternatives preferable practice practical practices applied recommended overview
research question task`)

// TestQueriesHaveNoTemplateWords plans questions, researches every task
// and checks each search query: every word comes from the user's
// question, none is a template word.
func TestQueriesHaveNoTemplateWords(t *testing.T) {
	m := New(Options{})
	for _, q := range []string{
		"How does the Go memory model define happens-before?",
		"Compare Raft and Paxos for replicated state machines.",
		"What are the trade-offs of garbage collection?",
		"How were transatlantic telegraph cables laid and repaired?",
		`When should I use "sync.Once" vs init functions?`,
		"Why?",
	} {
		c := generateAs(t, m, purpose.Planner, []llms.MessageContent{human("Question: " + q + "\nMax tasks: 4")})
		var r planReply
		if err := json.Unmarshal([]byte(c.Content), &r); err != nil {
			t.Fatal(err)
		}
		qwords := map[string]bool{}
		for _, w := range terms.Tokens(q) {
			qwords[w] = true
		}
		for _, task := range r.Tasks {
			msg := "Research task: " + task.Title + "\nQuestion: " + task.Question
			if task.Question != q {
				msg += "\nThis task is part of the research on: " + q
			}
			c := generateAs(t, m, purpose.Researcher, []llms.MessageContent{human(msg)}, llms.WithTools(researchTools))
			if len(c.ToolCalls) == 0 {
				t.Errorf("%q / %q: no search", q, task.Question)
			}
			for _, tc := range c.ToolCalls {
				query, _ := argsOf(t, tc)["query"].(string)
				for _, w := range terms.Tokens(query) {
					if templateWords[w] && !qwords[w] {
						t.Errorf("%q / task %q: query %q has the template word %q", q, task.Title, query, w)
					}
					if !qwords[w] {
						t.Errorf("%q / task %q: query %q has %q, not a word of the question", q, task.Title, query, w)
					}
				}
			}
		}
	}
}

func argsOf(t *testing.T, c llms.ToolCall) map[string]any {
	t.Helper()
	var a map[string]any
	if err := json.Unmarshal([]byte(c.FunctionCall.Arguments), &a); err != nil {
		t.Fatalf("tool call %s: arguments %q are not JSON: %v", c.ID, c.FunctionCall.Arguments, err)
	}
	return a
}

func TestResearcher(t *testing.T) {
	m := New(Options{})
	const task = "Research task: Raft\nQuestion: How does the Raft consensus algorithm elect a leader?"
	withTools := llms.WithTools(researchTools)

	// Turn 1: three parallel searches: the question as written, its key
	// phrases, and its strong phrase on its own.
	conv := []llms.MessageContent{sys("researcher"), human(task)}
	c := generate(t, m, conv, withTools)
	if c.StopReason != StopReasonToolCalls || c.Content != "" {
		t.Fatalf("turn 1: stop reason %q content %q", c.StopReason, c.Content)
	}
	if len(c.ToolCalls) != 3 {
		t.Fatalf("turn 1: %d tool calls, want 3", len(c.ToolCalls))
	}
	var queries []string
	for i, tc := range c.ToolCalls {
		if tc.ID != "call_"+strconv.Itoa(i+1) || tc.Type != "function" || tc.FunctionCall.Name != ToolSearch {
			t.Errorf("turn 1 call %d: %+v %+v", i, tc, tc.FunctionCall)
		}
		q, _ := argsOf(t, tc)["query"].(string)
		if lq := strings.ToLower(q); !strings.Contains(lq, "leader") && !strings.Contains(lq, "raft") {
			t.Errorf("query %q misses the task's key terms", q)
		}
		queries = append(queries, q)
	}
	if queries[0] != "How does the Raft consensus algorithm elect a leader" || queries[1] == queries[2] {
		t.Errorf("queries %q", queries)
	}
	if c.FuncCall == nil || c.FuncCall.Name != ToolSearch {
		t.Errorf("FuncCall = %+v, want the first tool call", c.FuncCall)
	}

	// Turn 2: open the best sources, by term matches.
	conv = append(conv, aiCalls(c.ToolCalls...),
		toolMsg("call_1", "search", searchResult1),
		toolMsg("call_2", "search", searchResult2))
	c = generate(t, m, conv, withTools)
	var opened []int
	for _, tc := range c.ToolCalls {
		if tc.FunctionCall.Name != ToolOpen {
			t.Fatalf("turn 2: %s call, want open", tc.FunctionCall.Name)
		}
		n, _ := argsOf(t, tc)["source"].(float64)
		opened = append(opened, int(n))
	}
	if len(opened) == 0 || len(opened) > 2 || opened[0] != 1 {
		t.Fatalf("turn 2 opened %v, want [1] first (it matches most task terms)", opened)
	}
	if c.ToolCalls[0].ID != "call_4" {
		t.Errorf("turn 2 first call ID %q, want call_4 (IDs continue the conversation)", c.ToolCalls[0].ID)
	}

	// Turn 3: done.
	conv = append(conv, aiCalls(c.ToolCalls...))
	for _, tc := range c.ToolCalls {
		conv = append(conv, toolMsg(tc.ID, "open", openResult))
	}
	c = generate(t, m, conv, withTools)
	if len(c.ToolCalls) != 0 || c.Content != ResearchDone || c.StopReason != StopReasonStop {
		t.Fatalf("turn 3: %d tool calls, content %q, stop %q", len(c.ToolCalls), c.Content, c.StopReason)
	}
}

func TestResearcherToolErrors(t *testing.T) {
	m := New(Options{})
	withTools := llms.WithTools(researchTools)
	conv := []llms.MessageContent{sys("researcher"), human("Question: How does the Raft consensus algorithm elect a leader?")}
	c := generate(t, m, conv, withTools)
	conv = append(conv, aiCalls(c.ToolCalls...))
	for _, tc := range c.ToolCalls {
		conv = append(conv, toolMsg(tc.ID, "search", "Error: search failed: index unavailable"))
	}
	// No sources: one broader search, then give up.
	c = generate(t, m, conv, withTools)
	if len(c.ToolCalls) != 1 || c.ToolCalls[0].FunctionCall.Name != ToolSearch {
		t.Fatalf("after failed searches: %+v, want one broader search", c.ToolCalls)
	}
	conv = append(conv, aiCalls(c.ToolCalls...), toolMsg(c.ToolCalls[0].ID, "search", `No results for "raft consensus".`))
	c = generate(t, m, conv, withTools)
	if len(c.ToolCalls) != 0 || c.Content != ResearchDone {
		t.Fatalf("after no results: %+v %q, want to stop", c.ToolCalls, c.Content)
	}

	// The reporter then says it found nothing, citing nothing.
	conv[0] = sys("reporter")
	c = generate(t, m, conv)
	if c.Content != NoEvidence {
		t.Errorf("report without sources = %q", c.Content)
	}
}

var citeRe = regexp.MustCompile(`\[(\d+)\]`)

func TestReporter(t *testing.T) {
	m := New(Options{})
	msgs := reporterConversation()
	c := generate(t, m, msgs)
	if c.StopReason != StopReasonStop || len(c.ToolCalls) != 0 {
		t.Fatalf("reporter: stop %q, %d tool calls", c.StopReason, len(c.ToolCalls))
	}
	report := c.Content
	golden(t, "reporter.golden", report+"\n")

	// Every sentence is cited with the number of a block that holds it.
	blocks := allBlocks(msgs)
	holds := func(n int, sentence string) bool {
		for _, b := range blocks {
			// A passage quoted first under its heading names the heading
			// its block's location gives.
			text := sentence
			if b.heading != "" {
				text = strings.TrimPrefix(text, b.heading+": ")
			}
			if b.num == n && strings.Contains(normalize(cleanSourceText(b.text)), normalize(text)) {
				return true
			}
		}
		return false
	}
	seen := map[string]bool{}
	count := 0
	for _, par := range strings.Split(report, "\n\n") {
		if strings.HasPrefix(par, "```") {
			continue // a command or code block, quoted after the sentence that leads into it
		}
		for _, s := range sentences(par) {
			m := regexp.MustCompile(`^(.*) \[(\d+)\]:?$`).FindStringSubmatch(s)
			if m == nil {
				t.Errorf("sentence %q does not end with one [n] marker", s)
				continue
			}
			n, _ := strconv.Atoi(m[2])
			if n != 1 && n != 2 && n != 3 {
				t.Errorf("cites [%d], which no tool result gave", n)
			}
			if !holds(n, m[1]) {
				t.Errorf("sentence %q is not in source [%d]", m[1], n)
			}
			if seen[normalize(m[1])] {
				t.Errorf("duplicate sentence %q", m[1])
			}
			seen[normalize(m[1])] = true
			count++
		}
	}
	if count < 3 {
		t.Errorf("report has %d sentences, want at least 3:\n%s", count, report)
	}
	if strings.Contains(report, "[7]") || strings.Contains(report, "[9]") {
		t.Errorf("report cites a number printed inside a source or an error:\n%s", report)
	}
	if strings.Contains(report, "func elect") && !strings.Contains(report, "```\nfunc elect() { return }\n```") {
		t.Errorf("report quotes code outside a fenced block:\n%s", report)
	}
	if again := generate(t, m, msgs); again.Content != report {
		t.Errorf("reporter is not deterministic")
	}
}

const writerPrompt = `Question: How does Raft elect a leader, and how does it compare with Paxos?

## Findings

### How Raft elects a leader
Raft uses a heartbeat mechanism to trigger leader election [1]. When servers start up, they begin as followers. [1] A candidate wins an election if it receives votes from a majority of the servers, e.g. three of five [1][4].

Election safety means at most one leader can be elected in a given term [1, 4]. Randomized election timeouts of 150–300 ms make split votes rare [4].

### Paxos compared
Paxos has been regarded as difficult to understand [2]. In fact, it is among the simplest distributed algorithms, per its author [2]. Raft is equivalent to Paxos in fault-tolerance and performance [3].

### Empty section

## Sources
[1] The Raft Consensus Algorithm — file:///docs/raft.md
[2] Paxos Made Simple — file:///docs/paxos.md
[3] Raft paper — https://raft.github.io/raft.pdf
[4] Leader election notes — file:///docs/election.md
`

func TestWriter(t *testing.T) {
	m := New(Options{})
	msgs := []llms.MessageContent{sys("writer"), human(writerPrompt)}
	c := generate(t, m, msgs)
	out := c.Content
	golden(t, "writer.golden", out)

	if !strings.HasPrefix(out, "# How does Raft elect a leader?\n") {
		t.Errorf("title line: %q", strings.SplitN(out, "\n", 2)[0])
	}
	// The first section's passages, one source's run, are the
	// introduction: its heading would stand over nothing.
	for _, h := range []string{"\n## Paxos compared\n", "\n## Empty section\n"} {
		if !strings.Contains(out, h) {
			t.Errorf("missing heading %q", h)
		}
	}
	if strings.Contains(out, "\n## How Raft elects a leader\n") {
		t.Errorf("a section the introduction quotes whole keeps its heading:\n%s", out)
	}
	// Every sentence of the body is a sentence of the findings, markers
	// and all.
	findingsText := strings.Join(strings.Fields(writerPrompt[strings.Index(writerPrompt, "## Findings"):strings.Index(writerPrompt, "## Sources")]), " ")
	for _, par := range paragraphs(out) {
		if par == NoSectionEvidence {
			continue
		}
		for _, s := range sentences(par) {
			if !strings.Contains(findingsText, s) {
				t.Errorf("sentence %q is not in the findings verbatim", s)
			}
		}
	}
	for _, mk := range citeRe.FindAllString(out, -1) {
		if mk != "[1]" && mk != "[2]" && mk != "[3]" && mk != "[4]" {
			t.Errorf("invented marker %s", mk)
		}
	}
	if !strings.Contains(out, "[1, 4]") {
		t.Errorf("marker [1, 4] not carried verbatim:\n%s", out)
	}
}

func TestSentences(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"plain", "One is here. Two is there! Three?", []string{"One is here.", "Two is there!", "Three?"}},
		{"abbreviations", "Use a lock, e.g. a mutex. It works, i.e. safely. Done.", []string{"Use a lock, e.g. a mutex.", "It works, i.e. safely.", "Done."}},
		{"country", "Banks in the U.S. settle daily. Next one.", []string{"Banks in the U.S. settle daily.", "Next one."}},
		{"decimals", "Latency is 2.5 ms. Version 1.21 shipped.", []string{"Latency is 2.5 ms.", "Version 1.21 shipped."}},
		{"identifiers", "Call sync.Mutex now. Then stop.", []string{"Call sync.Mutex now.", "Then stop."}},
		{"initials", "J. Smith wrote it. Others agreed.", []string{"J. Smith wrote it.", "Others agreed."}},
		{"marker after period", "It holds. [3] Next claim [4]. Last. [1][2]", []string{"It holds. [3]", "Next claim [4].", "Last. [1][2]"}},
		{"marker list", "First claim. [1, 2] Second claim.", []string{"First claim. [1, 2]", "Second claim."}},
		{"lowercase continuation", "See Fig. 3 for details. ok fine.", []string{"See Fig. 3 for details. ok fine."}},
		{"quotes", `He said "stop." Then left.`, []string{`He said "stop."`, "Then left."}},
		{"newlines", "One\nline. Two\n lines.", []string{"One line.", "Two lines."}},
		{"hyphenated initial", "The memory model was formalised by Hans-J. Boehm and others. It followed C++11.", []string{"The memory model was formalised by Hans-J. Boehm and others.", "It followed C++11."}},
		{"two initials", "D. E. Knuth wrote TAOCP. It has volumes.", []string{"D. E. Knuth wrote TAOCP.", "It has volumes."}},
		{"e.g. before a name", "Some authors, e.g. Knuth, disagree. Others do not.", []string{"Some authors, e.g. Knuth, disagree.", "Others do not."}},
		{"i.e. before a capital", "One writer at a time, i.e. Lock is exclusive. Next.", []string{"One writer at a time, i.e. Lock is exclusive.", "Next."}},
		{"etc. ends a sentence", "It covers maps, slices, etc. The rest is elsewhere.", []string{"It covers maps, slices, etc.", "The rest is elsewhere."}},
		{"etc. inside a sentence", "Maps, slices, etc. are built in.", []string{"Maps, slices, etc. are built in."}},
		{"U.S. ends a sentence", "It was adopted in the U.S. The U.K. followed.", []string{"It was adopted in the U.S.", "The U.K. followed."}},
		{"U.S. before a name", "The U.S. Congress passed it. Done.", []string{"The U.S. Congress passed it.", "Done."}},
		{"version numbers", "Go 1.21.3 fixed it. Version 2.0 is next. v1.2.3 was last.", []string{"Go 1.21.3 fixed it.", "Version 2.0 is next. v1.2.3 was last."}},
		{"decimal at end", "The ratio is 0.75. Then it drops to 3.5.", []string{"The ratio is 0.75.", "Then it drops to 3.5."}},
		{"abbreviation at end of line", "Fruit includes apples, pears, etc.\nVegetables are separate.", []string{"Fruit includes apples, pears, etc.", "Vegetables are separate."}},
		{"abbreviation at end of text", "See the notes by Dr.", []string{"See the notes by Dr."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := sentences(tt.in)
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("sentences(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestParseBlocks(t *testing.T) {
	blocks := parseBlocks(openResult)
	if len(blocks) != 1 || blocks[0].num != 1 || blocks[0].url != "file:///docs/raft.md" || !strings.Contains(blocks[0].text, "Log replication") {
		t.Fatalf("open result: %+v", blocks)
	}
	blocks = parseBlocks(searchResult1)
	if len(blocks) != 2 || blocks[1].num != 2 || blocks[1].title != "Paxos Made Simple" {
		t.Fatalf("search result: %+v", blocks)
	}
	if b := parseBlocks("Error: there is no source [3]"); len(b) != 0 {
		t.Fatalf("error parsed as %+v", b)
	}
	// A passage an earlier search showed is a block without text: its
	// place in this search counts, its stand-in line is not source text.
	again := "[1] Raft\nURL: file:///docs/raft.md\nLocation: § Leader election\n" + agent.ShownAbove + "\n\n" + searchResult1
	blocks = parseBlocks(again)
	if len(blocks) != 3 || blocks[0].num != 1 || blocks[0].text != "" || blocks[0].heading != "Leader election" || blocks[2].title != "Paxos Made Simple" {
		t.Fatalf("search result with a passage shown above: %+v", blocks)
	}
}

func TestStreaming(t *testing.T) {
	m := New(Options{})
	var chunks []string
	resp, err := m.GenerateContent(context.Background(), reporterConversation(), llms.WithStreamingFunc(func(_ context.Context, b []byte) error {
		chunks = append(chunks, string(b))
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	content := resp.Choices[0].Content
	if len(chunks) < 5 {
		t.Fatalf("got %d chunks, want the report in small pieces", len(chunks))
	}
	if got := strings.Join(chunks, ""); got != content {
		t.Fatalf("chunks concatenate to\n%q\nwant\n%q", got, content)
	}
	for _, c := range chunks {
		if n := len(strings.Fields(c)); n > chunkWords {
			t.Errorf("chunk %q has %d words", c, n)
		}
	}

	// A turn with tool calls never streams.
	called := false
	c := generate(t, m, []llms.MessageContent{sys("researcher"), human("Question: What is Raft?")},
		llms.WithTools(researchTools),
		llms.WithStreamingFunc(func(context.Context, []byte) error { called = true; return nil }))
	if len(c.ToolCalls) == 0 || called {
		t.Errorf("tool-call turn: %d calls, streamed %v", len(c.ToolCalls), called)
	}
}

func TestChunks(t *testing.T) {
	for _, s := range []string{"", "one", "  lead space", "a b c d e f g", "para one.\n\npara two [1]. ", "ünï cödé wörds hère ok"} {
		got := chunks(s, 2)
		if strings.Join(got, "") != s {
			t.Errorf("chunks(%q) = %q", s, got)
		}
	}
}

func TestStreamingFuncError(t *testing.T) {
	stop := errors.New("stop")
	_, err := New(Options{}).GenerateContent(context.Background(), reporterConversation(),
		llms.WithStreamingFunc(func(context.Context, []byte) error { return stop }))
	if !errors.Is(err, stop) {
		t.Fatalf("err = %v, want the StreamingFunc's error", err)
	}
}

func TestCancelMidStream(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	n := 0
	_, err := New(Options{}).GenerateContent(ctx, reporterConversation(),
		llms.WithStreamingFunc(func(context.Context, []byte) error {
			n++
			if n == 2 {
				cancel()
			}
			return nil
		}))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n != 2 {
		t.Errorf("streamed %d chunks, want it to stop after the cancel at 2", n)
	}
}

func TestLatencyHonoursContext(t *testing.T) { synctest.Test(t, testLatencyHonoursContext) }

// testLatencyHonoursContext runs in a synctest bubble: the model's hour of
// latency and the test's 10ms pass on the bubble's clock, not for real.
func testLatencyHonoursContext(t *testing.T) {
	m := New(Options{Latency: time.Hour})
	cause := errors.New("caller gave up")
	ctx, cancel := context.WithCancelCause(context.Background())
	time.AfterFunc(10*time.Millisecond, func() { cancel(cause) })
	// With an hour of latency, only the cancellation can end this call.
	_, err := m.GenerateContent(ctx, reporterConversation())
	if !errors.Is(err, cause) {
		t.Fatalf("err = %v, want the context's cause", err)
	}

	// A context that is already done is refused at once.
	done, cancel2 := context.WithCancel(context.Background())
	cancel2()
	if _, err := New(Options{}).GenerateContent(done, reporterConversation()); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// TestLatencyWaits: a call answers once its latency has passed, on the
// clock of a synctest bubble.
func TestLatencyWaits(t *testing.T) {
	for _, latency := range []time.Duration{0, 250 * time.Millisecond} {
		t.Run(latency.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				c := generate(t, New(Options{Latency: latency}), reporterConversation())
				if c.Content == "" {
					t.Fatal("empty reply")
				}
				if d := time.Since(start); d != latency {
					t.Errorf("answered after %v, want the latency %v", d, latency)
				}
			})
		})
	}
}

func TestUsage(t *testing.T) {
	m := New(Options{})
	msgs := reporterConversation()
	c := generate(t, m, msgs)
	p, _ := c.GenerationInfo["PromptTokens"].(int)
	cp, _ := c.GenerationInfo["CompletionTokens"].(int)
	tot, _ := c.GenerationInfo["TotalTokens"].(int)
	if p <= 0 || cp <= 0 || tot != p+cp {
		t.Fatalf("usage %v", c.GenerationInfo)
	}
	if want := (len(c.Content) + 3) / 4; cp != want {
		t.Errorf("CompletionTokens = %d, want ceil(%d/4) = %d", cp, len(c.Content), want)
	}
}

func TestCall(t *testing.T) {
	out, err := New(Options{}).Call(context.Background(), "Role: planner\nQuestion: How does Raft compare with Paxos?\nMax tasks: 2")
	if err != nil {
		t.Fatal(err)
	}
	var r planReply
	if err := json.Unmarshal([]byte(out), &r); err != nil || len(r.Tasks) != 2 {
		t.Fatalf("Call as planner = %q (%v)", out, err)
	}
	out, err = New(Options{}).Call(context.Background(), "Raft is a consensus algorithm. It elects a leader. The leader replicates the log. Followers accept entries. Terms number elections.")
	if err != nil || out == "" {
		t.Fatalf("Call without role = %q, %v", out, err)
	}
}

func TestConcurrentUse(t *testing.T) {
	m := New(Options{})
	want := generate(t, m, reporterConversation()).Content
	errs := make(chan error, 8)
	for range 8 {
		go func() {
			resp, err := m.GenerateContent(context.Background(), reporterConversation(),
				llms.WithStreamingFunc(func(context.Context, []byte) error { return nil }))
			if err == nil && resp.Choices[0].Content != want {
				err = errors.New("different output under concurrency")
			}
			errs <- err
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}

// TestReporterQuotesOnlyRelevant: a sentence is quoted only when it bears
// on the task; a source about something else contributes nothing, even
// when it is the only other source, and with nothing relevant the report
// says so and cites nothing.
func TestReporterQuotesOnlyRelevant(t *testing.T) {
	const results = `[1] Package sync
URL: file:///docs/sync.md
Location: § Mutex
A Mutex is a mutual exclusion lock. The zero value for a Mutex is an unlocked mutex. If the lock is already in use, the calling goroutine blocks until the mutex is available.

[2] Contest results
URL: file:///docs/contest.md
Location: § Results
The programming contest was held in the spring. The winning team solved nine of the ten problems in five hours. Every team received a certificate from the judges.`
	tests := []struct {
		name, task string
		want       []int // the sources that may be cited
	}{
		{"mutex task", "How does a mutex lock work?", []int{1}},
		{"contest task", "Which team won the programming contest?", []int{2}},
		{"unrelated task", "What is the airspeed velocity of a swallow?", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := []llms.MessageContent{human("Question: " + tt.task), toolMsg("c1", "search", results)}
			out := generateAs(t, New(Options{}), purpose.Reporter, msgs).Content
			if tt.want == nil {
				if out != NoEvidence {
					t.Errorf("report = %q, want %q", out, NoEvidence)
				}
				return
			}
			for _, m := range citeRe.FindAllStringSubmatch(out, -1) {
				n, _ := strconv.Atoi(m[1])
				if !slices.Contains(tt.want, n) {
					t.Errorf("cites [%d], off the task:\n%s", n, out)
				}
			}
			if !strings.Contains(out, "["+strconv.Itoa(tt.want[0])+"]") {
				t.Errorf("does not cite [%d]:\n%s", tt.want[0], out)
			}
		})
	}
}

// TestStageFromContext: the model reads its purpose from the context, and
// without one from the conversation's shape; no Role: line is needed.
func TestStageFromContext(t *testing.T) {
	m := New(Options{})
	planMsg := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeSystem, "You plan research."), human("Question: How does Raft compare with Paxos?\nMax tasks: 3")}
	for name, c := range map[string]*llms.ContentChoice{
		"stage":  generateAs(t, m, purpose.Planner, planMsg),
		"shaped": generate(t, m, planMsg),
	} {
		var r planReply
		if err := json.Unmarshal([]byte(c.Content), &r); err != nil || len(r.Tasks) != 3 {
			t.Errorf("%s: planner reply %q", name, c.Content)
		}
	}
	w := generate(t, m, []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeSystem, "You write reports."), human(writerPrompt)})
	if !strings.HasPrefix(w.Content, "# How does Raft elect a leader?\n") {
		t.Errorf("writer by shape: %q", w.Content)
	}
}

// The top documents of the first search (the question as asked: what a
// plain search hands the user) are quoted where a passage of theirs
// covers the task, even when another source's passages cover more; a
// high-ranked source off the subject is not.
func TestReporterCitesWhatAnswers(t *testing.T) {
	const search1 = `[1] The Raft Consensus Algorithm
URL: file:///docs/raft.md
Location: § Leader election
Raft is a consensus algorithm designed to be easy to understand. Raft elects a leader, e.g. the first server whose election timeout expires, and the leader manages the replicated log.

[2] Leader election in Raft clusters
URL: file:///docs/terms.md
Location: § Terms
A leader serves for one term, and terms are numbered with consecutive integers.

[3] Consensus in the U.S. Financial System
URL: file:///docs/finance.md
Location: § Overview
Banks in the U.S. rely on consensus protocols for settlement, i.e. the final transfer of funds.`
	const search2 = `[1] The Raft Consensus Algorithm
URL: file:///docs/raft.md
Location: § Log replication
Once a leader has been elected, it begins servicing client requests.`
	msgs := []llms.MessageContent{
		sys("reporter"),
		human("Research task: Raft\nQuestion: How does the Raft consensus algorithm elect a leader?"),
		aiCalls(call("call_1", "search", `{"query":"raft consensus algorithm elect leader"}`), call("call_2", "search", `{"query":"raft leader"}`)),
		toolMsg("call_1", "search", search1),
		toolMsg("call_2", "search", search2),
		aiCalls(call("call_3", "open", `{"source":1}`)),
		toolMsg("call_3", "open", openResult),
		human("Write the intermediate report now.\nQuestion: How does the Raft consensus algorithm elect a leader?"),
	}
	report := generate(t, New(Options{}), msgs).Content
	cited := map[string]bool{}
	for _, m := range citeRe.FindAllStringSubmatch(report, -1) {
		cited[m[1]] = true
	}
	if !cited["1"] || !cited["2"] || cited["3"] {
		t.Errorf("report cites %v, want [1] and the first search's [2], not [3]:\n%s", cited, report)
	}
	if !strings.Contains(report, "Raft elects a leader, e.g. the first server whose election timeout expires, and the leader manages the replicated log. [1]") {
		t.Errorf("report does not quote [1]'s answering passage:\n%s", report)
	}
}

// A coordination of two clauses is not split into tasks, each of which
// would hold half a sentence; a coordination of two terms is.
func TestPlannerClauses(t *testing.T) {
	m := New(Options{})
	for _, tt := range []struct {
		q     string
		tasks []string
	}{
		{"How do I run another program and capture what it prints?", nil},
		{"How do I turn a struct into JSON text and read it back?", nil},
		{"How does a program notice Ctrl-C and shut down cleanly?", nil},
		{"How do I generate random bytes that are safe for keys and tokens?", []string{
			"How do I generate random bytes that are safe for keys?",
			"How do I generate random bytes that are safe for tokens?"}},
		{"How do I encode and decode XML documents?", []string{
			"How do I encode XML documents?", "How do I decode XML documents?"}},
	} {
		c := generateAs(t, m, purpose.Planner, []llms.MessageContent{human("Question: " + tt.q + "\nMax tasks: 4")})
		var r planReply
		if err := json.Unmarshal([]byte(c.Content), &r); err != nil {
			t.Fatalf("%q: %v", tt.q, err)
		}
		var got []string
		for _, task := range r.Tasks[1:] {
			got = append(got, task.Question)
		}
		if !slices.Equal(got, tt.tasks) {
			t.Errorf("plan(%q) tasks after the overview = %q, want %q", tt.q, got, tt.tasks)
		}
	}
}

// TestPlannerSubjects: offline tasks are built from the question's
// subjects — names, acronyms, code-like terms, compounds — never from a
// sentence-initial word, a number written as a word, a verb or a noun
// made of a verb and a particle.
func TestPlannerSubjects(t *testing.T) {
	m := New(Options{})
	for _, tt := range []struct {
		q     string
		tasks []string // task questions after the Overview
	}{
		{"According to the docs, which module is loaded first when Two disks fail?", nil},
		{"Where is the write-up of the loaded driver stored?", nil},
		{"How does the Go memory model define happens-before?", []string{"What is Go memory model?", "What is happens-before?"}},
		{"How do spec_ctrl and the PR_SET_SPECULATION_CTRL prctl relate?", []string{"What is spec_ctrl?", "What is PR_SET_SPECULATION_CTRL prctl?"}},
		// A code-like word keeps its underscores.
		{"How do I write a class whose __init__ and __repr__ are generated?", []string{"How do I write a class whose __init__ are generated?", "How do I write a class whose __repr__ are generated?"}},
		// An article opens the second side: it shares no head with the first.
		{"How do I print a value with its field names, or a string with quotes around it?", []string{"What is field names?", "What is string?"}},
		// "between A and B" narrowed to a side would read "between A".
		{"What is the difference between big-endian and little-endian byte order?", []string{"What is big-endian?", "What is little-endian byte order?"}},
		{"When is it valid to convert between pointer types and uintptr?", []string{"What is pointer types?", "What is uintptr?"}},
	} {
		c := generateAs(t, m, purpose.Planner, []llms.MessageContent{human("Question: " + tt.q + "\nMax tasks: 4")})
		var r planReply
		if err := json.Unmarshal([]byte(c.Content), &r); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, task := range r.Tasks[1:] {
			got = append(got, task.Question)
		}
		if !slices.Equal(got, tt.tasks) {
			t.Errorf("%q: tasks %q, want %q", tt.q, got, tt.tasks)
		}
	}
}

// TestWriterRows: a question for the things that match is answered by
// every matching row of the table, each quoted and cited once, under a
// line that counts them, before anything else; another question quotes
// them where its findings have them.
func TestWriterRows(t *testing.T) {
	prompt := func(q string) string {
		return "Question: " + q + `

## Findings

### Overview
Our servers run in three cities. [1] Frankfurt hosts most of them. [1]

name: alpha; city: Frankfurt; role: db [2]

name: charlie; city: Frankfurt; role: cache [3]

name: alpha; city: Frankfurt; role: db [2]

name: echo; city: Frankfurt; role: queue [4]

### Costs
The Frankfurt servers cost more to run than the others. [5]

## Sources
[1] Notes — file:///srv/notes.md
[2] servers.csv — file:///srv/servers.csv
[3] servers.csv — file:///srv/servers.csv
[4] servers.csv — file:///srv/servers.csv
[5] Costs — file:///srv/costs.md
`
	}
	m := New(Options{})
	for _, q := range []string{"Which servers are in Frankfurt?", "How many servers are in Frankfurt?", "List the servers in Frankfurt"} {
		out := generate(t, m, []llms.MessageContent{sys("writer"), human(prompt(q))}).Content
		body := strings.SplitN(out, "\n", 2)[1]
		want := "\n3 matching rows of servers.csv were found:\n\n" +
			"- name: alpha; city: Frankfurt; role: db [2]\n" +
			"- name: charlie; city: Frankfurt; role: cache [3]\n" +
			"- name: echo; city: Frankfurt; role: queue [4]\n"
		if !strings.HasPrefix(body, want) {
			t.Errorf("%s: the report does not open with every matching row once:\n%s", q, out)
		}
		if n := strings.Count(out, "role: db"); n != 1 {
			t.Errorf("%s: row 2 quoted %d times:\n%s", q, n, out)
		}
		if !strings.Contains(out, "Frankfurt hosts most of them. [1]") {
			t.Errorf("%s: the notes are left out:\n%s", q, out)
		}
	}
	out := generate(t, m, []llms.MessageContent{sys("writer"), human(prompt("Why do the Frankfurt servers cost more?"))}).Content
	if body := strings.SplitN(out, "\n", 2)[1]; strings.HasPrefix(body, "\n3 matching rows") || strings.Count(out, "role: db") != 1 {
		t.Errorf("a question that asks for no list opens with the rows, or quotes one twice:\n%s", out)
	}
}

// TestWriterRowsInSection: a table whose rows a section quotes is listed
// once under its count, and none of its rows is quoted again after it.
func TestWriterRowsInSection(t *testing.T) {
	p := `Question: What roles do the Frankfurt servers have?

## Findings

### Overview
The Frankfurt servers have three roles: a database, a cache and a queue. [4]

The Frankfurt servers were moved there in 2021. [5]

### Servers
name: alpha; city: Frankfurt; role: db [1]

name: charlie; city: Frankfurt; role: cache [2]

name: echo; city: Frankfurt; role: queue [3]

## Sources
[1] servers.csv — file:///srv/servers.csv
[2] servers.csv — file:///srv/servers.csv
[3] servers.csv — file:///srv/servers.csv
[4] Notes — file:///srv/notes.md
[5] History — file:///srv/history.md
`
	out := generate(t, New(Options{}), []llms.MessageContent{sys("writer"), human(p)}).Content
	if !strings.Contains(out, "3 matching rows of servers.csv were found:") {
		t.Fatalf("the rows are not listed under their count:\n%s", out)
	}
	for _, row := range []string{"role: db", "role: cache", "role: queue"} {
		if n := strings.Count(out, row); n != 1 {
			t.Errorf("%q quoted %d times:\n%s", row, n, out)
		}
	}
}

// TestWriterRowAfterIntro: a row the introduction quotes on its own is
// not listed again with the rest of its table.
func TestWriterRowAfterIntro(t *testing.T) {
	p := `Question: What is the role of the echo server in Frankfurt?

## Findings

### Overview
Servers are listed in a table. [4]

### Servers
name: alpha; city: Frankfurt; role: db [1]

name: charlie; city: Frankfurt; role: cache [2]

name: echo; city: Frankfurt; role: queue server [3]

## Sources
[1] servers.csv — file:///srv/servers.csv
[2] servers.csv — file:///srv/servers.csv
[3] servers.csv — file:///srv/servers.csv
[4] Notes — file:///srv/notes.md
`
	out := generate(t, New(Options{}), []llms.MessageContent{sys("writer"), human(p)}).Content
	for _, row := range []string{"role: db", "role: cache", "role: queue"} {
		if n := strings.Count(out, row); n != 1 {
			t.Errorf("%q quoted %d times:\n%s", row, n, out)
		}
	}
	if strings.Contains(out, "3 matching rows") {
		t.Errorf("the table counts a row quoted before it:\n%s", out)
	}
}

// TestWriterNoDirectAnswer: a report whose findings hold passages, none
// of which covers the question nor comes from a source named after its
// subject, says so at its top before quoting them; one that answers does
// not.
func TestWriterNoDirectAnswer(t *testing.T) {
	prompt := func(q string) string {
		return "Question: " + q + `

## Findings

### Overview
Execution errors such as attempting to index an array out of bounds trigger a run-time panic. [1] A run-time panic stops the program unless it is recovered. [1]

## Sources
[1] The Go Programming Language Specification — https://go.dev/ref/spec
`
	}
	m := New(Options{})
	out := generate(t, m, []llms.MessageContent{sys("writer"), human(prompt("How do I run my tests with the race detector?"))}).Content
	if body := strings.SplitN(out, "\n", 2)[1]; !strings.HasPrefix(body, "\n"+NoDirectAnswer+"\n") {
		t.Errorf("a report that does not answer does not say so first:\n%s", out)
	}
	if !strings.Contains(out, "run-time panic. [1]") {
		t.Errorf("the closest passages are not quoted:\n%s", out)
	}
	out = generate(t, m, []llms.MessageContent{sys("writer"), human(prompt("What happens on a run-time panic when an index is out of bounds?"))}).Content
	if strings.Contains(out, NoDirectAnswer) {
		t.Errorf("a report that answers says it does not:\n%s", out)
	}
}

// TestWriterQuotesBestOfSection: a section with more passages than it
// quotes keeps those that cover the question best, in findings order —
// not the first ones.
func TestWriterQuotesBestOfSection(t *testing.T) {
	prompt := `Question: How do I convert a datetime between time zones?

## Findings

### Overview
The datetime module supplies classes for manipulating dates and times. [1]

Return local time as an aware datetime object. [2]

Date and time objects may be categorized as aware or naive. [1]

The email package provides utilities for parsing message headers. [2]

A naive object does not contain enough information to locate itself. [1]

Its functions format dates for message headers in several styles. [2]

Every date is stored as a proleptic Gregorian calendar date. [1]

It was added to the package in version 3.3 of the library. [2]

Use astimezone to convert a datetime to another time zone, such as ZoneInfo("America/Los_Angeles"). [3]

## Sources
[1] datetime — file:///doc/datetime.html
[2] email.utils — file:///doc/email.utils.html
[3] zoneinfo — file:///doc/zoneinfo.html
`
	out := generate(t, New(Options{}), []llms.MessageContent{sys("writer"), human(prompt)}).Content
	if !strings.Contains(out, "Use astimezone to convert a datetime to another time zone") {
		t.Errorf("the passage that answers, last in its section, is left out:\n%s", out)
	}
	if strings.Contains(out, "version 3.3 of the library") {
		t.Errorf("a passage that bears on nothing is quoted before the answer:\n%s", out)
	}
}

// A passage drawn from a knowledge-base record opens with the words the
// prompt's "## Knowledge base" list names its collection by, as seed 003's
// answers do; one from a web page does not, and a section written on its
// own does the same.
func TestWriterNamesTheKnowledgeBase(t *testing.T) {
	prompt := "Question: What does the TechBook Air cost, and can I return it?\n\n## Findings\n\n### Price\n" +
		"The TechBook Air costs 999.0 dollars in the catalog listing [2]. Reviewers call the TechBook Air light and quiet [1].\n\n" +
		"### Returns\nA laptop can be returned within 30 days of delivery [3].\n\n" +
		"## Sources\n[1] Review — https://example.org/review\n[2] chroma:catalog/techmart_catalog.csv — chroma:catalog/techmart_catalog.csv\n" +
		"[3] chroma:faq/techmart_faq.csv — chroma:faq/techmart_faq.csv\n\n" +
		"## Knowledge base\n[2] According to our product catalog\n[3] According to our FAQ\n"
	m := New(Options{})
	out := generate(t, m, []llms.MessageContent{sys("writer"), human(prompt)}).Content
	for _, want := range []string{
		"According to our product catalog, the TechBook Air costs 999.0 dollars in the catalog listing [2].",
		"According to our FAQ, a laptop can be returned within 30 days of delivery [3].",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report has no %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "our product catalog, Reviewers") || strings.Count(out, "According to") != 2 {
		t.Errorf("a web page's passage is attributed to the knowledge base:\n%s", out)
	}
	sec := "Question: What does the TechBook Air cost?\nSection: Returns\n\n## Findings\n\n### Returns\n" +
		"A laptop can be returned within 30 days of delivery [3].\n\n## Sources\n[3] chroma:faq/techmart_faq.csv — chroma:faq/techmart_faq.csv\n\n" +
		"## Knowledge base\n[3] According to our FAQ\n"
	if out := generate(t, m, []llms.MessageContent{sys("section"), human(sec)}).Content; !strings.HasPrefix(out, "According to our FAQ, a laptop") {
		t.Errorf("section: %q", out)
	}
}

// TestWeightedTermsExampleNumbers: a number quoted as an example value
// weighs less than the question's other terms; an unquoted one does not.
func TestWeightedTermsExampleNumbers(t *testing.T) {
	w := weightedTerms(`How do I convert a string like "42" to an int?`, "")
	if w["42"] != exampleWeight || w[terms.Stem("string")] <= exampleWeight {
		t.Errorf("weights %v: want \"42\" at %v, the other terms above it", w, exampleWeight)
	}
	if w := weightedTerms("What changed in RFC 8446?", ""); w["8446"] <= exampleWeight {
		t.Errorf("weights %v: an unquoted number is no example", w)
	}
}

// TestResearcherOpensTheQuestionsTopDocument: the open turn opens the top
// document of the search of the question as asked first — its opening (a
// package's overview) is what a reader of a plain search reads, though its
// snippet shares few of the task's words — and then the source whose
// results match the task best.
func TestResearcherOpensTheQuestionsTopDocument(t *testing.T) {
	m := New(Options{})
	conv := []llms.MessageContent{sys("researcher"), human("Research task: stopping work\nQuestion: How do I tell a goroutine to stop its work when the result is no longer needed?"),
		aiCalls(call("call_1", "search", `{"query":"How do I tell a goroutine to stop its work when the result is no longer needed"}`),
			call("call_2", "search", `{"query":"goroutine stop work result"}`)),
		toolMsg("call_1", "search", "[1] Package context (context)\nURL: https://pkg.go.dev/context\nLocation: type CancelFunc\nA CancelFunc tells an operation to abandon its task.\n\n"+
			"[2] Package time (time)\nURL: https://pkg.go.dev/time\nLocation: func Sleep\nSleep pauses the current goroutine.\n"),
		toolMsg("call_2", "search", "[3] Package sync (sync)\nURL: https://pkg.go.dev/sync\nLocation: type WaitGroup\nA goroutine that has no more work to do can stop and tell the others its result is no longer needed.\n"),
	}
	c := generate(t, m, conv, llms.WithTools(researchTools))
	var opened []int
	for _, tc := range c.ToolCalls {
		if tc.FunctionCall.Name != ToolOpen {
			t.Fatalf("%s call, want open", tc.FunctionCall.Name)
		}
		n, _ := argsOf(t, tc)["source"].(float64)
		opened = append(opened, int(n))
	}
	if fmt.Sprint(opened) != "[1 3]" {
		t.Errorf("opened %v, want [1 3]: the question's top document, then the best match", opened)
	}
}

// TestResearcherOpensTheBestCoveredSource: a source whose results cover
// more of the question than any other's is opened besides the question's
// top document and the best by rank and coverage, however low its
// searches ranked it.
func TestResearcherOpensTheBestCoveredSource(t *testing.T) {
	conv := []llms.MessageContent{sys("researcher"), human("Research task: strings\nQuestion: How do I build up a long string efficiently, piece by piece?"),
		aiCalls(call("call_1", "search", `{"query":"How do I build up a long string efficiently, piece by piece"}`),
			call("call_2", "search", `{"query":"long string piece"}`)),
		toolMsg("call_1", "search", "[1] Package textproto (net/textproto)\nURL: https://pkg.go.dev/net/textproto\nLocation: func ReadContinuedLine\nReadContinuedLine reads a possibly long line, piece by piece.\n\n"+
			"[2] Package flate (compress/flate)\nURL: https://pkg.go.dev/compress/flate\nLocation: func Write\nWrite writes data piece by piece, in long runs.\n"),
		toolMsg("call_2", "search", "[2] Package flate (compress/flate)\nURL: https://pkg.go.dev/compress/flate\nLocation: func Write\nWrite writes data piece by piece, in long runs.\n\n"+
			"[1] Package textproto (net/textproto)\nURL: https://pkg.go.dev/net/textproto\nLocation: func ReadContinuedLine\nReadContinuedLine reads a possibly long line, piece by piece.\n\n"+
			"[5] Package strings (strings)\nURL: https://pkg.go.dev/strings\nLocation: type Builder\nA Builder is used to efficiently build a string using Builder.Write methods.\n"),
	}
	c := generate(t, New(Options{}), conv, llms.WithTools(researchTools))
	var opened []int
	for _, tc := range c.ToolCalls {
		n, _ := argsOf(t, tc)["source"].(float64)
		opened = append(opened, int(n))
	}
	if fmt.Sprint(opened) != "[1 2 5]" {
		t.Errorf("opened %v, want [1 2 5]: the top document, the best by rank and coverage, and the best covered", opened)
	}
}

// TestWriterOpensASectionWithACitedSource: once a report cites its four
// sources, a section whose best passage is of a fifth opens with one
// nearly as good of a source already cited, so the report does not pad its
// citations; a section's own subject's source (a side of a comparison,
// "thread" for "Thread") is cited however many the report has.
func TestWriterOpensASectionWithACitedSource(t *testing.T) {
	prompt := func(fifth string) string { return processThreadPrompt(fifth, "share its memory") }
	out := generate(t, New(Options{}), []llms.MessageContent{sys("writer"), human(prompt("scheduler"))}).Content
	if strings.Contains(out, "[5]") || !strings.Contains(out, "Threads of a process share its memory") {
		t.Errorf("the section cites a fifth source where a cited one has a passage nearly as good:\n%s", out)
	}
	out = generate(t, New(Options{}), []llms.MessageContent{sys("writer"), human(prompt("thread"))}).Content
	if !strings.Contains(out, "A thread is the unit of execution a process schedules") {
		t.Errorf("the section's own subject's source is left out:\n%s", out)
	}
}

// processThreadPrompt is a writer's prompt for "How do a process and a
// thread differ?": four sources cited in the Process section, and in the
// Thread section a fifth's passage (its source titled fifth) before one of
// the first source's, whose threads "… <share>, while each process has its
// own".
func processThreadPrompt(fifth, share string) string {
	return `Question: How do a process and a thread differ?

## Findings

### Process
A process is a program in execution with its own address space, unlike a thread. [1]

Each process has a process identifier and a parent process. [2]

A process may hold several threads, each thread sharing its memory. [3]

Creating a process copies its parent's memory; creating a thread shares it. [4]

### Thread
A thread is the unit of execution a process schedules, and a process holds one thread at least. [5]

Threads of a process ` + share + `, while each process has its own. [1]

## Sources
[1] process — file:///doc/process.txt
[2] process identifier — file:///doc/pid.txt
[3] multithreading — file:///doc/multithreading.txt
[4] fork — file:///doc/fork.txt
[5] ` + fifth + ` — file:///doc/fifth.txt
`
}
