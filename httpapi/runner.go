package httpapi

import (
	"context"

	"github.com/deepresearch/deepresearch"
)

// Runner is what the server needs of the library: run a request it has
// stored (deepresearch.StartRun) and keep the run in its store.
// *deepresearch.Researcher is one; this interface is the only place the
// server names the library's run API.
type Runner interface {
	// Record runs req and keeps it in st, as
	// deepresearch.Researcher.Record documents: every event stored before
	// it is sent, then the report, the cited sources and the final status.
	Record(ctx context.Context, st deepresearch.Store, req deepresearch.Request, sink func(deepresearch.Event)) (*deepresearch.Report, error)
	// RecordDurable is Record going on after what d says the run's
	// earlier attempts stored (deepresearch.ReopenRun): a resumed run.
	RecordDurable(ctx context.Context, st deepresearch.Store, req deepresearch.Request, d deepresearch.Durable, sink func(deepresearch.Event)) (*deepresearch.Report, error)
}

var _ Runner = (*deepresearch.Researcher)(nil)
