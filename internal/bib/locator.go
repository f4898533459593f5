package bib

import "github.com/deepresearch/deepresearch/internal/source"

// cslLocator fills the CSL-JSON fields (csl-data.json) that say where in
// the document the cited passage is: a page as "page" and "locator" (a
// locator without a label is a page), anything else as "section" ("Returns
// › Refunds", "Prices, row 12", "slide 3", "lines 4-9").
func cslLocator(it *cslItem, l source.Location) {
	if clean(l.Value) == "" {
		return
	}
	if l.Kind == source.LocPage {
		it.Page, it.Locator = clean(l.Value), clean(l.Value)
		return
	}
	it.Section = l.String()
}

// bibLocation is the location for a BibTeX note ("p. 7", "row 12"), or "".
func bibLocation(l source.Location) string { return l.String() }
