// Package progress draws a run's events on a terminal as the CLI's live
// progress display: one line per research agent, cycle headers, the
// writer's and the verifier's stages. It reads only the event vocabulary
// (package events) and writes text a terminal does not act on.
package progress

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/deepresearch/deepresearch/events"
	"golang.org/x/text/width"
)

// Options configures a Progress display.
type Options struct {
	// TTY selects the live display. When true, Progress keeps a block of
	// lines (a header with the question, one line per agent, a footer for
	// the merge and report stages) and redraws it in place with ANSI
	// cursor movement. When false, Progress is quiet: it writes one plain
	// line per agent failure and the one-line summary at the end.
	TTY bool
	// Width is the terminal width in columns; live lines are cut to fit
	// in Width-1 columns so that the terminal never wraps them, except the
	// final summary, which is never redrawn. Zero means 80. Quiet lines are
	// never cut.
	Width int
}

// progressInterval is the least time between two redraws caused by
// high-rate events (searches, sources, text deltas, citations).
const progressInterval = 50 * time.Millisecond

// Progress is an events.Sink that shows a run to a person, normally on stderr. It
// is safe for concurrent use and starts no goroutines. Once a run has a
// second research cycle, the agents are grouped under a line per cycle
// that says which gaps it closes and what its assessment decided.
//
// The live display redraws at most once per 50ms of event time for
// high-rate events, and at once for the events that change the shape of the
// run (start, plan, cycle start, agent start, finish and failure, merge,
// assessment, report end, run end, errors), so the state after
// events.RunFinished is always drawn. Time is read
// from the events, never from a clock, so the output depends only on the
// events. The block assumes nothing else writes to the terminal while it is
// live and that it fits the terminal's height.
//
// Write errors are ignored: progress is best effort.
type Progress struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	width int

	question   string
	agents     map[int]*agentProgress
	cycles     map[int]*cycleProgress // by cycle number, from 1
	cycle      int                    // the cycle under way
	phase      phase
	merged     int    // sources in the merged numbering
	unknown    int    // citations the merge dropped
	citing     int    // citations the report made so far
	references int    // entries of the report's reference list
	errLine    string // the last run-level error, if any
	summary    string // set by events.RunFinished
	finished   bool

	drawn    int // lines of the block now on screen
	lastDraw time.Time
	dirty    bool // state changed since the last draw
}

// phase is the stage of the run the footer describes.
type phase int

const (
	phaseStart phase = iota
	phasePlan
	phaseResearch
	phaseMerged
	phaseAssessed
	phaseReport
	phaseReported
)

type agentState int

const (
	agentWaiting agentState = iota
	agentRunning
	agentDone
	agentFailed
)

// cycleProgress is one research cycle: what its follow-ups close, and
// what its assessment decided.
type cycleProgress struct {
	closes   []string // the gaps its tasks close
	assessed string   // the assessment's verdict, once made
}

type agentProgress struct {
	cycle    int // the research cycle it runs in (0: unknown)
	title    string
	state    agentState
	activity string // what a running agent does now
	searches int
	sources  int
	done     events.AgentFinishedData
	failure  string
}

// New returns a Progress writing to w.
func New(w io.Writer, opts Options) *Progress {
	if opts.Width <= 0 {
		opts.Width = 80
	}
	return &Progress{
		w:      w,
		tty:    opts.TTY,
		width:  opts.Width,
		agents: make(map[int]*agentProgress),
		cycles: make(map[int]*cycleProgress),
	}
}

// events.Event updates the display with e. Events after events.RunFinished are ignored.
func (p *Progress) Event(e events.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.finished {
		return
	}
	now := p.apply(e)
	if !p.tty {
		return
	}
	p.dirty = true
	if now || p.lastDraw.IsZero() || e.Time.Sub(p.lastDraw) >= progressInterval {
		p.draw()
		p.lastDraw = e.Time
	}
}

// Flush draws the state of the last events if the throttle held it back.
// A run that ends with events.RunFinished needs no Flush.
func (p *Progress) Flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.dirty {
		p.draw()
	}
}

