package finalreport

import (
	"github.com/deepresearch/deepresearch/internal/citeproc"
	"github.com/deepresearch/deepresearch/internal/collapse"
	"github.com/deepresearch/deepresearch/source"
)

// numberer numbers the merged sources 1..K in order of first citation,
// one number per document (collapse.DocumentKey): the pages, rows or
// slides of one document cited apart are one reference, and each
// citation keeps its unit, which Link mode writes as a pinpoint ("[2, p.
// 4]", "[2, p. 7]"). A source of sources with a Fixed number keeps it,
// as does every unit of its document, and the others are numbered after
// the highest Fixed one, in order of first citation (a follow-up's new
// sources after those of the run it follows). Every rendering of a report
// numbers with one, so that all agree.
func numberer(sources []collapse.Source) citeproc.Numberer {
	byDoc := map[string]int{}
	byNum := map[int]int{}
	next := 0
	for _, s := range sources {
		if s.Fixed <= 0 {
			continue
		}
		byNum[s.Number] = s.Fixed
		if k := collapse.DocumentKey(s.Source); k != "" {
			if _, ok := byDoc[k]; !ok {
				byDoc[k] = s.Fixed
			}
		}
		next = max(next, s.Fixed)
	}
	return citeproc.NumbererFunc(func(n int, src source.Source) int {
		if d, ok := byNum[n]; ok {
			return d
		}
		k := collapse.DocumentKey(src)
		if d, ok := byDoc[k]; ok && k != "" {
			byNum[n] = d
			return d
		}
		next++
		byNum[n], byDoc[k] = next, next
		return next
	})
}

// fixed reports whether a source of sources has a Fixed number.
func fixed(sources []collapse.Source) bool {
	for _, s := range sources {
		if s.Fixed > 0 {
			return true
		}
	}
	return false
}

// cite records in refs that reference c.Display is cited at c's unit: a
// new reference the first time, else one more location of it. It reports
// whether the reference is new.
func cite(refs *[]Reference, c citeproc.Citation, src collapse.Source) bool {
	for i := range *refs {
		ref := &(*refs)[i]
		if ref.Number != c.Display {
			continue
		}
		if loc := c.Source.Location; loc.Unit() {
			if len(ref.Locations) == 0 && ref.Location.Unit() {
				ref.Locations = []source.Location{ref.Location}
			}
			ref.Locations = append(ref.Locations, loc)
		}
		return false
	}
	*refs = append(*refs, Reference{Number: c.Display, Source: src.Source, CanonicalURL: src.CanonicalURL})
	return true
}
