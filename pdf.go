package deepresearch

import (
	"context"
	"fmt"
	"time"

	"github.com/deepresearch/deepresearch/internal/finalreport"
	"github.com/deepresearch/deepresearch/internal/pdfprint"
)

// ErrNoChromium reports that a FormatPDF report could not be printed for
// want of a browser: "PDF needs Chromium: install it or set
// output.chromium".
var ErrNoChromium = pdfprint.ErrNoChromium

// RenderOptions are what rendering needs beyond the report itself: the
// browser FormatPDF is printed with. The zero value looks for it on PATH.
type RenderOptions struct {
	// Chromium is the browser that prints FormatPDF: a path, or a name on
	// PATH; "" looks for chromium, chromium-browser, google-chrome and
	// google-chrome-stable on PATH (settings: output.chromium).
	Chromium string
	// PDFTimeout bounds the printing of one PDF; 0 is two minutes.
	PDFTimeout time.Duration
}

// Ready reports whether format can be rendered with o: for FormatPDF,
// whether its browser is there (an error wrapping ErrNoChromium if not);
// nil for every other format. A front end asks it before a run, so that
// no research is done for a report it could not print.
func (o RenderOptions) Ready(format Format) error {
	if format != FormatPDF {
		return nil
	}
	if _, err := pdfprint.Find(o.Chromium); err != nil {
		return fmt.Errorf("deepresearch: render: %w", err)
	}
	return nil
}

// RenderContext is Render with a context and options: FormatPDF is the
// report's printable HTML page (the report, its reference list with each
// source's locators, date and URL, the verdicts of verification and a
// Verification section, on A4 pages) printed by a headless Chromium,
// which shapes every script with the system's fonts and embeds them,
// and keeps each citation and URL a link. Printing runs the browser as a
// separate process, offline, bounded by ctx and opts.PDFTimeout; it
// fails with an error wrapping ErrNoChromium when there is no browser.
// A PDF carries its creation date, so two printings differ in those
// bytes. Every other format renders as Render renders it.
func (r *Report) RenderContext(ctx context.Context, format Format, opts RenderOptions) ([]byte, error) {
	if format != FormatPDF {
		return r.Render(format)
	}
	pub, err := r.published()
	if err != nil {
		return nil, fmt.Errorf("deepresearch: render: %w", err)
	}
	page, err := finalreport.PrintHTML(r.title(), pub, r.verified())
	if err != nil {
		return nil, fmt.Errorf("deepresearch: render: %w", err)
	}
	b, err := pdfprint.Print(ctx, []byte(page), pdfprint.Options{Chromium: opts.Chromium, Timeout: opts.PDFTimeout})
	if err != nil {
		return nil, fmt.Errorf("deepresearch: render: %w", err)
	}
	return b, nil
}
