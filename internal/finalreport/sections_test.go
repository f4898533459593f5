package finalreport

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/purpose"
)

// TestStreamIsPublish: a draft streamed through Stream publishes exactly
// as Publish does, in every style, with each citation's hook before the
// text that uses it.
func TestStreamIsPublish(t *testing.T) {
	for _, st := range allStyles {
		t.Run(st.name, func(t *testing.T) {
			want, err := Publish(fixtureText, fixtureSources(), st.style)
			if err != nil {
				t.Fatal(err)
			}
			rec := &recorder{}
			got, err := Stream(Config{Style: st.style, Hooks: rec.hooks()}, fixtureText, fixtureSources())
			if err != nil {
				t.Fatal(err)
			}
			if got.Draft != want.Draft || got.Body != want.Body || got.Text != want.Text || !reflect.DeepEqual(got.References, want.References) {
				t.Errorf("Stream differs from Publish:\n got %q\nwant %q", got.Text, want.Text)
			}
			if rec.text() != got.Text {
				t.Errorf("deltas add up to %q, not the Text", rec.text())
			}
			checkCiteBeforeDelta(t, rec)
		})
	}
}

func TestParseFrame(t *testing.T) {
	tests := []struct {
		name, reply string
		want        Frame
	}{
		{"title, intro, summary", "# Café prices\n\nPrices rose [7].\nWages lagged [3].\n\n## Summary\n\nPrices rose faster than wages [7][3].\n",
			Frame{Title: "Café prices", Intro: "Prices rose [7].\nWages lagged [3].", Summary: "## Summary\n\nPrices rose faster than wages [7][3]."}},
		{"no title", "Prices rose [7].", Frame{Title: "How did café prices change?", Intro: "Prices rose [7]."}},
		{"a deeper heading becomes the summary's", "# T\n\nIntro.\n\n### Conclusion\nDone.", Frame{Title: "T", Intro: "Intro.", Summary: "## Conclusion\nDone."}},
		{"a late title is a heading", "Intro first.\n\n# Late\ntext", Frame{Title: "How did café prices change?", Intro: "Intro first.", Summary: "## Late\ntext"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := parseFrame(tt.reply, "How did café prices change?"); got != tt.want {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestCompose(t *testing.T) {
	got := Compose(ComposeInput{
		Frame:   Frame{Title: "Café\nprices", Intro: "Prices rose [7].", Summary: "## Summary\n\nIn short [7]."},
		Parts:   []Part{{Title: "Prices", Text: "Prices rose [7].\n"}, {Title: "Wages", Text: "Wages lagged [3]."}},
		Missing: []Missing{{Section: "Rents", Reason: "timeout"}},
		Notices: []string{"Research stopped early: the run's time budget (1m0s) was reached."},
	})
	want := "# Café prices\n\nPrices rose [7].\n\n## Prices\n\nPrices rose [7].\n\n## Wages\n\nWages lagged [3].\n\n## Summary\n\nIn short [7].\n" +
		"\n> **Incomplete research.** One research task failed, so this report does not cover it: “Rents” (timeout).\n" +
		"\n> **Note.** Research stopped early: the run's time budget (1m0s) was reached.\n"
	if got != want {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
}

// TestWriteSection: one call, unstreamed, marked with the section stage,
// given the part's findings and only the sources they cite; headings in
// the findings and the reply are demoted.
func TestWriteSection(t *testing.T) {
	m := &scripted{Text: "## Not a section\nPrices rose [7].", Info: map[string]any{"PromptTokens": 10, "CompletionTokens": 5}}
	text, u, err := WriteSection(context.Background(), Config{Model: m}, SectionInput{Question: "How did café prices change?", Title: "Prices",
		Findings: "# Heading\nPrices rose [7]. Wages lagged [3].", Sources: fixtureSources()})
	if err != nil {
		t.Fatal(err)
	}
	if text != "#### Not a section\nPrices rose [7]." || u.Calls != 1 {
		t.Errorf("text %q, usage %+v", text, u)
	}
	human := m.Msgs[1].Parts[0].(llms.TextContent).Text
	for _, want := range []string{"Question: How did café prices change?\nSection: Prices\n\n## Findings\n\n### Prices\n#### Heading\n",
		"## Sources\n[3] Three & <Co> — https://example.org/three?b=2&a=1\n[7] Seven — https://example.org/seven\n"} {
		if !strings.Contains(human, want) {
			t.Errorf("the message lacks %q:\n%s", want, human)
		}
	}
	if strings.Contains(human, "[1] One") {
		t.Errorf("the message lists a source the findings do not cite:\n%s", human)
	}
	boom := errors.New("down")
	if _, _, err := WriteSection(context.Background(), Config{Model: &scripted{Err: boom}}, SectionInput{Title: "Prices"}); !errors.Is(err, boom) {
		t.Errorf("model error: %v", err)
	}
	if _, _, err := WriteFrame(context.Background(), Config{Model: &scripted{NoChoice: true}}, "q?", nil); err == nil {
		t.Error("no choice: no error")
	}
}

// TestSectionStages: the offline model writes a section and a frame from
// the stage of the call alone.
func TestSectionStages(t *testing.T) {
	m := &stageModel{}
	if _, _, err := WriteSection(context.Background(), Config{Model: m}, SectionInput{Title: "P", Findings: "x [1]", Sources: fixtureSources()}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := WriteFrame(context.Background(), Config{Model: m}, "q?", []Part{{Title: "P", Text: "x [1]"}}); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.stages, []purpose.Purpose{purpose.Section, purpose.Frame}) {
		t.Errorf("stages %q", m.stages)
	}
}

// stageModel records the stage of each call and answers with nothing.
type stageModel struct{ stages []purpose.Purpose }

func (m *stageModel) GenerateContent(ctx context.Context, _ []llms.MessageContent, _ ...llms.CallOption) (*llms.ContentResponse, error) {
	m.stages = append(m.stages, purpose.Of(ctx))
	return &llms.ContentResponse{Choices: []*llms.ContentChoice{{Content: "text"}}}, nil
}

func (m *stageModel) Call(ctx context.Context, prompt string, opts ...llms.CallOption) (string, error) {
	return llms.GenerateFromSinglePrompt(ctx, m, prompt, opts...)
}
