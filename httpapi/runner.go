package httpapi

import (
	"context"

	"github.com/deepresearch/deepresearch"
)

// Runner is what the server needs of the library: run a request (the
// server supplies the run ID, in req.RunID) reporting events to a sink,
// and fetch a document a run cited so the store keeps its text.
// *deepresearch.Researcher is one; this interface is the only place the
// server names the library's run API.
type Runner interface {
	// Research runs req, calling sink with every event in Seq order, and
	// returns the report (which may be non-nil alongside an error: the
	// agents' findings when the writer failed).
	Research(ctx context.Context, req deepresearch.Request, sink func(deepresearch.Event)) (*deepresearch.Report, error)
	// Fetch returns a whole document by the Source.ID a run reported.
	Fetch(ctx context.Context, docID string) (deepresearch.Document, error)
}

var _ Runner = (*deepresearch.Researcher)(nil)

// loadReport reads a stored report back; renderReport renders it.
func loadReport(b []byte) (*deepresearch.Report, error) { return deepresearch.LoadReport(b) }

func renderReport(rep *deepresearch.Report, format deepresearch.Format) ([]byte, error) {
	return rep.Render(format)
}
