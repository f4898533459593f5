package deepresearch_test

import (
	"context"
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/render"
)

// usageWriter is the offline model behind an OpenAI server, made to do
// what the writer's prompt asks of a real model about usage tags: when
// the system prompt it receives over the wire asks for [[USAGE:…]], it
// ends its report with one naming every source the message lists. It
// notes whether it was asked.
type usageWriter struct {
	llms.Model
	asked chan bool // one value per writer call
}

var sourceLineRE = regexp.MustCompile(`(?m)^\[(\d+)\] `)

func (m *usageWriter) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	resp, err := m.Model.GenerateContent(ctx, msgs, opts...)
	system := textOf(msgs, llms.ChatMessageTypeSystem)
	if err != nil || !strings.HasPrefix(system, "You are the writer") {
		return resp, err
	}
	asked := strings.Contains(system, "[[USAGE:")
	m.asked <- asked
	if asked {
		human := textOf(msgs, llms.ChatMessageTypeHuman)
		var nums []string
		for _, sm := range sourceLineRE.FindAllStringSubmatch(human[strings.Index(human, "\n## Sources\n"):], -1) {
			nums = append(nums, sm[1])
		}
		resp.Choices[0].Content += "\n\n[[USAGE:" + strings.Join(nums, ",") + "]]\n"
	}
	return resp, nil
}

func (m *usageWriter) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}

func textOf(msgs []llms.MessageContent, role llms.ChatMessageType) string {
	var b strings.Builder
	for _, m := range msgs {
		for _, p := range m.Parts {
			if t, ok := p.(llms.TextContent); ok && m.Role == role {
				b.WriteString(t.Text)
			}
		}
	}
	return b.String()
}

// TestWriterIsAskedForUsageTag: the writer's prompt, as a real model
// receives it through the OpenAI wire format, asks for seed 001's usage
// tag; the tag the model writes is removed from the report, and the
// sources it names are the JSON report's usage_sids and sources_used,
// those not cited marked so.
func TestWriterIsAskedForUsageTag(t *testing.T) {
	m := &usageWriter{Model: extractive.New(extractive.Options{}), asked: make(chan bool, 8)}
	srv := deepresearchtest.NewOpenAIServer(m, deepresearchtest.OpenAIOptions{})
	t.Cleanup(srv.Close)
	model, err := openai.New(openai.WithBaseURL(srv.URL+"/v1"), openai.WithToken("test-key"), openai.WithModel("writer"))
	if err != nil {
		t.Fatal(err)
	}
	r := newResearcher(t, deepresearch.Config{Model: model})
	rep, err := runWith(t.Context(), r, question, nil)
	if err != nil {
		t.Fatal(err)
	}
	close(m.asked)
	calls := 0
	for asked := range m.asked {
		calls++
		if !asked {
			t.Error("the writer's prompt does not ask for a usage tag")
		}
	}
	if calls == 0 {
		t.Fatal("no writer call reached the server")
	}
	if len(rep.Used) == 0 || len(rep.Used) != len(rep.Sources) {
		t.Fatalf("Used = %v; want all %d merged sources the tag named", rep.Used, len(rep.Sources))
	}
	js, err := rep.Render(render.JSON)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Content     string `json:"content"`
		UsageSIDs   []int  `json:"usage_sids"`
		SourcesUsed []struct {
			SID   int  `json:"sid"`
			Cited bool `json:"cited"`
		} `json:"sources_used"`
	}
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(doc.Content, "USAGE") || strings.Contains(rep.Markdown(), "USAGE") {
		t.Errorf("the usage tag is left in the report:\n%s", doc.Content)
	}
	if len(doc.UsageSIDs) != len(rep.Sources) || len(doc.SourcesUsed) != len(rep.Sources) {
		t.Errorf("usage_sids %v, %d sources_used; want every one of %d sources", doc.UsageSIDs, len(doc.SourcesUsed), len(rep.Sources))
	}
	for _, s := range doc.SourcesUsed {
		if cited := s.SID <= len(rep.References); s.Cited != cited || !slices.Contains(doc.UsageSIDs, s.SID) {
			t.Errorf("sources_used sid %d: cited %v (want %v), in usage_sids %v", s.SID, s.Cited, cited, doc.UsageSIDs)
		}
	}
}