// agent returns the state of the agent at plan index i, creating it.
func (p *Progress) agent(i int, section string) *agentProgress {
	a := p.agents[i]
	if a == nil {
		a = &agentProgress{}
		p.agents[i] = a
	}
	if a.title == "" {
		a.title = section
	}
	return a
}

// working returns the state of the agent that emitted e, marked running
// if no events.AgentStarted was seen for it.
func (p *Progress) working(e events.Event) *agentProgress {
	a := p.agent(e.Agent, e.Section)
	if a.state == agentWaiting {
		a.state = agentRunning
	}
	return a
}

// apply folds e into the state, writes what quiet mode shows, and reports
// whether the event must be drawn at once.
func (p *Progress) apply(e events.Event) (now bool) {
	if e.Agent < 0 {
		switch e.Type {
		case events.AgentStarted, events.SearchIssued, events.SourceFound, events.AgentDelta, events.AgentCited, events.AgentFinished, events.AgentFailed:
			return false // an agent event without an agent: nothing to show
		}
	}
	switch d := e.Data.(type) {
	case events.RunStartedData:
		p.question = d.Question
		p.phase = phasePlan
		return true
	case events.PlanData:
		for _, t := range d.Tasks {
			if t.Index >= 0 {
				p.agent(t.Index, t.Title)
			}
		}
		p.phase = phaseResearch
		return true
	case events.CycleStartedData:
		c := &cycleProgress{}
		for _, t := range d.Tasks {
			if t.Gap != "" {
				c.closes = append(c.closes, clean(t.Gap))
			}
			if t.Index >= 0 {
				p.agent(t.Index, t.Title).cycle = d.Cycle
			}
		}
		p.cycles[d.Cycle], p.cycle = c, d.Cycle
		p.phase = phaseResearch
		if !p.tty && d.Cycle > 1 {
			fmt.Fprintf(p.w, "deepresearch: cycle %d: %s\n", d.Cycle, plural(len(d.Tasks), "follow-up"))
		}
		return true
	case events.AssessedData:
		if c := p.cycles[d.Cycle]; c != nil {
			c.assessed = assessed(d)
		}
		p.phase = phaseAssessed
		return true
	case events.AgentStartedData:
		a := p.agent(e.Agent, cmp.Or(d.Task.Title, e.Section))
		if e.Cycle > 0 {
			a.cycle = e.Cycle
		}
		a.state = agentRunning
		a.activity = "starting"
		p.phase = max(p.phase, phaseResearch)
		return true
	case events.SearchData:
		a := p.working(e)
		a.searches++
		a.activity = "searching " + quote(truncate(clean(d.Query), 32))
	case events.SourceData:
		p.working(e).sources++
	case events.DeltaData:
		p.working(e).activity = "writing"
	case events.CitedData:
		p.agent(e.Agent, e.Section).done.Cited = len(d.Sources)
	case events.AgentFinishedData:
		a := p.agent(e.Agent, e.Section)
		a.state = agentDone
		a.done = d
		return true
	case events.AgentFailedData:
		a := p.agent(e.Agent, e.Section)
		a.state = agentFailed
		a.failure = failure(d)
		if !p.tty {
			who := fmt.Sprintf("agent [%d]", e.Agent+1)
			if a.title != "" {
				who += " " + clean(a.title)
			}
			fmt.Fprintf(p.w, "deepresearch: %s failed: %s\n", who, a.failure)
		}
		return true
	case events.MergedData:
		p.phase = phaseMerged
		p.merged, p.unknown = len(d.Sources), d.Unknown
		return true
	case events.ReportDeltaData:
		p.phase = max(p.phase, phaseReport)
	case events.CitationData:
		p.phase = max(p.phase, phaseReport)
		p.citing++
	case events.ReportFinishedData:
		p.phase = phaseReported
		p.references = len(d.References)
		return true
	case events.ErrorData:
		p.errLine = "✗ " + clean(string(d.Stage)) + " failed: " + clean(d.Error)
		return true
	case events.RunFinishedData:
		p.summary = summary(d)
		p.finished = true
		if !p.tty {
			fmt.Fprintf(p.w, "deepresearch: %s\n", p.summary)
		}
		return true
	}
	return false
}

