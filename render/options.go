package render

import (
	"fmt"
	"time"

	"github.com/deepresearch/deepresearch/internal/pdfprint"
)

// ErrNoChromium reports that a PDF report could not be printed for want
// of a browser: "PDF needs Chromium: install it or set output.chromium".
var ErrNoChromium = pdfprint.ErrNoChromium

// Options are what rendering needs beyond the report itself
// (deepresearch.Report.RenderContext): the browser PDF is printed with.
// The zero value looks for it on PATH.
type Options struct {
	// Chromium is the browser that prints PDF: a path, or a name on
	// PATH; "" looks for chromium, chromium-browser, google-chrome and
	// google-chrome-stable on PATH (settings: output.chromium).
	Chromium string
	// PDFTimeout bounds the printing of one PDF; 0 is two minutes.
	PDFTimeout time.Duration
}

// Ready reports whether format can be rendered with o: for PDF, whether
// its browser is there (an error wrapping ErrNoChromium if not); nil for
// every other format. A front end asks it before a run, so that no
// research is done for a report it could not print.
func (o Options) Ready(format Format) error {
	if format != PDF {
		return nil
	}
	if _, err := pdfprint.Find(o.Chromium); err != nil {
		return fmt.Errorf("deepresearch: render: %w", err)
	}
	return nil
}

// HTMLOptions are what a page showing a stored run adds to the HTML
// report (deepresearch.Report.RenderHTMLFragment); the zero value renders
// what HTML's page holds.
type HTMLOptions struct {
	// SourceHref returns where reference n's stored text is served (""
	// for nowhere), linked from its entry in the reference list; nil for
	// none.
	SourceHref func(n int) string
	// Verdicts shows what verification found: on each citation
	// (data-verdict "supported", or the problem's kind) and, under each
	// reference, its problems.
	Verdicts bool
}
