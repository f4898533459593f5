// Package mdtext writes untrusted strings — titles, link text, URLs from the
// corpus, the web, models and clients — into markdown so that a CommonMark
// renderer (GitHub's autolinks included) shows them as written: a title can
// open no link, emphasis, code span or HTML of its own, and a URL can end
// no link early nor become a link to anywhere else. It is the one escaper
// of every markdown renderer: reference lists (internal/finalreport),
// citation links (internal/citeproc), the MCP citation index's export.
// Pure; no I/O.
package mdtext

import (
	"strings"

	"github.com/deepresearch/deepresearch/internal/canon"
)

// Escape returns s as inline markdown text that renders as s: the
// backslash and every character that could start inline markdown (links,
// images, emphasis, code spans, strikethrough, autolinks, raw HTML) are
// escaped, entity references are broken, the starts of GFM's bare
// autolinks ("http://", "www.", "user@host") are escaped, and line breaks
// become spaces, so that s cannot leave the line it is written on. It is
// for text in the middle of a line (link text, a reference's title), not at
// its start, where "#" or "-" would begin a block.
func Escape(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\', '[', ']', '*', '_', '`', '~', '@':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '<':
			b.WriteString("&lt;")
		case '>':
			b.WriteString("&gt;")
		case '&':
			if entityAt(s[i+1:]) {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		case ':':
			if strings.HasPrefix(s[i+1:], "//") {
				b.WriteByte('\\') // "http\://" is no autolink
			}
			b.WriteByte(c)
		case '.':
			if i >= 3 && strings.EqualFold(s[i-3:i], "www") {
				b.WriteByte('\\') // nor is "www\.example.org"
			}
			b.WriteByte(c)
		case '\n', '\r':
			b.WriteByte(' ')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Destination returns u as the destination of an inline link,
// "[text](Destination(u))", which it cannot end early: spaces,
// parentheses, angle brackets and control characters are percent-encoded,
// a backslash is escaped (it would escape the next character), and an
// ampersand that would read as an entity reference is written as "&amp;".
func Destination(u string) string { return string(AppendDestination(nil, u)) }

// AppendDestination appends Destination(u) to b.
func AppendDestination(b []byte, u string) []byte {
	for k := 0; k < len(u); k++ {
		switch c := u[k]; {
		case c == ' ' || c == '(' || c == ')' || c == '<' || c == '>' || c < 0x20 || c == 0x7F:
			b = appendPercent(b, c)
		case c == '\\':
			b = append(b, '\\', '\\')
		case c == '&' && entityAt(u[k+1:]):
			b = append(b, "&amp;"...)
		default:
			b = append(b, c)
		}
	}
	return b
}

// Link returns "[Escape(text)](Destination(u))", or Escape(text) alone when
// u is not a URL a reader may follow (see canon.Linkable).
func Link(text, u string) string {
	if u = canon.Link(u); u == "" {
		return Escape(text)
	}
	return "[" + Escape(text) + "](" + Destination(u) + ")"
}

// URLText returns u to be shown as text, not as a link's destination (a
// plain reference line's "Title. URL"). A URL a reader may follow (see
// canon.Linkable) is percent-encoded wherever it holds a character a
// linkifier stops at or markdown reads (brackets outside an IPv6 host,
// parentheses, spaces, quotes, backslashes, non-ASCII…), and its host is
// lower-cased; when a renderer that links bare URLs (GFM) would link only
// a part of it (a host whose last label is not letters, credentials, a
// last character such as "." that linkifiers leave out), it is written as
// an autolink, "<URL>", whose destination is all of it. Any other string
// is escaped as text (Escape) and becomes no link at all.
func URLText(u string) string {
	if !canon.Linkable(u) {
		return Escape(u)
	}
	scheme, rest, _ := strings.Cut(u, ":")
	var b []byte
	b = append(b, strings.ToLower(scheme)...)
	b = append(b, ':')
	// The host ("//user@host:port") is lower-cased and keeps an IPv6
	// literal's brackets: they are the URL's syntax.
	hostStart, hostEnd := 0, 0
	if strings.HasPrefix(rest, "//") {
		hostEnd = 2 + strings.IndexAny(rest[2:]+"/", "/?#")
		hostStart = 2 + strings.LastIndexByte(rest[2:hostEnd], '@') + 1
	}
	for k := 0; k < len(rest); k++ {
		c := rest[k]
		switch {
		case k >= hostStart && k < hostEnd && (c == '[' || c == ']'):
			b = append(b, c)
		case k >= hostStart && k < hostEnd && c >= 'A' && c <= 'Z':
			b = append(b, c+'a'-'A')
		case urlTextRaw[c]:
			b = append(b, c)
		default:
			b = appendPercent(b, c)
		}
	}
	if !bareLinksWhole(string(b)) {
		return "<" + string(b) + ">"
	}
	return string(b)
}

// bareLinksWhole reports whether a GFM linkifier, finding t (URLText's
// encoding) in text, links either all of t or none of it: t is not http
// or https, or its host is a domain name ending in a label of letters,
// with no credentials before it and no empty port ("https://a.example:",
// which the linkifier ends before the colon), and t does not end in a
// character the linkifier leaves out of a link.
func bareLinksWhole(t string) bool {
	rest, ok := strings.CutPrefix(t, "http://")
	if !ok {
		if rest, ok = strings.CutPrefix(t, "https://"); !ok {
			return true // linkifiers link http, https, ftp and www. only
		}
	}
	authority := rest[:strings.IndexAny(rest+"/", "/?#")]
	host, port, hasPort := strings.Cut(authority, ":")
	if strings.ContainsRune(authority, '@') || len(host) > 200 || hasPort && (port == "" || strings.Trim(port, "0123456789") != "") {
		return false
	}
	labels := strings.Split(host, ".")
	if len(labels) < 2 || strings.Trim(labels[len(labels)-1], "abcdefghijklmnopqrstuvwxyz") != "" {
		return false
	}
	for _, l := range labels {
		if l == "" || strings.Trim(l, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
			return false
		}
	}
	return !strings.ContainsRune("?!.,:*_~;", rune(t[len(t)-1]))
}

// urlTextRaw are the bytes URLText leaves as they are: those of a URL that
// both CommonMark and GFM's autolinker read as plain text.
var urlTextRaw = func() (t [256]bool) {
	for _, c := range []byte("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~:/?#@!$&'+,;=%") {
		t[c] = true
	}
	return t
}()

func appendPercent(b []byte, c byte) []byte {
	const hex = "0123456789ABCDEF"
	return append(b, '%', hex[c>>4], hex[c&15])
}

// entityAt reports whether s, after a '&', reads as an entity reference:
// [#]alphanumerics then ';'.
func entityAt(s string) bool {
	k := 0
	if k < len(s) && s[k] == '#' {
		k++
	}
	start := k
	for k < len(s) && k-start < 32 && (s[k] >= '0' && s[k] <= '9' || s[k]|0x20 >= 'a' && s[k]|0x20 <= 'z') {
		k++
	}
	return k > start && k < len(s) && s[k] == ';'
}
