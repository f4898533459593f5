package extractive

import (
	"context"
	"regexp"
	"strconv"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/purpose"
)

// Role is the job a conversation asks the model to do.
type Role string

// The roles the model knows. Any other role (or none) is RoleUnknown.
const (
	RolePlanner    Role = "planner"
	RoleResearcher Role = "researcher"
	RoleReporter   Role = "reporter"
	RoleWriter     Role = "writer"
	RoleUnknown    Role = ""
)

// roleOf reads the role of a call: the purpose its context is marked
// with (internal/purpose), else a legacy "Role: <role>" first line of the first
// system message (or, without one, of the first message), so that
// Call(ctx, "Role: planner\n…") works.
func roleOf(ctx context.Context, msgs []llms.MessageContent) Role {
	switch s := purpose.Of(ctx); s {
	case purpose.Planner, purpose.Researcher, purpose.Reporter, purpose.Writer, purpose.Assessor, purpose.Section, purpose.Frame:
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
	return field(msgs, "This task is part of the research on")
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
	rank  int // 1-based rank of the block's source in its search result; 0 outside search results
	// search is the 1-based index of the search result the block is in,
	// in the conversation's order; 0 outside search results.
	search int
}

var headerRe = regexp.MustCompile(`^\[(\d{1,6})\] (.*)$`)

// isMeta reports whether line is one of the metadata lines that follow a
// block header.
func isMeta(line string) bool {
	for _, p := range []string{"URL:", "Location:", "ID:"} {
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
// evaluation's tuning corpora (README "Research quality"): 10 beat 2 by a
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
