package extractive

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/purpose"
	"github.com/deepresearch/deepresearch/source"
)

// Role is the job a conversation asks the model to do.
type Role string

// The roles the model knows. Any other role (or none) is RoleUnknown.
const (
	RolePlanner    Role = "planner"
	RoleResearcher Role = "researcher"
	RoleReporter   Role = "reporter"
	RoleWriter     Role = "writer"
	RoleClarifier  Role = "clarifier" // never asks: it cannot tell an ambiguous question from a clear one
	RoleUnknown    Role = ""
)

// roleOf reads the role of a call: the purpose its context is marked
// with (internal/purpose), else a legacy "Role: <role>" first line of the first
// system message (or, without one, of the first message), so that
// Call(ctx, "Role: planner\n…") works.
func roleOf(ctx context.Context, msgs []llms.MessageContent) Role {
	switch s := purpose.Of(ctx); s {
	case purpose.Planner, purpose.Researcher, purpose.Reporter, purpose.Writer, purpose.Assessor, purpose.Section, purpose.Frame, purpose.Clarifier:
		return Role(s)
	}
	text := ""
	for _, m := range msgs {
		if m.Role == llms.ChatMessageTypeSystem {
			text = textOf(m)
			break
		}
	}
	if text == "" && len(msgs) > 0 {
		text = textOf(msgs[0])
	}
	first, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	name, ok := strings.CutPrefix(strings.TrimSpace(first), "Role:")
	if !ok {
		return RoleUnknown
	}
	switch r := Role(strings.ToLower(strings.TrimSpace(name))); r {
	case RolePlanner, RoleResearcher, RoleReporter, RoleWriter:
		return r
	}
	return RoleUnknown
}

// textOf concatenates the text parts of a message.
func textOf(m llms.MessageContent) string {
	var b strings.Builder
	for _, p := range m.Parts {
		if t, ok := p.(llms.TextContent); ok {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// field returns the value of the first line "Name: value" in the human
// messages, or "".
func field(msgs []llms.MessageContent, name string) string {
	for _, m := range msgs {
		if m.Role != llms.ChatMessageTypeHuman {
			continue
		}
		if v, ok := lineField(textOf(m), name); ok {
			return v
		}
	}
	return ""
}

func lineField(text, name string) (string, bool) {
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), name+":"); ok {
			return strings.TrimSpace(v), true
		}
	}
	return "", false
}

// question is the task or research question of the conversation: the
// first "Question:" line of a human message, else the first human
// message's text.
func question(msgs []llms.MessageContent) string {
	if q := field(msgs, "Question"); q != "" {
		return q
	}
	for _, m := range msgs {
		if m.Role == llms.ChatMessageTypeHuman {
			return strings.TrimSpace(textOf(m))
		}
	}
	return ""
}

// objective is the user's question a research task is part of: the
// "This task is part of the research on: <q>" line internal/agent writes,
// else "".
//
// A follow-up task of a research loop (its message names the gap it
// closes) has none: its own question, which names what it follows, leads
// its searches and its report.
func objective(msgs []llms.MessageContent) string {
	if field(msgs, gapField) != "" {
		return ""
	}
	return field(msgs, objectiveField)
}

// objectiveField starts the line that names the user's question.
const objectiveField = "This task is part of the research on"

// followUp is what a follow-up task of a research loop answers to.
type followUp struct {
	// question is the user's question; own its key stems.
	question string
	own      map[string]bool
	// task are the key stems of the follow-up's own question.
	task map[string]bool
	// name is the name a reference follow-up follows ("" for a follow-up
	// on words of the question no finding covered).
	name string
}

// followUpOf reads a follow-up task's gap and user's question; ok is
// false for a task that is no follow-up, or one whose message does not
// say which question it serves.
func followUpOf(msgs []llms.MessageContent) (f followUp, ok bool) {
	gap := field(msgs, gapField)
	f.question = field(msgs, objectiveField)
	if gap == "" || f.question == "" {
		return f, false
	}
	f.own = questionStems(stripScaffold(f.question))
	f.task = questionStems(stripScaffold(question(msgs)))
	if m := referenceGapRe.FindStringSubmatch(gap); m != nil {
		f.name = m[1]
	}
	return f, true
}

// referenceGapRe reads the name in the gap of a reference follow-up:
// "reference: <name>, named in [n] <title>" as assess writes it, or
// "reference: <name>".
var referenceGapRe = regexp.MustCompile(`^reference: (.+?)(?:, named in \[\d+\]|$)`)

// admits reports whether a follow-up may quote sentence s of a source
// (its title and URL). A follow-up's sources are judged by its own
// question, so that a second hop sharing few words with the user's
// question is found; what it quotes must still bear on the user's
// question: the sentence, with its source's title, shares two of its key
// terms (all, when it has fewer); or the source is a second hop. For a
// follow-up that follows a name (a reference gap), that is the name's
// own document (documentOf), which a passage bearing on the question
// quoted. For one whose gap names none but whose question names a
// subject the user's question does not (a model's assessment may put
// the name there), it is a document named after that subject: a segment
// of its title, or its file name, is made of the follow-up question's
// key terms, one of them not the user's question's. The offline
// assessment's other follow-ups are made of the user's question's words,
// so offline only the first two hold.
func (f followUp) admits(s, title, url string) bool {
	if shared(stemSet(s+"\n"+title), f.own) >= min(len(f.own), 2) {
		return true
	}
	if f.name != "" {
		return documentOf(f.name, title, url)
	}
	for _, seg := range docNames(title, url) {
		st := stemSet(seg)
		if len(st) > 0 && subset(st, f.task) && !subset(st, f.own) {
			return true
		}
	}
	return false
}

