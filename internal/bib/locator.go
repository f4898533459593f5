package bib

import (
	"strings"

	"github.com/deepresearch/deepresearch/source"
)

// cslLocator fills the CSL-JSON fields (csl-data.json) that say where in
// the document the cited passage is: a page as "page" and "locator" (a
// locator without a label is a page), anything else as "section" ("Returns
// › Refunds", "Prices, row 12", "slide 3", "lines 4-9"). A document cited
// at several pages has them all ("4, 7"); at several rows or slides, a
// section naming them ("rows 3, 12").
func cslLocator(it *cslItem, l source.Location, all []source.Location) {
	if len(all) > 1 {
		if l.Kind == source.LocPage {
			var pages []string
			for _, p := range all {
				pages = append(pages, clean(p.Value))
			}
			it.Page = strings.Join(pages, ", ")
			it.Locator = it.Page
			return
		}
		it.Section = source.Locators(all)
		return
	}
	if clean(l.Value) == "" {
		return
	}
	if l.Kind == source.LocPage {
		it.Page, it.Locator = clean(l.Value), clean(l.Value)
		return
	}
	it.Section = l.String()
}

// bibLocation is the location for a BibTeX note ("p. 7", "row 12", "pp.
// 4, 7"), or "".
func bibLocation(l source.Location, all []source.Location) string {
	if len(all) > 1 {
		return source.Locators(all)
	}
	return l.String()
}
