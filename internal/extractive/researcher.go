package extractive

import (
	"cmp"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/terms"
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

// maxQueries caps the searches of the first research turn. With the two
// or three opens after them, research stays within the agent's default
// budget of 8 tool calls; when nothing was found, one is left for a
// broader search.
const maxQueries = 5

// research answers a researcher turn: up to maxQueries searches built
// from the questions' own key terms, then open the best one or two
// sources, then stop.
func research(msgs []llms.MessageContent, tools map[string]bool) *llms.ContentChoice {
	q := question(msgs)
	obj := objective(msgs)
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

	terms := weightedTerms(q, obj)
	switch {
	case len(calls) == 0 && len(toolResults(msgs)) == 0 && tools[ToolSearch]:
		qs := queries(q, obj)
		if len(qs) == 0 {
			qs = []string{q}
		}
		for _, query := range qs {
			add(ToolSearch, map[string]string{"query": query})
		}
	case opens == 0 && tools[ToolOpen]:
		// The top document of the question as asked is opened first:
		// its opening (a package's overview, a page's summary) is what a
		// reader of a plain search would read; the best of the others by
		// what their results show comes next.
		blocks := allBlocks(msgs)
		var top []int
		for n, r := range firstSearch(blocks) {
			if r == 1 && !opened[n] {
				top = append(top, n)
			}
		}
		cand, cov := covered(blocks, terms, opened)
		for _, n := range bestSources(blocks, cand, cov, 2) {
			if len(top) < 2 && !slices.Contains(top, n) {
				top = append(top, n)
			}
		}
		// The source whose results cover more of the question than any
		// other's, whatever its searches' ranks, is opened too ("A Builder
		// is used to efficiently build a string", ranked below two pages
		// that repeat "long" and "piece").
		if n, ok := bestCovered(cand, cov); ok && !slices.Contains(top, n) {
			top = append(top, n)
		}
		for _, n := range top {
			add(ToolOpen, map[string]int{"source": n})
		}
	}
	if len(out) == 0 && len(allBlocks(msgs)) == 0 && len(queried) <= maxQueries && tools[ToolSearch] {
		// Nothing found yet: one broader query, the first two key terms.
		if ws := queryWords(q); len(ws) > 0 {
			broad := strings.Join(ws[:min(2, len(ws))], " ")
			if !queried[broad] {
				add(ToolSearch, map[string]string{"query": broad})
			}
		}
	}
	if len(out) == 0 {
		return &llms.ContentChoice{Content: ResearchDone}
	}
	return &llms.ContentChoice{ToolCalls: out}
}

// queryWords returns the words of s that may enter a query: its key
// phrases' words, as written, in order.
func queryWords(s string) []string {
	ps, _ := keyPhrases(s)
	var out []string
	for _, p := range ps {
		out = append(out, p...)
	}
	return out
}

// queries builds the first turn's searches, every word taken from the
// task question or the user's question (obj), never from a template:
//
//  0. the task question as written, when it is the user's question (the
//     Overview task; not a task the planner phrased);
//  1. all the task's key phrases;
//  2. the same with compounds written joined ("SHA-256" → "SHA256"), as
//     documents often write them;
//  3. each strong phrase of the task on its own (a name, a compound, a
//     multi-word term), longest first;
//  4. the task's phrases widened with the user's question's other key
//     terms, or, for the question itself, its phrases less one (the
//     subsets).
//
// At most maxQueries distinct queries, of at most maxQueryWords words.
func queries(task, obj string) []string {
	tps, _ := keyPhrases(task)
	var out []string
	seen := map[string]bool{}
	add := func(ws []string) {
		if len(ws) > maxQueryWords {
			ws = ws[:maxQueryWords]
		}
		q := strings.Join(ws, " ")
		if k := strings.Join(strings.Fields(strings.ToLower(q)), " "); k != "" && !seen[k] && len(out) < maxQueries {
			seen[k] = true
			out = append(out, q)
		}
	}
	// The question as written: its stop words make no terms of their own,
	// but a search engine matches its phrases ("change the permission
	// bits") that the key phrases alone break up.
	if asked := asWritten(task, obj); asked != "" {
		out = append(out, asked)
		seen[strings.Join(strings.Fields(strings.ToLower(asked)), " ")] = true
	}
	var all []string
	for _, p := range tps {
		all = append(all, p...)
	}
	add(all)
	if joined := joinCompounds(all); strings.Join(joined, " ") != strings.Join(all, " ") {
		add(joined)
	}
	strong := longestFirst(filterPhrases(tps, phrase.strong))
	if len(tps) > 1 {
		for _, p := range strong {
			add(p)
		}
	}
	if obj != "" && normalize(obj) != normalize(task) {
		wide := append([]string(nil), all...)
		have := questionStems(strings.Join(all, " "))
		for _, w := range queryWords(obj) {
			if st := questionStems(w); !subset(st, have) {
				wide = append(wide, w)
				for k := range st {
					have[k] = true
				}
			}
		}
		add(wide)
	} else if len(tps) > 2 {
		for i := range tps {
			var sub []string
			for j, p := range tps {
				if j != i {
					sub = append(sub, p...)
				}
			}
			add(sub)
		}
	}
	return out
}

// maxAskedWords caps the words of the question-as-written query.
const maxAskedWords = 16

// asWritten returns the task question as a query, as written but for its
// final punctuation, when it is the user's question (obj, when set) and
// has a key phrase; else "". A task on one side of a comparison ("How do
// TCP differ?") is no question a user asked: its first query is its key
// phrases.
func asWritten(task, obj string) string {
	if obj != "" && normalize(obj) != normalize(task) || len(queryWords(task)) == 0 {
		return ""
	}
	ws := strings.Fields(strings.TrimRight(strings.TrimSpace(task), "?!.;: "))
	return strings.Join(ws[:min(len(ws), maxAskedWords)], " ")
}

// joinCompounds writes each hyphenated compound of words joined, when a
// part is a number or a short code ("SHA-256" → "SHA256", "UTF-8" →
// "UTF8"); other words are unchanged.
func joinCompounds(ws []string) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w
		parts := strings.Split(w, "-")
		if len(parts) < 2 {
			continue
		}
		code := false
		for _, p := range parts {
			if isDigits(p) || (len(p) <= 3 && strings.ToUpper(p) == p) {
				code = true
			}
		}
		if code {
			out[i] = strings.Join(parts, "")
		}
	}
	return out
}

