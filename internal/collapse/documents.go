package collapse

import (
	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/source"
)

// DocumentKey is the identity of src's document, under which its citation
// targets (its pages, rows or slides cited apart) are one reference: the
// merger's identity less the unit. A sheet of a workbook is a document of
// its own (its rows are cited "b.xlsx, Prices, rows 3, 5"). It is "" for a
// source with neither URL nor ID, which is never grouped.
func DocumentKey(src source.Source) string {
	id, _ := document(src, canon.Key)
	if id != "" && src.Location.Unit() && src.Location.Part != "" {
		id += "#part:" + src.Location.Part
	}
	return id
}

// document is the identity of src's document ("url:" and its canonical
// URL, "invalid:" and a URL that has none, "id:" and an ID), with the
// canonical URL; "" when src has neither URL nor ID.
func document(src source.Source, key func(string) string) (id, canonical string) {
	switch {
	case src.URL == "" && src.ID == "":
		return "", ""
	case src.URL == "":
		return "id:" + src.ID, ""
	}
	canonical = key(src.URL)
	if canonical == "" {
		return "invalid:" + src.URL, "" // malformed: shared only by the same string
	}
	return "url:" + canonical, canonical
}
