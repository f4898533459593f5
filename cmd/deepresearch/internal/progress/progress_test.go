package progress

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/events"
	goldenfile "github.com/deepresearch/deepresearch/internal/golden"
	"github.com/deepresearch/deepresearch/internal/usage"
	"github.com/deepresearch/deepresearch/source"
)

// screen is a minimal terminal: it interprets exactly the output Progress
// may produce (printable text, CR, LF as CR LF, cursor up, erase line,
// erase below) and fails the test on anything else.
type screen struct {
	t        *testing.T
	rows     [][]rune
	row, col int
	writes   int
}

func (s *screen) Write(p []byte) (int, error) {
	s.writes++
	rs := []rune(string(p))
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; {
		case r == '\r':
			s.col = 0
		case r == '\n':
			s.row++
			s.col = 0
		case r == '\x1b':
			if i+1 >= len(rs) || rs[i+1] != '[' {
				s.t.Fatalf("bare escape in %q", p)
			}
			j := i + 2
			for j < len(rs) && rs[j] >= '0' && rs[j] <= '9' {
				j++
			}
			if j >= len(rs) {
				s.t.Fatalf("unterminated escape in %q", p)
			}
			n, _ := strconv.Atoi(string(rs[i+2 : j]))
			s.escape(n, rs[j], string(rs[i:j+1]))
			i = j
		case r < ' ' || r == 0x7f || (r >= 0x80 && r < 0xa0):
			s.t.Fatalf("control character %U in output %q", r, p)
		default:
			s.put(r)
		}
	}
	return len(p), nil
}

func (s *screen) line() []rune {
	for len(s.rows) <= s.row {
		s.rows = append(s.rows, nil)
	}
	return s.rows[s.row]
}

func (s *screen) put(r rune) {
	l := s.line()
	for len(l) < s.col {
		l = append(l, ' ')
	}
	if s.col < len(l) {
		l[s.col] = r
	} else {
		l = append(l, r)
	}
	s.rows[s.row] = l
	s.col++
}

func (s *screen) escape(n int, final rune, seq string) {
	switch {
	case final == 'A':
		s.row = max(s.row-max(n, 1), 0)
	case final == 'K' && n == 2:
		s.line()
		s.rows[s.row] = nil
	case final == 'J' && n == 0:
		l := s.line()
		s.rows[s.row] = l[:min(s.col, len(l))]
		s.rows = s.rows[:s.row+1]
	default:
		s.t.Fatalf("unexpected escape sequence %q", seq)
	}
}

