package canon

import (
	"net/url"
	"strings"
)

// Linkable reports whether raw may become a link a reader can follow: an
// absolute http or https URL with a host, or a file URL. Every renderer
// (markdown links, HTML href attributes, citation styles) asks this before
// linking; anything else (javascript:, data:, vbscript:, relative or
// malformed URLs) is shown as plain text. Text from models, the corpus and
// the web is untrusted, so this is a security boundary, not a nicety.
func Linkable(raw string) bool {
	if raw == "" || strings.ContainsFunc(raw, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return false
	}
	u, err := url.Parse(raw)
	if err != nil {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		return u.Host != "" && u.Opaque == ""
	case "file":
		return u.Opaque == "" && u.Path != ""
	}
	return false
}

// Link returns the URL under which raw may be linked for a reader: raw
// itself when it is Linkable; the canonical https form of a doi: or arxiv:
// identifier ("doi:10.1000/XYZ" links to https://doi.org/10.1000/xyz,
// "arxiv:2401.12345v2" to https://arxiv.org/abs/2401.12345), which is
// shown as text otherwise; "" for anything else.
func Link(raw string) string {
	if Linkable(raw) {
		return raw
	}
	s := strings.TrimSpace(raw)
	scheme, _, ok := strings.Cut(s, ":")
	if !ok || !(strings.EqualFold(scheme, "doi") || strings.EqualFold(scheme, "arxiv")) {
		return ""
	}
	c, err := Canonical(s)
	if err != nil || !Linkable(c) {
		return ""
	}
	return c
}
