package extract

import (
	"net/url"
	"strings"
)

// maxURL bounds a declared URL, in bytes.
const maxURL = 2048

// DeclaredURL returns the URL a document declares for itself (front
// matter, a canonical link) in canonical string form, or "" when it is
// not one to show as the document's address: documents are untrusted, so
// only an absolute http or https URL with a host is taken — no
// javascript:, data: or file: URL, none with user information
// ("https://pkg.go.dev@evil.example"), control characters, spaces or more
// than 2 KiB.
func DeclaredURL(s string) string {
	if s == "" || len(s) > maxURL || Clean(s) != s || strings.ContainsAny(s, " \t\n\\") {
		return ""
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.User != nil || u.Opaque != "" {
		return ""
	}
	switch strings.ToLower(u.Scheme) {
	case "http", "https":
		u.Scheme = strings.ToLower(u.Scheme)
	default:
		return ""
	}
	return u.String()
}
