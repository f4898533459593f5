package deepresearch

import (
	"context"
	"fmt"

	"github.com/deepresearch/deepresearch/internal/finalreport"
	"github.com/deepresearch/deepresearch/internal/pdfprint"
	"github.com/deepresearch/deepresearch/render"
)

// RenderContext is Render with a context and options: render.PDF is the
// report's printable HTML page (the report, its reference list with each
// source's locators, date and URL, the verdicts of verification and a
// Verification section, on A4 pages) printed by a headless Chromium,
// which shapes every script with the system's fonts and embeds them,
// and keeps each citation and URL a link. Printing runs the browser as a
// separate process, offline, bounded by ctx and opts.PDFTimeout; it
// fails with an error wrapping render.ErrNoChromium when there is no browser.
// A PDF carries its creation date, so two printings differ in those
// bytes. Every other format renders as Render renders it.
func (r *Report) RenderContext(ctx context.Context, format render.Format, opts render.Options) ([]byte, error) {
	if format != render.PDF {
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
