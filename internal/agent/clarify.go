package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/purpose"
)

// MaxQuestions caps the clarifying questions Clarify returns.
const MaxQuestions = 3

// Question is a clarifying question about a research question, with the
// assumption a run makes when nobody answers it.
type Question struct {
	Question   string `json:"question"`
	Assumption string `json:"assumption,omitempty"`
}

// Answer is a clarifying question with its answer.
type Answer struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

const clarifierPrompt = `You decide whether a research question needs clarifying before a deep-research job spends time and money on it.

Ask only when the answer would change the research: an ambiguous scope, an acronym or name with several meanings, a missing time frame, region or audience that matters. A clear question gets no questions at all.

Reply with JSON only, no prose and no code fence, in exactly this shape:
{"questions":[{"question":"One short question to the user?","assumption":"What the research assumes if the user does not answer."}]}

At most the number of questions the user allows; {"questions":[]} when the question is clear.`

// clarifyMessage is the clarifier's human message.
func clarifyMessage(question string, max int) string {
	return fmt.Sprintf("Question: %s\nMax questions: %d", oneLine(question), max)
}

// Clarify asks the model whether question needs clarifying, in one call
// without tools or streaming, and returns at most MaxQuestions questions
// (none when the question is clear). The reply is parsed leniently: code
// fences and prose around the JSON are ignored, {"questions":[…]} and a
// bare array are accepted, and questions may be objects or plain strings;
// a reply with no usable question means none (not an error). A model
// error is returned wrapped ("agent: clarify: …"); when ctx is done the
// error is context.Cause(ctx).
func Clarify(ctx context.Context, m llms.Model, question string) ([]Question, Usage, error) {
	question = strings.TrimSpace(question)
	if question == "" {
		return nil, Usage{}, ErrEmptyQuestion
	}
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, clarifierPrompt),
		llms.TextParts(llms.ChatMessageTypeHuman, clarifyMessage(question, MaxQuestions)),
	}
	resp, err := m.GenerateContent(purpose.With(ctx, purpose.Clarifier), msgs)
	if err == nil {
		var choice *llms.ContentChoice
		if choice, err = firstChoice(resp); err == nil {
			return parseQuestions(choice.Content), usageOf(choice), nil
		}
	}
	if ctx.Err() != nil {
		return nil, Usage{}, context.Cause(ctx)
	}
	return nil, Usage{}, fmt.Errorf("agent: clarify: %w", err)
}

// UnmarshalJSON accepts an object or a plain question string.
func (q *Question) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*q = Question{Question: s}
		return nil
	}
	var o struct {
		Question   string `json:"question"`
		Text       string `json:"text"`
		Assumption string `json:"assumption"`
		Default    string `json:"default"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	*q = Question{Question: o.Question, Assumption: o.Assumption}
	if q.Question == "" {
		q.Question = o.Text
	}
	if q.Assumption == "" {
		q.Assumption = o.Default
	}
	return nil
}

// parseQuestions finds the questions in a clarifier reply: the first JSON
// object with a "questions" array, else the first JSON array; blank and
// repeated questions are dropped, the rest capped at MaxQuestions.
func parseQuestions(text string) []Question {
	text = stripFences(text)
	var found []Question
	for i := 0; i < len(text) && found == nil; i++ {
		switch text[i] {
		case '{':
			var obj struct {
				Questions []Question `json:"questions"`
			}
			if json.NewDecoder(strings.NewReader(text[i:])).Decode(&obj) == nil && obj.Questions != nil {
				found = obj.Questions
			}
		case '[':
			var arr []Question
			if json.NewDecoder(strings.NewReader(text[i:])).Decode(&arr) == nil && arr != nil {
				found = arr
			}
		}
	}
	var out []Question
	seen := map[string]bool{}
	for _, q := range found {
		q.Question, q.Assumption = oneLine(q.Question), oneLine(q.Assumption)
		if q.Question == "" || seen[q.Question] {
			continue
		}
		seen[q.Question] = true
		out = append(out, q)
		if len(out) == MaxQuestions {
			break
		}
	}
	return out
}
