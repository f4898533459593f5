package deepresearchtest

import (
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/relevance"
	"github.com/deepresearch/deepresearch/internal/verify"
)

// JudgingModel returns m answering, besides, the two judgements
// deepresearch asks a language model for — which search results are
// relevant to a task (Config.Judges.Relevance) and whether a cited source
// supports its sentence (Config.Judges.Verify) — as a language model does:
// in the JSON those prompts ask for, read from the prompt's own text.
// Its verdicts are those of the offline lexical judges. Behind an
// OpenAIServer it is a model that judges, so that tests and examples run
// the model-judging paths, wire format included, with no network.
func JudgingModel(m llms.Model) llms.Model { return judging{m} }

type judging struct{ llms.Model }

var (
	passageRe = regexp.MustCompile(`(?s)<passage id="(\d+)">\nTitle: ([^\n]*)\n(.*?)\n</passage>`)
	claimRe   = regexp.MustCompile(`(?s)### Claim (\d+)\nSentence: ([^\n]*)\nSource \[(\d+)\]: [^\n]*\n<<<EXCERPT\n(.*?)\nEXCERPT>>>`)
	fieldRe   = regexp.MustCompile(`(?m)^(User's question|Task question): (.*)$`)
)

func (j judging) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	var system, human string
	for _, m := range msgs {
		for _, p := range m.Parts {
			if t, ok := p.(llms.TextContent); ok {
				switch m.Role {
				case llms.ChatMessageTypeSystem:
					system += t.Text
				case llms.ChatMessageTypeHuman:
					human += t.Text
				}
			}
		}
	}
	var answer string
	var err error
	switch {
	case strings.HasPrefix(system, "You judge whether search results are relevant"):
		answer, err = judgeRelevance(ctx, human)
	case strings.HasPrefix(system, "Role: verifier"):
		answer, err = judgeSupport(ctx, human)
	default:
		return j.Model.GenerateContent(ctx, msgs, opts...)
	}
	if err != nil {
		return nil, err
	}
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: answer, StopReason: "stop"}}}, nil
}

func (j judging) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, j, prompt, opts...)
}

// judgeRelevance answers a relevance prompt: [{"id", "score", "reason"}].
func judgeRelevance(ctx context.Context, prompt string) (string, error) {
	req := relevance.Request{}
	for _, m := range fieldRe.FindAllStringSubmatch(prompt, -1) {
		if m[1] == "User's question" {
			req.Question = m[2]
		} else {
			req.Task = m[2]
		}
	}
	var ids []int
	for _, m := range passageRe.FindAllStringSubmatch(prompt, -1) {
		id, _ := strconv.Atoi(m[1])
		ids = append(ids, id)
		req.Candidates = append(req.Candidates, relevance.Candidate{Key: m[1], Title: m[2], Text: m[3]})
	}
	js, err := relevance.Lexical{}.Judge(ctx, req)
	if err != nil {
		return "", err
	}
	type entry struct {
		ID     int     `json:"id"`
		Score  float64 `json:"score"`
		Reason string  `json:"reason"`
	}
	out := []entry{}
	for i, jd := range js {
		out = append(out, entry{ID: ids[i], Score: jd.Score, Reason: jd.Reason})
	}
	b, err := json.Marshal(out)
	return string(b), err
}

// judgeSupport answers a verification prompt: {"verdicts": [{"id",
// "supported", "score", "quote", "reason"}]}.
func judgeSupport(ctx context.Context, prompt string) (string, error) {
	var ids []int
	var claims []verify.Claim
	for _, m := range claimRe.FindAllStringSubmatch(prompt, -1) {
		id, _ := strconv.Atoi(m[1])
		n, _ := strconv.Atoi(m[3])
		ids = append(ids, id)
		claims = append(claims, verify.Claim{Sentence: m[2], Source: verify.Source{Number: n, Text: m[4]}})
	}
	vs, err := verify.Lexical{}.Judge(ctx, claims)
	if err != nil {
		return "", err
	}
	type verdict struct {
		ID        int     `json:"id"`
		Supported bool    `json:"supported"`
		Score     float64 `json:"score"`
		Quote     string  `json:"quote"`
		Reason    string  `json:"reason"`
	}
	out := struct {
		Verdicts []verdict `json:"verdicts"`
	}{Verdicts: []verdict{}}
	for i, v := range vs {
		vd := verdict{ID: ids[i], Supported: v.Supported, Score: min(max(v.Score, 0), 1), Reason: v.Reason}
		if v.Evidence != nil {
			vd.Quote = v.Evidence.Quote
		}
		out.Verdicts = append(out.Verdicts, vd)
	}
	b, err := json.Marshal(out)
	return string(b), err
}
