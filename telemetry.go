package deepresearch

import (
	"context"
	"strings"

	"github.com/tmc/langchaingo/llms"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/deepresearch/deepresearch/internal/agent"
	"github.com/deepresearch/deepresearch/internal/search"
	"github.com/deepresearch/deepresearch/internal/telemetry"
	"github.com/deepresearch/deepresearch/internal/usage"
)

// tracedBackend opens a span for each search and document read of the
// backend it wraps (a journal's, so a replayed call has its span too).
type tracedBackend struct {
	search.Backend
}

func (b tracedBackend) Search(ctx context.Context, q string, limit int) ([]SearchResult, error) {
	ctx, span := telemetry.Start(ctx, telemetry.SpanSearch, trace.SpanKindClient, telemetry.Query.String(telemetry.Text(q)))
	res, err := b.Backend.Search(ctx, q, limit)
	span.SetAttributes(telemetry.Results.Int(len(res)))
	telemetry.End(span, err)
	return res, err
}

func (b tracedBackend) Fetch(ctx context.Context, id string) (Document, error) {
	ctx, span := telemetry.Start(ctx, telemetry.SpanFetch, trace.SpanKindClient, telemetry.DocID.String(telemetry.Text(id)))
	doc, err := b.Backend.Fetch(ctx, id)
	telemetry.End(span, err)
	return doc, err
}

// chatSpan opens the span of one model call of role, named as the GenAI
// semantic conventions name it ("chat gpt-4o"), and returns the function
// that ends it with the call's usage and cost.
func (m metered) chatSpan(ctx context.Context) (context.Context, func(*llms.ContentResponse, error)) {
	name := m.m.names[m.role]
	attrs := append([]attribute.KeyValue{telemetry.GenAIOperation.String(telemetry.OpChat), telemetry.Role.String(m.role)},
		telemetry.Model(name)...)
	spanName := telemetry.OpChat
	if model := name[strings.Index(name, ":")+1:]; model != "" {
		spanName += " " + model
	}
	ctx, span := telemetry.Start(ctx, spanName, trace.SpanKindClient, attrs...)
	return ctx, func(resp *llms.ContentResponse, err error) {
		if err == nil && resp != nil && len(resp.Choices) > 0 {
			u := usage.Of(resp.Choices[0])
			span.SetAttributes(telemetry.GenAIInputTokens.Int(u.PromptTokens), telemetry.GenAIOutputTokens.Int(u.CompletionTokens))
			if m.m.price != nil {
				span.SetAttributes(telemetry.CostUSD.Float64(m.m.price(m.role, u)))
			}
		}
		telemetry.End(span, err)
	}
}

// agentSpan opens the span of one agent task of a cycle.
func agentSpan(ctx context.Context, task agent.Task, remote bool) (context.Context, trace.Span) {
	return telemetry.Start(ctx, telemetry.SpanAgent, trace.SpanKindInternal,
		telemetry.Cycle.Int(task.Cycle), telemetry.TaskID.String(task.ID), telemetry.TaskTitle.String(telemetry.Text(task.Title)),
		telemetry.Remote.Bool(remote))
}