// draw writes the block, replacing the one on screen.
func (p *Progress) draw() {
	lines := p.lines()
	var b strings.Builder
	if p.drawn > 0 {
		fmt.Fprintf(&b, "\r\x1b[%dA", p.drawn)
	}
	for i, l := range lines {
		if !p.finished || i < len(lines)-1 {
			l = truncate(l, p.width-1)
		} // else: the final summary is never redrawn, so it may wrap
		b.WriteString("\r\x1b[2K")
		b.WriteString(l)
		b.WriteByte('\n')
	}
	if len(lines) < p.drawn {
		b.WriteString("\x1b[J") // clear what the longer block left below
	}
	_, _ = io.WriteString(p.w, b.String())
	p.drawn = len(lines)
	p.dirty = false
}

// lines renders the block, uncut.
func (p *Progress) lines() []string {
	head := "deepresearch"
	if p.question != "" {
		head += " · " + clean(p.question)
	}
	lines := []string{head}

	idx := slices.Sorted(maps.Keys(p.agents))
	labelW, titleW := 0, 0
	for _, i := range idx {
		labelW = max(labelW, len(fmt.Sprint(i+1))+2)
		titleW = max(titleW, min(displayWidth(clean(p.agents[i].title)), 20))
	}
	grouped, cycle := len(p.cycles) > 1, -1
	for _, i := range idx {
		a := p.agents[i]
		if grouped && a.cycle != cycle {
			cycle = a.cycle
			lines = append(lines, p.cycleLine(cycle))
		}
		label := fmt.Sprintf("[%d]", i+1)
		lines = append(lines, "  "+pad(label, labelW)+" "+pad(truncate(clean(a.title), titleW), titleW)+"  "+a.status())
	}

	if p.errLine != "" {
		lines = append(lines, p.errLine)
	}
	switch {
	case p.summary != "" && p.errLine != "":
		lines = append(lines, "✗ "+p.summary)
	case p.summary != "":
		lines = append(lines, "✓ "+p.summary)
	default:
		lines = append(lines, p.footer())
	}
	return lines
}

// footer is the stage line while the run goes on.
func (p *Progress) footer() string {
	switch p.phase {
	case phaseStart:
		return "starting…"
	case phasePlan:
		return "planning…"
	case phaseMerged:
		s := "merged " + plural(p.merged, "source")
		if p.unknown > 0 {
			s += " · " + plural(p.unknown, "unknown citation") + " dropped"
		}
		return s
	case phaseAssessed:
		if c := p.cycles[p.cycle]; c != nil && c.assessed != "" {
			return "assessed · " + c.assessed
		}
		return "assessed"
	case phaseReport:
		s := "writing report"
		if p.citing > 0 {
			s += " · " + plural(p.citing, "citation")
		}
		return s
	case phaseReported:
		return "report written · " + plural(p.references, "reference")
	}
	if len(p.agents) == 0 {
		return "researching…"
	}
	done, failed, n := 0, 0, 0
	for _, a := range p.agents {
		if len(p.cycles) > 1 && a.cycle != p.cycle {
			continue // the agents of the cycle under way
		}
		n++
		switch a.state {
		case agentDone:
			done++
		case agentFailed:
			failed++
		}
	}
	s := fmt.Sprintf("researching · %d/%d agents done", done+failed, n)
	if len(p.cycles) > 1 {
		s = fmt.Sprintf("researching · cycle %d · %d/%d agents done", p.cycle, done+failed, n)
	}
	if failed > 0 {
		s += fmt.Sprintf(" · %d failed", failed)
	}
	return s
}

