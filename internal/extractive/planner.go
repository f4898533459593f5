package extractive

import (
	"encoding/json"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tmc/langchaingo/llms"
)

// defaultMaxTasks is the plan size when the prompt does not say.
const defaultMaxTasks = 4

// aspects are the planner's task templates, in the order they are used;
// %s is the question's topic.
var aspects = []struct{ title, question string }{
	{"Background and definitions", "What is %s, and which background and key definitions are needed to understand it?"},
	{"How it works", "How does %s work, and what are its main mechanisms and components?"},
	{"History and evidence", "What is the history of %s, and which examples and evidence document it?"},
	{"Limitations and trade-offs", "What are the limitations, trade-offs and open problems of %s?"},
	{"Alternatives", "How does %s compare with its alternatives, and when is each preferable?"},
	{"In practice", "How is %s applied in practice, and which practices are recommended?"},
}

type planTask struct {
	Title    string `json:"title"`
	Question string `json:"question"`
}

// plan answers a planner conversation: JSON {"tasks":[…]} with up to
// "Max tasks" sub-questions about the question's topic. With one task
// allowed, or when the question has no key words, the task is the
// question itself.
func plan(msgs []llms.MessageContent) string {
	q := field(msgs, "Question")
	if q == "" {
		q = question(msgs)
	}
	n := defaultMaxTasks
	if v, err := strconv.Atoi(field(msgs, "Max tasks")); err == nil && v > 0 {
		n = v
	}
	var tasks []planTask
	switch {
	case q == "":
	case n == 1 || topicOf(q) == "":
		tasks = []planTask{{Title: "Overview", Question: q}}
	default:
		topic := topicOf(q)
		for _, a := range aspects[:min(n, len(aspects))] {
			tasks = append(tasks, planTask{Title: a.title, Question: strings.Replace(a.question, "%s", topic, 1)})
		}
	}
	if tasks == nil {
		tasks = []planTask{}
	}
	b, _ := json.Marshal(struct {
		Tasks []planTask `json:"tasks"`
	}{tasks})
	return string(b)
}

// maxTopicWords caps the topic phrase.
const maxTopicWords = 6

// topicOf is the question's key words as written, in order: "How does the
// Go memory model define happens-before?" → "Go memory model
// happens-before". It is "" when the question has no key words.
func topicOf(q string) string {
	var words []string
	seen := map[string]bool{}
	for _, f := range strings.Fields(q) {
		w := strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		lw := strings.ToLower(w)
		if w == "" || stopwords[lw] || seen[lw] {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(w); utf8.RuneCountInString(w) < 2 && !unicode.IsDigit(r) {
			continue
		}
		seen[lw] = true
		words = append(words, w)
		if len(words) == maxTopicWords {
			break
		}
	}
	return strings.Join(words, " ")
}
