// Package bib exports a report's reference list in the formats people paste
// into other tools: CSL-JSON (Zotero, Pandoc, citeproc-js) and BibTeX
// (LaTeX). It is pure: references in, bytes out.
//
// A web page becomes a CSL "webpage" / BibTeX @misc with its URL; a local
// document (source.KindLocal: a file: URL, or channel "corpus") a CSL
// "document" with its path as the archive location; a source whose URL is
// a DOI link carries the DOI. Authors and dates are written when the
// reference has them: its issued date is Reference.Issued, else the
// source's own publication date, else its modification date (a web page's
// last update, a local file's modification time).
package bib

import (
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode"

	"github.com/deepresearch/deepresearch/internal/sourcetext"
	"github.com/deepresearch/deepresearch/source"
)

// Name is an author's name: Family and Given, or Literal for an
// organisation or a name that does not split.
type Name struct {
	Family  string `json:"family,omitempty"`
	Given   string `json:"given,omitempty"`
	Literal string `json:"literal,omitempty"`
}

// Date is a calendar date; a zero Month or Day is unknown, a zero Year the
// whole date.
type Date struct {
	Year, Month, Day int
}

// IsZero reports whether the date is unknown.
func (d Date) IsZero() bool { return d.Year == 0 }

// Reference is one entry of a reference list: the number the report cites
// it by, the source, and what else is known of it.
type Reference struct {
	Number int
	source.Source
	// Authors are the document's authors; nil is the source's own
	// (Source.Author, read by NamesOf).
	Authors []Name
	// Issued is the publication date (zero: the source's, see issued);
	// Accessed when it was retrieved.
	Issued, Accessed Date
	// Publisher is the site or publisher ("The Go Authors"); Container the
	// journal, book or site name it appeared in.
	Publisher, Container string
	// DOI, when not given, is taken from a doi.org URL.
	DOI string
	// Locations are the pages, rows or slides the report cites the
	// document at, when more than one (Source.Location is the first).
	Locations []source.Location
}

// kind says how a reference is displayed and exported.
type kind int

const (
	web kind = iota
	local
)

func kindOf(r Reference) kind {
	if r.Source.Kind() == source.KindLocal {
		return local
	}
	return web
}

// issued is the reference's date: Issued, else the source's publication
// date, else its modification date; zero when none is known.
func issued(r Reference) Date {
	if !r.Issued.IsZero() {
		return r.Issued
	}
	for _, iso := range []string{r.Published, r.Modified} {
		if d := DateOf(iso); !d.IsZero() {
			return d
		}
	}
	return Date{}
}

// DateOf is the calendar date of an ISO 8601 date or time
// ("2024-03-15", "2024-03-15T10:00:00Z"; see sourcetext.ParseDate); zero
// when iso is not one.
func DateOf(iso string) Date {
	day := sourcetext.Day(iso)
	if day == "" {
		return Date{}
	}
	t, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return Date{}
	}
	return Date{Year: t.Year(), Month: int(t.Month()), Day: t.Day()}
}

// authors are the reference's authors: Authors, else its source's.
func authors(r Reference) []Name {
	if r.Authors != nil {
		return r.Authors
	}
	return NamesOf(r.Source.Author)
}

