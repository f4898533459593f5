// Package canon decides what a URL is for the citation core: its canonical
// form, under which two URLs of one resource meet (Canonical, and Key, the
// func(string) string that citeproc.NewMapping and the merger take), and
// whether it may become a link a reader follows (Linkable).
//
// Canonical is an identity key for de-duplication, never a URL to show:
// sources keep the URL they were found under, and two sources are one
// citation number exactly when their keys are equal. Its rules (tracking
// parameters, hosts, paths, queries, fragments, and the sites with
// identifiers of their own: YouTube, arXiv, DOI, GitHub) are listed on
// Canonical. It never panics, is idempotent, and costs about 250 ns and
// one allocation per URL; a URL it cannot read is an error wrapping
// ErrMalformedURL, whose text says why.
//
// Linkable is a security boundary: text from models, the corpus and the
// web is untrusted, so every renderer asks it before writing a link, and a
// javascript:, data: or relative URL is shown as text.
//
// The package is pure: no I/O, no state, safe for concurrent use.
package canon