func (a *agentProgress) status() string {
	switch a.state {
	case agentRunning:
		s := "▸ " + a.activity
		if a.sources > 0 {
			s += " · " + plural(a.sources, "source")
		}
		if a.searches > 0 {
			s += " · " + plural(a.searches, "search")
		}
		return s
	case agentDone:
		return fmt.Sprintf("✓ done · %d cited · %s · %s",
			a.done.Cited, plural(a.done.ToolCalls, "tool call"), formatMS(a.done.DurationMS))
	case agentFailed:
		return "✗ failed: " + a.failure
	}
	return "· waiting"
}

// cycleLine heads the agents of a cycle: its number, what it closes, and
// what its assessment decided.
func (p *Progress) cycleLine(n int) string {
	s := fmt.Sprintf("  cycle %d", n)
	if n <= 0 {
		s = "  cycle ?"
	}
	if c := p.cycles[n]; c != nil {
		if len(c.closes) > 0 {
			s += " · closes " + strings.Join(c.closes, "; ")
		}
		if c.assessed != "" {
			s += " · " + c.assessed
		}
	}
	return s
}

// assessed says what an assessment decided, in a few words.
func assessed(d events.AssessedData) string {
	switch d.Decision {
	case events.LoopContinue:
		return plural(len(d.Gaps), "gap") + " → cycle " + fmt.Sprint(d.Cycle+1)
	case events.LoopAnswered:
		return "answered"
	}
	return clean(strings.ReplaceAll(d.Decision, "_", " "))
}

// failure says why an agent failed, in a few words.
func failure(d events.AgentFailedData) string {
	msg := clean(d.Error)
	switch {
	case d.Kind == events.FailTimeout || d.Kind == events.FailCanceled || msg == "":
		return cmp.Or(clean(d.Kind), "unknown error")
	case d.Kind == events.FailPanic:
		return "panic: " + msg
	}
	return msg
}

// summary is the run's one-line summary.
func summary(d events.RunFinishedData) string {
	agents := plural(d.Agents, "agent")
	if d.AgentsFailed > 0 {
		agents += fmt.Sprintf(" (%d failed)", d.AgentsFailed)
	}
	if d.Cycles > 1 {
		agents = plural(d.Cycles, "cycle") + " (" + clean(strings.ReplaceAll(d.LoopEnd, "_", " ")) + ") · " + agents
	}
	return fmt.Sprintf("done in %s · %s · %s · %s · %s",
		formatMS(d.DurationMS), agents, plural(d.Sources, "source"),
		plural(d.Citations, "citation"), plural(d.Usage.Total(), "token"))
}

func formatMS(ms int64) string {
	d := time.Duration(ms) * time.Millisecond
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", ms)
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "ch") {
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func quote(s string) string { return `"` + s + `"` }

// clean makes text from models and users safe to print on one terminal
// line: control characters (newlines, tabs, escape sequences) and line or
// paragraph separators become spaces.
func clean(s string) string {
	if strings.IndexFunc(s, unsafeRune) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if unsafeRune(r) {
			return ' '
		}
		return r
	}, s)
}

func unsafeRune(r rune) bool {
	return unicode.IsControl(r) || unicode.In(r, unicode.Zl, unicode.Zp)
}

// runeWidth is the number of terminal columns r takes: 2 for East Asian
// wide and full-width characters, 0 for combining marks and zero-width
// joiners, 1 otherwise.
func runeWidth(r rune) int {
	switch {
	case r == '\u200b' || r == '\u200d' || unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf):
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

func displayWidth(s string) int {
	n := 0
	for _, r := range s {
		n += runeWidth(r)
	}
	return n
}

// truncate cuts s to at most n columns, ending it with "…" when it cut.
func truncate(s string, n int) string {
	if displayWidth(s) <= n {
		return s
	}
	if n <= 0 {
		return ""
	}
	w := 0
	for i, r := range s {
		rw := runeWidth(r)
		if w+rw > n-1 {
			return s[:i] + "…"
		}
		w += rw
	}
	return s
}

// pad fills s with spaces to n columns.
func pad(s string, n int) string {
	if w := displayWidth(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s
}
