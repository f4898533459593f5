package deepresearch_test

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/events"
)

func fmtSscanf(s, format string, a ...any) (int, error) { return fmt.Sscanf(s, format, a...) }

func itoa(n int) string { return strconv.Itoa(n) }

func readFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	return string(b), err
}

// startWait starts req as opts say and waits for its report.
func startWait(ctx context.Context, r *deepresearch.Researcher, req deepresearch.Request, opts deepresearch.RunOptions) (*deepresearch.Report, error) {
	run, err := r.Start(ctx, req, opts)
	if err != nil {
		return nil, err
	}
	return run.Wait()
}

// research runs req in the foreground, its events to sink.
func research(ctx context.Context, r *deepresearch.Researcher, req deepresearch.Request, sink func(events.Event)) (*deepresearch.Report, error) {
	return startWait(ctx, r, req, deepresearch.RunOptions{Sink: sink})
}

// runWith researches question in the foreground, its events to sink.
func runWith(ctx context.Context, r *deepresearch.Researcher, question string, sink func(events.Event)) (*deepresearch.Report, error) {
	return research(ctx, r, deepresearch.Request{Question: question}, sink)
}

// researchJournaled runs req keeping its journal in js.
func researchJournaled(ctx context.Context, r *deepresearch.Researcher, req deepresearch.Request, js deepresearch.JournalStore, sink func(events.Event)) (*deepresearch.Report, error) {
	return startWait(ctx, r, req, deepresearch.RunOptions{Journal: js, Sink: sink})
}

// recordOrResearch runs req kept in st (unkept, when opening st gave
// unavailable), as the CLI's run does.
func recordOrResearch(ctx context.Context, r *deepresearch.Researcher, st deepresearch.Store, unavailable error, req deepresearch.Request, origin string, sink func(events.Event)) (*deepresearch.Report, error) {
	return startWait(ctx, r, req, deepresearch.RunOptions{Store: st, StoreErr: unavailable, Origin: origin, Sink: sink})
}

// ask asks question of run id that st holds as a follow-up, kept in st,
// as `deepresearch ask` does.
func ask(ctx context.Context, r *deepresearch.Researcher, st deepresearch.Store, id, question, origin string, sink func(events.Event)) (*deepresearch.Report, error) {
	req, err := deepresearch.FollowUpRequest(ctx, st, id, question)
	if err != nil {
		return nil, err
	}
	return startWait(ctx, r, req, deepresearch.RunOptions{Store: st, Origin: origin, Sink: sink})
}