func filterPhrases(ps []phrase, keep func(phrase) bool) []phrase {
	var out []phrase
	for _, p := range ps {
		if keep(p) {
			out = append(out, p)
		}
	}
	return out
}

func subset(a, b map[string]bool) bool {
	for k := range a {
		if !b[k] {
			return false
		}
	}
	return true
}

// weightedTerms are the stems a sentence or source is scored by: the
// task's key terms weigh 1 and the user's question's weigh 2 (a stem in
// both weighs 2). With no user's question, the task's weigh 2.
func weightedTerms(task, obj string) map[string]float64 {
	w := map[string]float64{}
	if obj == "" {
		obj = task
	}
	for st := range questionStems(stripScaffold(task)) {
		w[st] = 1
	}
	for st := range questionStems(stripScaffold(obj)) {
		w[st] = 2
	}
	// A hyphenated compound with a stop word ("happens-before") is a term
	// of its own: passages that hold the phrase, not only its key word.
	for _, c := range terms.Compounds(task) {
		w[c] = max(w[c], 1)
	}
	for _, c := range terms.Compounds(obj) {
		w[c] = 2
	}
	// A number quoted as an example of a value ("a string like "42"")
	// stands for any: passages that happen to hold it are no better.
	for _, t := range []string{task, obj} {
		for _, m := range quotedNumberRe.FindAllStringSubmatch(t, -1) {
			for st := range stemSet(m[1]) {
				if w[st] > 0 {
					w[st] = exampleWeight
				}
			}
		}
	}
	return w
}

// quotedNumberRe matches a number in quotation marks; exampleWeight is the
// weight of its terms.
var quotedNumberRe = regexp.MustCompile(`["“'‘]([+-]?[0-9][0-9.,]*)["”'’]`)

const exampleWeight = 0.25

// stripScaffold drops the scaffold words of a question ("How does X
// work?" → "X").
func stripScaffold(s string) string { return strings.Join(queryWords(s), " ") }

// score is the weighted share of the weighted terms that s covers.
func score(s string, weight map[string]float64) float64 {
	total := 0.0
	for _, w := range weight {
		total += w
	}
	if total == 0 {
		return 0
	}
	got := 0.0
	for st := range terms.StemSetFor(s, weight) {
		got += weight[st]
	}
	return got / total
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

// covered returns the sources of blocks that are not opened, in the order
// first seen, and the weighted share of terms each one's title and
// results cover.
func covered(blocks []block, terms map[string]float64, opened map[int]bool) (cand []int, cov []float64) {
	text := map[int]*strings.Builder{}
	for _, b := range blocks {
		if opened[b.num] {
			continue
		}
		sb, ok := text[b.num]
		if !ok {
			sb = &strings.Builder{}
			text[b.num] = sb
			cand = append(cand, b.num)
		}
		fmt.Fprintf(sb, "%s\n%s\n", b.title, b.text)
	}
	cov = make([]float64, len(cand))
	for i, n := range cand {
		cov[i] = score(text[n].String(), terms)
	}
	return cand, cov
}

// bestSources ranks the sources cand, whose coverages are cov (covered),
// by coverage plus half their fused search rank in blocks (ties to the
// first seen) and returns up to k: the best always, the others only when
// they match.
func bestSources(blocks []block, cand []int, cov []float64, k int) []int {
	prior := priors(blocks)
	scores := make([]float64, len(cand))
	for i, n := range cand {
		if cov[i] > 0 {
			scores[i] = cov[i] + priorWeight*prior[n]
		}
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

// bestCovered returns the source of cand whose coverage (cov, covered) is
// the largest, when no other covers as much (ties to none).
func bestCovered(cand []int, cov []float64) (int, bool) {
	best, bestScore, tie := 0, 0.0, false
	for i, n := range cand {
		switch sc := cov[i]; {
		case sc > bestScore:
			best, bestScore, tie = n, sc, false
		case sc == bestScore:
			tie = true
		}
	}
	return best, bestScore > 0 && !tie
}