func (s *screen) String() string {
	var b strings.Builder
	for _, l := range s.rows {
		b.WriteString(strings.TrimRight(string(l), " "))
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}

// script emits events at chosen times after t0.
type script struct {
	clock *clock.Fake
	em    *events.Emitter
}

func newScript(sinks ...events.Sink) *script {
	s := &script{clock: clock.NewFake(t0)}
	s.em = events.NewEmitter("run", s.clock, sinks...)
	return s
}

func (s *script) emit(ms, agent int, section string, p events.Payload) {
	s.clock.Advance(t0.Add(time.Duration(ms) * time.Millisecond).Sub(s.clock.Now()))
	s.em.Emit(agent, section, p)
}

// step is one event of a scripted run.
type step struct {
	ms      int
	agent   int
	section string
	data    events.Payload
}

const longTitle = "Economics & Finance of the Atlantic Telegraph Company"

var tasks = []events.PlanTask{
	{Index: 0, ID: "t1", Title: "History", Question: "When was it laid?"},
	{Index: 1, ID: "t2", Title: "People", Question: "Who laid it?"},
	{Index: 2, ID: "t3", Title: longTitle, Question: "Who paid?"},
}

// runSteps is a whole run: three agents, one of which times out, a merge,
// a report and the totals.
var runSteps = []step{
	{0, -1, "", events.RunStartedData{Question: "Who laid the first transatlantic telegraph cable, and why did it fail so soon?"}},
	{5, -1, "", events.PlanData{Tasks: tasks}},
	{10, 0, "History", events.AgentStartedData{Task: tasks[0]}},
	{11, 1, "People", events.AgentStartedData{Task: tasks[1]}},
	{12, 2, longTitle, events.AgentStartedData{Task: tasks[2]}},
	{20, 0, "History", events.SearchData{Query: "telegraph cable 1858", Results: 5}},
	{21, 0, "History", events.SourceData{Number: 1, Source: src}},
	{22, 0, "History", events.SourceData{Number: 2, Source: src}},
	{70, 1, "People", events.SearchData{Query: "Cyrus West Field \x1b[2J biography\nand the Atlantic Telegraph Company board", Results: 3}},
	{80, 1, "People", events.SourceData{Number: 1, Source: src}},
	{150, 0, "History", events.DeltaData{Text: "In 1858 [1]"}},
	{160, 2, longTitle, events.AgentFailedData{Error: "context deadline exceeded", Kind: events.FailTimeout}},
	{200, 0, "History", events.CitedData{Sources: []events.CitedSource{{Number: 1, Source: src}, {Number: 2, Source: src}}}},
	{210, 0, "History", events.AgentFinishedData{ToolCalls: 2, Cited: 2, DurationMS: 4200}},
	{300, 1, "People", events.DeltaData{Text: "Field [1]"}},
	{320, 1, "People", events.AgentFinishedData{ToolCalls: 1, Cited: 1, DurationMS: 310}},
	{330, -1, "", events.MergedData{Sources: make([]events.MergedSource, 3), Unknown: 1}},
	{340, -1, "", events.ReportDeltaData{Text: "# Report"}},
	{345, -1, "", events.CitationData{Number: 1, Source: src}},
	{350, -1, "", events.CitationData{Number: 2, Source: src}},
	{400, -1, "", events.ReportDeltaData{Text: "more"}},
	{410, -1, "", events.ReportFinishedData{References: make([]events.Reference, 2)}},
	{420, -1, "", events.RunFinishedData{DurationMS: 420, Agents: 3, AgentsFailed: 1, Sources: 3, Citations: 2, Usage: usage.Usage{PromptTokens: 900, CompletionTokens: 300, Calls: 5}}},
	{500, -1, "", events.ErrorData{Error: "ignored after the end", Stage: events.StageReport}},
}

// TestProgressTTY replays a run and records the screen after every event
// that redrew it.
func TestProgressTTY(t *testing.T) {
	const width = 72
	scr := &screen{t: t}
	p := New(scr, Options{TTY: true, Width: width})
	s := newScript(p)
	var log strings.Builder
	for _, st := range runSteps {
		before := scr.writes
		s.emit(st.ms, st.agent, st.section, st.data)
		if scr.writes == before {
			fmt.Fprintf(&log, "-- +%dms %s: not drawn\n", st.ms, st.data.EventType())
			continue
		}
		fmt.Fprintf(&log, "-- +%dms %s:\n%s\n", st.ms, st.data.EventType(), scr)
		for i, row := range scr.rows {
			if _, final := st.data.(events.RunFinishedData); final && i == len(scr.rows)-1 {
				continue // the final summary may wrap
			}
			if w := displayWidth(string(row)); w > width-1 {
				t.Errorf("after +%dms, row %d is %d columns wide: %q", st.ms, i, w, string(row))
			}
		}
		if scr.row != len(scr.rows) || scr.col != 0 {
			t.Errorf("after +%dms, cursor at %d,%d, want start of row %d", st.ms, scr.row, scr.col, len(scr.rows))
		}
	}
	golden(t, "progress_tty.golden", log.String())
}

func TestProgressQuiet(t *testing.T) {
	var b strings.Builder
	s := newScript(New(&b, Options{Width: 20}))
	for _, st := range runSteps {
		s.emit(st.ms, st.agent, st.section, st.data)
	}
	want := "deepresearch: agent [3] Economics & Finance of the Atlantic Telegraph Company failed: timeout\n" +
		"deepresearch: done in 420ms · 3 agents (1 failed) · 3 sources · 2 citations · 1200 tokens\n"
	if b.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestProgressThrottle checks that high-rate events redraw at most once
// per interval of event time, that shape-changing events redraw at once,
// and that Flush draws what the throttle held back.
func TestProgressThrottle(t *testing.T) {
	scr := &screen{t: t}
	p := New(scr, Options{TTY: true})
	s := newScript(p)
	s.emit(0, 0, "A", events.AgentStartedData{Task: events.PlanTask{Index: 0, Title: "A"}}) // draws
	for ms := 1; ms <= 200; ms++ {
		s.emit(ms, 0, "A", events.SourceData{Number: ms}) // draws at 50, 100, 150, 200
	}
	if got, want := scr.writes, 5; got != want {
		t.Errorf("%d draws after 200 sources in 200ms, want %d", got, want)
	}
	s.emit(201, 0, "A", events.SearchData{Query: "q"})
	if scr.writes != 5 {
		t.Errorf("throttled event drew")
	}
	p.Flush()
	if scr.writes != 6 || !strings.Contains(scr.String(), `searching "q" · 200 sources · 1 search`) {
		t.Errorf("Flush did not draw the held-back state:\n%s", scr)
	}
	p.Flush()
	if scr.writes != 6 {
		t.Errorf("Flush drew an unchanged state")
	}
	s.emit(202, 0, "A", events.AgentFailedData{Error: "boom", Kind: events.FailPanic})
	if scr.writes != 7 || !strings.Contains(scr.String(), "✗ failed: panic: boom") {
		t.Errorf("failure not drawn at once:\n%s", scr)
	}
}

// TestProgressWidth checks that wide characters, combining marks and
// narrow terminals never make a line wrap.
func TestProgressWidth(t *testing.T) {
	for _, width := range []int{1, 2, 10, 31} {
		t.Run(strconv.Itoa(width), func(t *testing.T) {
			scr := &screen{t: t}
			s := newScript(New(scr, Options{TTY: true, Width: width}))
			s.emit(0, -1, "", events.RunStartedData{Question: "電信ケーブルを敷設したのは誰ですか 🚀 e\u0301tude"})
			s.emit(1, -1, "", events.PlanData{Tasks: []events.PlanTask{{Index: 0, Title: "歴史と経済の背景について"}, {Index: 11, Title: "x"}}})
			s.emit(2, 11, "x", events.SearchData{Query: "ｆｕｌｌｗｉｄｔｈ"})
			for i, row := range scr.rows {
				if w := displayWidth(string(row)); w > max(width-1, 0) {
					t.Errorf("row %d is %d columns wide: %q", i, w, string(row))
				}
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 5, "hello"},
		{"hello", 4, "hel…"},
		{"hello", 1, "…"},
		{"hello", 0, ""},
		{"日本語", 6, "日本語"},
		{"日本語", 5, "日本…"},
		{"日本語", 4, "日…"},
		{"e\u0301e\u0301e\u0301", 3, "e\u0301e\u0301e\u0301"},
		{"e\u0301e\u0301e\u0301", 2, "e\u0301…"},
	} {
		if got := truncate(tc.in, tc.n); got != tc.want {
			t.Errorf("truncate(%q, %d) = %q, want %q", tc.in, tc.n, got, tc.want)
		}
	}
}

func TestClean(t *testing.T) {
	if got, want := clean("a\nb\tc\x1b[2Jd\u2028e\u0085f"), "a b c [2Jd e f"; got != want {
		t.Errorf("clean = %q, want %q", got, want)
	}
}

func golden(t *testing.T, name, got string) { t.Helper(); goldenfile.Check(t, name, got) }

func TestProgressRunError(t *testing.T) {
	scr := &screen{t: t}
	s := newScript(New(scr, Options{TTY: true}))
	s.emit(0, -1, "", events.RunStartedData{Question: "q"})
	s.emit(1, -1, "", events.ErrorData{Error: "planner: no\ntasks", Stage: events.StagePlan})
	s.emit(2, -1, "", events.RunFinishedData{DurationMS: 2})
	want := "deepresearch · q\n✗ plan failed: planner: no tasks\n✗ done in 2ms · 0 agents · 0 sources · 0 citations · 0 tokens"
	if scr.String() != want {
		t.Errorf("got:\n%s\nwant:\n%s", scr, want)
	}
}

var (
	t0  = time.Date(2025, 1, 2, 15, 4, 5, 123456789, time.UTC)
	src = source.Source{ID: "doc/go1.html", URL: "https://go.dev/doc/go1", Title: "Go 1 & <you>", Channel: "corpus"}
)

// BenchmarkProgressDelta measures the live display absorbing a text delta
// that the throttle holds back (the common case).
func BenchmarkProgressDelta(b *testing.B) {
	pr := New(io.Discard, Options{TTY: true})
	e := events.Event{Time: t0, Type: events.AgentDelta, Agent: 0, Section: "History", Data: events.DeltaData{Text: "token"}}
	pr.Event(e)
	b.ReportAllocs()
	for b.Loop() {
		pr.Event(e)
	}
}

// TestProgressCycles replays a run of two cycles: the agents are grouped
// by cycle, each cycle line says what it closes and what its assessment
// decided, and the summary counts the cycles.
func TestProgressCycles(t *testing.T) {
	follow := events.PlanTask{Index: 2, ID: "t3", Title: "Cyrus Field", Question: "Who was Cyrus Field?", Cycle: 2, Part: "t2", Gap: "reference: Cyrus Field"}
	type cstep struct {
		step
		cycle int
	}
	steps := []cstep{
		{step{0, -1, "", events.RunStartedData{Question: "Who laid the first transatlantic telegraph cable?"}}, 0},
		{step{5, -1, "", events.PlanData{Tasks: tasks[:2]}}, 0},
		{step{6, -1, "", events.CycleStartedData{Cycle: 1, Tasks: tasks[:2]}}, 1},
		{step{10, 0, "History", events.AgentStartedData{Task: tasks[0]}}, 1},
		{step{11, 1, "People", events.AgentStartedData{Task: tasks[1]}}, 1},
		{step{210, 0, "History", events.AgentFinishedData{ToolCalls: 2, Cited: 2, DurationMS: 200}}, 1},
		{step{320, 1, "People", events.AgentFinishedData{ToolCalls: 1, Cited: 1, DurationMS: 310}}, 1},
		{step{330, -1, "", events.MergedData{Sources: make([]events.MergedSource, 3)}}, 1},
		{step{340, -1, "", events.AssessedData{Cycle: 1, Gaps: []events.Gap{{Kind: events.GapReference, Detail: "Cyrus Field"}}, Decision: events.LoopContinue}}, 1},
		{step{341, -1, "", events.CycleStartedData{Cycle: 2, Tasks: []events.PlanTask{follow}}}, 2},
		{step{350, 2, "Cyrus Field", events.AgentStartedData{Task: follow}}, 2},
		{step{360, 2, "Cyrus Field", events.AgentFinishedData{ToolCalls: 1, Cited: 1, DurationMS: 10}}, 2},
		{step{370, -1, "", events.MergedData{Sources: make([]events.MergedSource, 4)}}, 2},
		{step{380, -1, "", events.AssessedData{Cycle: 2, Done: true, Decision: events.LoopAnswered}}, 2},
		{step{410, -1, "", events.ReportFinishedData{References: make([]events.Reference, 4)}}, 0},
		{step{420, -1, "", events.RunFinishedData{DurationMS: 420, Agents: 3, Sources: 4, Citations: 4, Cycles: 2, LoopEnd: events.LoopAnswered}}, 0},
	}
	scr := &screen{t: t}
	var quiet strings.Builder
	live, s := newScript(New(scr, Options{TTY: true, Width: 80})), newScript(New(&quiet, Options{}))
	var log strings.Builder
	for _, st := range steps {
		for _, sc := range []*script{live, s} {
			sc.clock.Advance(t0.Add(time.Duration(st.ms) * time.Millisecond).Sub(sc.clock.Now()))
			sc.em.InCycle(st.cycle).Emit(st.agent, st.section, st.data)
		}
		fmt.Fprintf(&log, "-- +%dms %s:\n%s\n", st.ms, st.data.EventType(), scr)
	}
	golden(t, "progress_cycles.golden", log.String())
	want := "deepresearch: cycle 2: 1 follow-up\n" +
		"deepresearch: done in 420ms · 2 cycles (answered) · 3 agents · 4 sources · 4 citations · 0 tokens\n"
	if quiet.String() != want {
		t.Errorf("quiet:\n%s\nwant:\n%s", quiet.String(), want)
	}
}
