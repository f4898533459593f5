package canon

import "strings"

// Repaired is the canonical form of an http or https URL that Canonical
// refuses but that a browser reads, by the WHATWG URL standard's leniency
// for these schemes, as a URL of one resource: the key under which it
// meets the well-formed URL of that resource. It returns "" when raw is
// not such a URL, and when Canonical accepts it (use Key then).
//
// The repairs are the standard's, and no other: ASCII tabs and line
// breaks anywhere are dropped, as are leading and trailing C0 controls
// and spaces; one pair of enclosing angle brackets or quotes (a URL
// quoted in prose, "<https://…>") is removed; and for a URL that opens
// with "http:" or "https:", backslashes before the query are slashes, and
// any number of slashes after the scheme ("https:/a.example/x",
// "https:a.example/x", "https:///a.example/x", "https:\\a.example\x")
// is two. A repair never changes a URL Canonical accepts, so two
// well-formed URLs never meet through it; a URL still refused after the
// repairs (no host, a space in the host) stays malformed.
func Repaired(raw string) string {
	if _, why := canonicalize(raw); why == "" {
		return ""
	}
	s := strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' || r == '\r' {
			return -1
		}
		return r
	}, raw)
	s = strings.TrimFunc(s, func(r rune) bool { return r <= ' ' })
	if len(s) >= 2 && (s[0] == '<' && s[len(s)-1] == '>' || s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		s = strings.TrimSpace(s[1 : len(s)-1])
	}
	scheme := ""
	for _, sc := range []string{"https:", "http:"} {
		if len(s) >= len(sc) && strings.EqualFold(s[:len(sc)], sc) {
			scheme = sc
		}
	}
	if scheme == "" {
		return "" // another scheme, or none: not repaired
	}
	rest := s[len(scheme):]
	end := strings.IndexAny(rest, "?#")
	if end < 0 {
		end = len(rest)
	}
	rest = strings.ReplaceAll(rest[:end], `\`, "/") + rest[end:]
	out, why := canonicalize(scheme + "//" + strings.TrimLeft(rest, "/"))
	if why != "" {
		return ""
	}
	return out
}

// Lenient is Key, or for a URL Key refuses, Repaired: the identity under
// which a merge meets a malformed URL with the well-formed URL of the
// same resource. It is "" when neither reads raw.
func Lenient(raw string) string {
	if k := Key(raw); k != "" {
		return k
	}
	return Repaired(raw)
}
