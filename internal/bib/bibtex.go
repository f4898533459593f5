package bib

import (
	"fmt"
	"net/url"
	"path"
	"slices"
	"strings"
	"unicode"

	"github.com/deepresearch/deepresearch/internal/canon"
)

// BibTeX returns the references as BibTeX @misc entries, in the order
// given: title (braced, so styles keep its capitals), author, year, month,
// date (biblatex's ISO 8601 date, as precise as known), url and
// howpublished (\url{…}), urldate, doi, publisher, and a note naming
// where in the document the cited passage is ("p. 7"), a local document's
// path and the reference's number. Keys are built from
// the first author's family name (else the site's host, else "ref") and the
// year, made unique with a, b, c…; they are ASCII letters, digits and '-'.
//
// Field values are escaped for (La)TeX: \ { } $ & % # _ ^ ~ cannot end a
// field, open a group or switch modes. URLs are written raw (the url
// package and biblatex read them verbatim) with braces, backslashes and
// blanks percent-encoded; a URL that is not http, https or file is left out.
func BibTeX(refs []Reference) []byte {
	var b strings.Builder
	used := map[string]bool{}
	for i, r := range refs {
		if i > 0 {
			b.WriteByte('\n')
		}
		key := uniqueKey(baseKey(r), used)
		fmt.Fprintf(&b, "@misc{%s,\n", key)
		field := func(name, value string) {
			if value != "" {
				fmt.Fprintf(&b, "  %s = {%s},\n", name, value)
			}
		}
		field("title", "{"+texEscape(title(r))+"}")
		var names []string
		for _, a := range authors(r) {
			if s := bibName(a); s != "" {
				names = append(names, s)
			}
		}
		field("author", strings.Join(names, " and "))
		if d := issued(r); !d.IsZero() {
			field("year", fmt.Sprint(d.Year))
			if m := d.Month; m >= 1 && m <= 12 {
				field("month", months[m-1])
			}
			field("date", d.iso())
		}
		if canon.Linkable(r.URL) && kindOf(r) == web {
			u := urlEscape(r.URL)
			field("url", u)
			field("howpublished", `\url{`+u+`}`)
		}
		if !r.Accessed.IsZero() {
			field("urldate", r.Accessed.iso())
		}
		field("doi", urlEscape(doiOf(r)))
		field("publisher", texEscape(clean(r.Publisher)))
		field("journal", texEscape(clean(r.Container)))
		note := fmt.Sprintf("Reference [%d]", r.Number)
		if kindOf(r) == local {
			note = fmt.Sprintf("Local document %s; reference [%d]", texEscape(clean(localPath(r))), r.Number)
		}
		if where := bibLocation(r.Location, r.Locations); where != "" {
			note = texEscape(where) + "; " + note
		}
		field("note", note)
		b.WriteString("}\n")
	}
	return []byte(b.String())
}

var months = [12]string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}

func bibName(n Name) string {
	switch {
	case n.Literal != "":
		// Braces keep an organisation's name from being split.
		return "{" + texEscape(clean(n.Literal)) + "}"
	case n.Family != "" && n.Given != "":
		return namePart(n.Family) + ", " + namePart(n.Given)
	case n.Family != "":
		return namePart(n.Family)
	}
	return ""
}

// namePart is one part of a person's name, escaped, and braced when it
// holds what BibTeX reads as the structure of a name list (the word
// "and", in any case, or a comma), so that a name from untrusted
// metadata ("Doe, Jane and Evil Person") stays one author.
func namePart(s string) string {
	t := texEscape(clean(s))
	if strings.Contains(t, ",") || slices.ContainsFunc(strings.Fields(t), func(w string) bool { return strings.EqualFold(w, "and") }) {
		return "{" + t + "}"
	}
	return t
}

// baseKey is the key before de-duplication.
func baseKey(r Reference) string {
	var base string
	if as := authors(r); len(as) > 0 {
		base = as[0].Family
		if base == "" {
			base = as[0].Literal
		}
	}
	switch {
	case base != "":
	case kindOf(r) == local:
		p := path.Base(localPath(r))
		base = strings.TrimSuffix(p, path.Ext(p))
	default:
		if u, err := url.Parse(r.URL); err == nil {
			base = strings.TrimPrefix(u.Hostname(), "www.")
		}
	}
	var k strings.Builder
	for _, c := range strings.ToLower(base) {
		if c < 0x80 && (unicode.IsLetter(c) || unicode.IsDigit(c)) {
			k.WriteRune(c)
		}
	}
	key := k.String()
	if key == "" || !unicode.IsLetter(rune(key[0])) {
		key = "ref" + key
	}
	if len(key) > 24 {
		key = key[:24]
	}
	if d := issued(r); !d.IsZero() {
		key += fmt.Sprint(d.Year)
	}
	return key
}

func uniqueKey(base string, used map[string]bool) string {
	key := base
	for n := 0; used[key]; n++ {
		key = base + suffix(n)
	}
	used[key] = true
	return key
}

// suffix is a, b, …, z, aa, ab, …
func suffix(n int) string {
	s := ""
	for n >= 0 {
		s = string(rune('a'+n%26)) + s
		n = n/26 - 1
	}
	return s
}

var texReplacer = strings.NewReplacer(
	`\`, `\textbackslash{}`,
	`{`, `\{`,
	`}`, `\}`,
	`$`, `\$`,
	`&`, `\&`,
	`%`, `\%`,
	`#`, `\#`,
	`_`, `\_`,
	`^`, `\textasciicircum{}`,
	`~`, `\textasciitilde{}`,
)

// texEscape makes s safe inside a braced BibTeX field.
func texEscape(s string) string { return texReplacer.Replace(s) }

// urlEscape percent-encodes the characters a verbatim URL field cannot hold.
func urlEscape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '{' || c == '}' || c == '\\' || c == '%' && !isPercentEscape(s[i:]) || c <= ' ' || c == 0x7f:
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isPercentEscape(s string) bool {
	return len(s) >= 3 && isHex(s[1]) && isHex(s[2])
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