// NamesOf reads a source's Author (names separated by "; ") as names: a
// list of people separated by commas ("Jane Doe, John Roe") is each of
// them; one written "Family, Given" is split there; one of two to four words, each
// a capitalised word of letters (a hyphen, an apostrophe or a final dot
// allowed: "Jean-Luc O'Neil", "J. Doe"), is a given name then a family
// name; any other (an organisation, "The Go Authors", "staff@example.org")
// is a literal, as CSL keeps what does not split.
func NamesOf(author string) []Name {
	var out []Name
	for _, a := range (source.Source{Author: author}).Authors() {
		if people := commaList(a); people != nil {
			for _, words := range people {
				out = append(out, Name{Family: words[len(words)-1], Given: strings.Join(words[:len(words)-1], " ")})
			}
			continue
		}
		if family, given, ok := strings.Cut(a, ","); ok && strings.TrimSpace(family) != "" && strings.TrimSpace(given) != "" && !strings.Contains(given, ",") {
			out = append(out, Name{Family: strings.TrimSpace(family), Given: strings.TrimSpace(given)})
			continue
		}
		words := strings.Fields(a)
		if len(words) >= 2 && len(words) <= 4 && personal(words) {
			out = append(out, Name{Family: words[len(words)-1], Given: strings.Join(words[:len(words)-1], " ")})
			continue
		}
		out = append(out, Name{Literal: a})
	}
	return out
}

// commaList splits a, when it lists people with commas ("Jane Doe, John
// Roe"): two or more parts, each a person's name of two to four words
// (personal); nil otherwise ("Curie, Marie" is one name, family first).
func commaList(a string) [][]string {
	parts := strings.Split(a, ",")
	if len(parts) < 2 {
		return nil
	}
	var out [][]string
	for _, p := range parts {
		words := strings.Fields(p)
		if len(words) < 2 || len(words) > 4 || !personal(words) {
			return nil
		}
		out = append(out, words)
	}
	return out
}

// personal reports whether words look like a person's name: each starts
// with an upper-case letter and holds only letters, hyphens, apostrophes
// and a final dot; "The", "Inc." and the like are not.
func personal(words []string) bool {
	for i, w := range words {
		r := []rune(w)
		if !unicode.IsUpper(r[0]) || i == 0 && (w == "The" || w == "A") {
			return false
		}
		for j, c := range r {
			if !unicode.IsLetter(c) && c != '-' && c != '\'' && c != '’' && !(c == '.' && j == len(r)-1) {
				return false
			}
		}
		switch strings.ToLower(strings.TrimSuffix(w, ".")) {
		case "inc", "ltd", "llc", "gmbh", "team", "staff", "authors", "editors", "foundation", "group", "news":
			return false
		}
	}
	return true
}

// doiOf returns the reference's DOI: given, or the path of a doi.org URL.
func doiOf(r Reference) string {
	if r.DOI != "" {
		return clean(r.DOI)
	}
	u, err := url.Parse(r.URL)
	if err != nil {
		return ""
	}
	switch strings.ToLower(u.Hostname()) {
	case "doi.org", "dx.doi.org", "www.doi.org":
		d := strings.TrimPrefix(u.Path, "/")
		if strings.HasPrefix(d, "10.") && strings.Contains(d, "/") {
			return clean(d)
		}
	}
	return ""
}

// localPath is a local document's path: its file: URL's path, or its ID.
func localPath(r Reference) string {
	if u, err := url.Parse(r.URL); err == nil && strings.EqualFold(u.Scheme, "file") {
		if u.Path != "" {
			return u.Path
		}
		return u.Opaque
	}
	return r.ID
}

// title is the reference's title, or a stand-in.
func title(r Reference) string {
	if t := clean(r.Title); t != "" {
		return t
	}
	if kindOf(r) == local {
		return clean(localPath(r))
	}
	if t := clean(r.URL); t != "" {
		return t
	}
	return clean(r.ID)
}

// clean drops control characters and collapses blanks: titles come from
// the web.
func clean(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) && !unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

func (d Date) parts() []int {
	p := []int{d.Year}
	if d.Month > 0 {
		p = append(p, d.Month)
		if d.Day > 0 {
			p = append(p, d.Day)
		}
	}
	return p
}

func (d Date) iso() string {
	switch {
	case d.Month == 0:
		return fmt.Sprintf("%04d", d.Year)
	case d.Day == 0:
		return fmt.Sprintf("%04d-%02d", d.Year, d.Month)
	}
	return fmt.Sprintf("%04d-%02d-%02d", d.Year, d.Month, d.Day)
}
