package deepresearch_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/rs/zerolog"
	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/extractive"
)

// writerInvents is a model whose writer, after its report, cites a number
// that is no merged source.
type writerInvents struct{ llms.Model }

func (m writerInvents) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	resp, err := m.Model.GenerateContent(ctx, msgs, opts...)
	tp, ok := msgs[0].Parts[0].(llms.TextContent)
	if err != nil || !ok || !strings.HasPrefix(tp.Text, "You are the writer") {
		return resp, err
	}
	const extra = "\n\nAn invented claim [987].\n"
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	if o.StreamingFunc != nil {
		if err := o.StreamingFunc(ctx, []byte(extra)); err != nil {
			return nil, err
		}
	}
	resp.Choices[0].Content += extra
	return resp, nil
}

// A writer's citation of a number that does not exist is dropped, and
// reported like every other dropped citation: a log warning, and a count
// in report.finished.
func TestWriterUnknownCitationIsReported(t *testing.T) {
	var logs bytes.Buffer
	logger := zerolog.New(&logs)
	r := newResearcher(t, deepresearch.Config{Model: writerInvents{extractive.New(extractive.Options{})}, Logger: &logger})
	rec := &recorder{}
	rep, err := runWith(context.Background(), r, question, rec.sink)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(rep.Body, "[987]") {
		t.Errorf("the invented citation is still in the report")
	}
	fin := rec.of(events.ReportFinished)
	if len(fin) != 1 || fin[0].Data.(events.ReportFinishedData).Unknown != 1 {
		t.Errorf("report.finished events %+v: want one, counting 1 dropped citation", fin)
	}
	if !strings.Contains(logs.String(), `"number":987`) || !strings.Contains(logs.String(), "dropped a citation the report made of no merged source") {
		t.Errorf("no warning names the dropped citation; log:\n%s", logs.String())
	}
}