// block is one numbered source block of a tool result:
//
//	[3] Title of document
//	URL: file:///…
//	Location: § Heading
//	<text>
type block struct {
	num   int
	title string
	url   string
	text  string
	order int // position among all blocks of the conversation
	// heading is the innermost heading of the block's location, when the
	// search result gave one (headingOf).
	heading string
	rank    int // 1-based rank of the block's source in its search result; 0 outside search results
	// search is the 1-based index of the search result the block is in,
	// in the conversation's order; 0 outside search results.
	search int
}

var headerRe = regexp.MustCompile(`^\[(\d{1,6})\] (.*)$`)

// unitLocRe matches a location that is a page, row, slide or line range,
// not a heading path.
var unitLocRe = regexp.MustCompile(`^(?:.*, )?(?:p\. |row |slide |lines? )\S+$`)

// headingOf returns the innermost heading of a block's location when it
// is a heading path ("Sysctl › drop_caches" gives "drop_caches"); "" for a
// page, row, slide or line range.
func headingOf(loc string) string {
	if loc == "" || unitLocRe.MatchString(loc) {
		return ""
	}
	h := strings.TrimPrefix(loc, "§")
	if i := strings.LastIndex(h, source.SectionSep); i >= 0 {
		h = h[i+len(source.SectionSep):] // the innermost
	}
	return strings.TrimSpace(h)
}

// isMeta reports whether line is one of the metadata lines that follow a
// block header.
func isMeta(line string) bool {
	for _, p := range []string{"URL:", "Location:", "ID:", "Text:"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// parseBlocks reads the source blocks of one tool result. A header is a
// "[n] Title" line at the start or after a blank line that is directly
// followed by a metadata line; everything up to the next header is the
// block's text. Tool errors and other text parse to no blocks.
func parseBlocks(content string) []block {
	lines := strings.Split(strings.ReplaceAll(content, "\r\n", "\n"), "\n")
	var out []block
	cur := -1
	var text []string
	finish := func() {
		if cur >= 0 {
			out[cur].text = strings.TrimSpace(strings.Join(text, "\n"))
		}
		text = nil
	}
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if m := headerRe.FindStringSubmatch(line); m != nil &&
			(i == 0 || strings.TrimSpace(lines[i-1]) == "") &&
			i+1 < len(lines) && isMeta(lines[i+1]) {
			n, err := strconv.Atoi(m[1])
			if err == nil && n > 0 {
				finish()
				b := block{num: n, title: strings.TrimSpace(m[2])}
				for i+1 < len(lines) && isMeta(lines[i+1]) {
					i++
					if u, ok := strings.CutPrefix(lines[i], "URL:"); ok {
						b.url = strings.TrimSpace(u)
					}
					if l, ok := strings.CutPrefix(lines[i], "Location:"); ok {
						b.heading = headingOf(strings.TrimSpace(l))
					}
				}
				out = append(out, b)
				cur = len(out) - 1
				continue
			}
		}
		if cur >= 0 && !strings.HasPrefix(line, "<<<") { // fences around source text are not text
			text = append(text, line)
		}
	}
	finish()
	return out
}

// rrfK is the rank offset of reciprocal rank fusion. Measured on the
// evaluation's tuning corpora (docs/quality.md): 10 beat 2 by a
// question on the Go docs and one on the manual pages and lost nothing.
const rrfK = 10

// priors fuses the ranks the searches gave each source (reciprocal rank
// fusion, Σ 1/(rrfK+rank)), scaled so the best source has 1: the search
// engine's own judgement, with its term statistics, of which sources
// matter, summed over every search that found them.
func priors(blocks []block) map[int]float64 {
	p := map[int]float64{}
	best := 0.0
	for _, b := range blocks {
		if b.rank > 0 {
			p[b.num] += 1 / float64(rrfK+b.rank)
			best = max(best, p[b.num])
		}
	}
	if best > 0 {
		for n := range p {
			p[n] /= best
		}
	}
	return p
}

// toolResults returns the tool responses of the conversation in order.
func toolResults(msgs []llms.MessageContent) []llms.ToolCallResponse {
	var out []llms.ToolCallResponse
	for _, m := range msgs {
		for _, p := range m.Parts {
			if r, ok := p.(llms.ToolCallResponse); ok {
				out = append(out, r)
			}
		}
	}
	return out
}

// toolCalls returns the tool calls the assistant made in the conversation.
func toolCalls(msgs []llms.MessageContent) []llms.ToolCall {
	var out []llms.ToolCall
	for _, m := range msgs {
		if m.Role != llms.ChatMessageTypeAI {
			continue
		}
		for _, p := range m.Parts {
			if c, ok := p.(llms.ToolCall); ok && c.FunctionCall != nil {
				out = append(out, c)
			}
		}
	}
	return out
}

// allBlocks parses every tool result of the conversation.
func allBlocks(msgs []llms.MessageContent) []block {
	var out []block
	searches := 0
	for _, r := range toolResults(msgs) {
		ranks := map[int]int{}
		bs := parseBlocks(r.Content)
		if r.Name != ToolOpen && len(bs) > 0 {
			searches++
		}
		for _, b := range bs {
			b.order = len(out)
			if r.Name != ToolOpen {
				if _, ok := ranks[b.num]; !ok {
					ranks[b.num] = len(ranks) + 1
				}
				b.rank, b.search = ranks[b.num], searches
			}
			out = append(out, b)
		}
	}
	return out
}
