package bib

import (
	"encoding/json"
	"fmt"

	"github.com/deepresearch/deepresearch/internal/canon"
)

// cslItem is one CSL-JSON item (csl-data.json): "id" and "type" are
// required; the other fields are written when known.
type cslItem struct {
	ID              string   `json:"id"`
	Type            string   `json:"type"`
	CitationNumber  int      `json:"citation-number,omitempty"`
	Title           string   `json:"title,omitempty"`
	URL             string   `json:"URL,omitempty"`
	DOI             string   `json:"DOI,omitempty"`
	Author          []Name   `json:"author,omitempty"`
	Issued          *cslDate `json:"issued,omitempty"`
	Accessed        *cslDate `json:"accessed,omitempty"`
	Publisher       string   `json:"publisher,omitempty"`
	ContainerTitle  string   `json:"container-title,omitempty"`
	ArchiveLocation string   `json:"archive_location,omitempty"`
	Source          string   `json:"source,omitempty"`
	// Where the cited passage is (see cslLocator).
	Page    string `json:"page,omitempty"`
	Section string `json:"section,omitempty"`
	Locator string `json:"locator,omitempty"`
}

type cslDate struct {
	DateParts [][]int `json:"date-parts"`
}

func cslDateOf(d Date) *cslDate {
	if d.IsZero() {
		return nil
	}
	return &cslDate{DateParts: [][]int{d.parts()}}
}

// CSLJSON returns the references as a CSL-JSON array, in the order given.
// Each item's id is "ref-N" (N its number), unique as long as the numbers
// are; its citation-number is N. A URL that is not http, https or file is
// left out.
func CSLJSON(refs []Reference) ([]byte, error) {
	items := make([]cslItem, 0, len(refs))
	seen := map[int]bool{}
	for _, r := range refs {
		if seen[r.Number] {
			return nil, fmt.Errorf("bib: reference number %d appears twice", r.Number)
		}
		seen[r.Number] = true
		it := cslItem{
			ID:             fmt.Sprintf("ref-%d", r.Number),
			Type:           "webpage",
			CitationNumber: r.Number,
			Title:          title(r),
			DOI:            doiOf(r),
			Issued:         cslDateOf(issued(r)),
			Accessed:       cslDateOf(r.Accessed),
			Publisher:      clean(r.Publisher),
			ContainerTitle: clean(r.Container),
			Source:         clean(r.Channel),
		}
		for _, a := range authors(r) {
			a = Name{Family: clean(a.Family), Given: clean(a.Given), Literal: clean(a.Literal)}
			if a != (Name{}) {
				it.Author = append(it.Author, a)
			}
		}
		if link := canon.Link(r.URL); link != "" {
			it.URL = link
		}
		if kindOf(r) == local {
			it.Type = "document"
			it.ArchiveLocation = clean(localPath(r))
		}
		cslLocator(&it, r.Location, r.Locations)
		items = append(items, it)
	}
	return json.MarshalIndent(items, "", "  ")
}
