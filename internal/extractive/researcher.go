package extractive

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// The tools a researcher conversation offers.
const (
	ToolSearch = "search"
	ToolOpen   = "open"
	ToolThink  = "think"
)

// ResearchDone is the researcher's reply once it stops calling tools.
const ResearchDone = "Research complete."

// maxQueryWords caps the words of a search query.
const maxQueryWords = 8

// research answers a researcher turn: search twice, then open the best
// one or two sources, then stop.
func research(msgs []llms.MessageContent, tools map[string]bool) *llms.ContentChoice {
	q := question(msgs)
	calls := toolCalls(msgs)
	id := len(calls)
	var out []llms.ToolCall
	add := func(name string, args any) {
		b, _ := json.Marshal(args)
		id++
		out = append(out, llms.ToolCall{
			ID:           "call_" + strconv.Itoa(id),
			Type:         "function",
			FunctionCall: &llms.FunctionCall{Name: name, Arguments: string(b)},
		})
	}

	queried := map[string]bool{}
	opened := map[int]bool{}
	opens := 0
	for _, c := range calls {
		switch c.FunctionCall.Name {
		case ToolSearch:
			var a struct{ Query string }
			if json.Unmarshal([]byte(c.FunctionCall.Arguments), &a) == nil {
				queried[a.Query] = true
			}
		case ToolOpen:
			opens++
			if n, ok := sourceArg(c.FunctionCall.Arguments); ok {
				opened[n] = true
			}
		}
	}

	words := keyWords(q)
	switch {
	case len(calls) == 0 && len(toolResults(msgs)) == 0 && tools[ToolSearch]:
		primary, variant := queries(words)
		if primary == "" {
			primary, variant = q, ""
		}
		add(ToolSearch, map[string]string{"query": primary})
		if variant != "" && variant != primary {
			add(ToolSearch, map[string]string{"query": variant})
		}
	case opens == 0 && tools[ToolOpen]:
		for _, n := range bestSources(allBlocks(msgs), words, opened, 2) {
			add(ToolOpen, map[string]int{"source": n})
		}
	}
	if len(out) == 0 && len(allBlocks(msgs)) == 0 && len(queried) < 3 && tools[ToolSearch] && len(words) > 0 {
		// Nothing found yet: one broader query with the first two terms.
		broad := joinSurface(words[:min(2, len(words))])
		if !queried[broad] {
			add(ToolSearch, map[string]string{"query": broad})
		}
	}
	if len(out) == 0 {
		return &llms.ContentChoice{Content: ResearchDone}
	}
	return &llms.ContentChoice{ToolCalls: out}
}

// queries builds the two parallel searches: the task's key terms, and a
// variant without the generic research words the planner adds (or, when
// there are none, its three longest terms, or the terms and "overview").
func queries(words []word) (primary, variant string) {
	if len(words) == 0 {
		return "", ""
	}
	primary = joinSurface(words[:min(maxQueryWords, len(words))])
	var core []word
	for _, w := range words {
		if !generic[w.surface] && !generic[w.stem] {
			core = append(core, w)
		}
	}
	switch {
	case len(core) > 0 && len(core) < len(words):
		variant = joinSurface(core[:min(maxQueryWords, len(core))])
	case len(words) > 3:
		idx := topIndexes(len(words), 3, func(i int) float64 { return float64(len(words[i].surface)) })
		var longest []word
		for _, i := range idx {
			longest = append(longest, words[i])
		}
		variant = joinSurface(longest)
	}
	if variant == "" || variant == primary {
		variant = primary + " overview"
	}
	return primary, variant
}

func joinSurface(ws []word) string {
	s := make([]string, len(ws))
	for i, w := range ws {
		s[i] = w.surface
	}
	return strings.Join(s, " ")
}

// sourceArg reads the "source" argument of an open call, as a number or a
// numeric string.
func sourceArg(args string) (int, bool) {
	var a struct {
		Source json.RawMessage `json:"source"`
	}
	if json.Unmarshal([]byte(args), &a) != nil {
		return 0, false
	}
	var n int
	if json.Unmarshal(a.Source, &n) == nil {
		return n, true
	}
	var s string
	if json.Unmarshal(a.Source, &s) == nil {
		s = strings.Trim(strings.TrimSpace(s), "[]")
		if v, err := strconv.Atoi(s); err == nil {
			return v, true
		}
	}
	return 0, false
}

// bestSources ranks the sources of blocks by how many task terms their
// title and text match (ties to the first seen) and returns up to k that
// are not opened: the best always, the others only when they match.
func bestSources(blocks []block, words []word, opened map[int]bool, k int) []int {
	terms := map[string]bool{}
	for _, w := range words {
		terms[w.stem] = true
	}
	text := map[int]*strings.Builder{}
	var order []int
	for _, b := range blocks {
		sb, ok := text[b.num]
		if !ok {
			sb = &strings.Builder{}
			text[b.num] = sb
			order = append(order, b.num)
		}
		fmt.Fprintf(sb, "%s\n%s\n", b.title, b.text)
	}
	var cand []int
	for _, n := range order {
		if !opened[n] {
			cand = append(cand, n)
		}
	}
	scores := make([]float64, len(cand))
	for i, n := range cand {
		scores[i] = float64(overlap(text[n].String(), terms))
	}
	ranked := make([]int, len(cand))
	for i := range ranked {
		ranked[i] = i
	}
	slices.SortStableFunc(ranked, func(a, b int) int { return cmp.Compare(scores[b], scores[a]) })
	var out []int
	for i, ix := range ranked {
		if i >= k || (i > 0 && scores[ix] == 0) {
			break
		}
		out = append(out, cand[ix])
	}
	return out
}
