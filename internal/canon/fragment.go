package canon

import "strings"

// Fragments. A fragment names a place in a page, not a resource, so it is
// dropped, except where it addresses a different resource than the page
// alone:
//
//   - a hash route of a single-page application ("#/users/42", "#!/x"):
//     each route is a page of its own;
//   - a section of a documentation page, where each anchor documents a
//     different thing ("pkg.go.dev/os#Getwd" and "#ReadDir",
//     "docs.python.org/3/library/os.html#os.getcwd" and "#os.listdir").
//
// A page is a documentation page when a word of its host or of its path
// (words are split at '.', '-' and '_': "sphinx-doc.org", "doc.rust-lang.org",
// "/en/latest/", "/docs/api/") is one of docWords, or when it is an .html
// page whose fragment reads as an API identifier: a dotted or qualified
// name or a signature, as Sphinx, Javadoc and Rustdoc write them
// ("#os.getcwd", "#length()", "#method.push", "#std::vec"). The fragment
// must read as a section anchor: not empty, no '=' or '&' (state and
// tracking: "#t=30", "#access_token=…", "#xtor=RSS-1"), not a text
// fragment (":~:text=…" is dropped, and what precedes it judged alone), not
// one of the page's own landmarks ("#top", "#content", "#main"…), and at
// most maxAnchor bytes.

// docWords are the words of a host or path that mark documentation.
var docWords = map[string]bool{
	"doc": true, "docs": true, "documentation": true, "devdocs": true, "readthedocs": true,
	"reference": true, "ref": true, "manual": true, "manuals": true, "man": true, "handbook": true,
	"api": true, "apis": true, "apidocs": true, "javadoc": true, "javadocs": true, "rustdoc": true, "godoc": true,
	"pkg": true, "library": true, "stdlib": true, "spec": true, "specs": true, "specification": true,
	"guide": true, "guides": true, "developer": true, "developers": true,
}

// landmarks are fragments that address a page's own furniture, not a
// section of it.
var landmarks = map[string]bool{
	"top": true, "main": true, "content": true, "main-content": true, "maincontent": true,
	"skip": true, "skip-to-content": true, "nav": true, "navigation": true, "header": true,
	"footer": true, "start": true, "page": true, "body": true,
}

// maxAnchor bounds a kept fragment.
const maxAnchor = 256

// keepFragment returns the fragment, canonically encoded, that a canonical
// http(s) URL keeps, or "" (host and path are canonical; frag is as given,
// without its '#').
func keepFragment(host, path, frag string) string {
	if frag == "" {
		return ""
	}
	if frag[0] == '/' || frag[0] == '!' {
		return canonPercent(frag, canonFragRaw) // a hash route
	}
	frag = canonPercent(frag, canonFragRaw)
	if i := strings.Index(frag, ":~:"); i >= 0 {
		frag = frag[:i] // a fragment directive (a text fragment) addresses no section
	}
	if !sectionAnchor(frag) {
		return ""
	}
	if docPage(host, path) || (htmlPage(path) && apiAnchor(frag)) {
		return frag
	}
	return ""
}

// sectionAnchor reports whether the (canonically encoded) fragment reads
// as the id of a section.
func sectionAnchor(frag string) bool {
	if frag == "" || len(frag) > maxAnchor || strings.ContainsAny(frag, "=&") {
		return false
	}
	return !landmarks[strings.ToLower(frag)]
}

// docPage reports whether a word of host or path is a documentation word.
func docPage(host, path string) bool {
	return hasDocWord(host) || hasDocWord(path)
}

func hasDocWord(s string) bool {
	for s != "" {
		i := strings.IndexAny(s, "./-_")
		w := s
		if i >= 0 {
			w, s = s[:i], s[i+1:]
		} else {
			s = ""
		}
		if len(w) >= 3 && len(w) <= len("specification") && docWords[canonASCIILower(w)] {
			return true
		}
	}
	return false
}

func htmlPage(path string) bool {
	p := canonASCIILower(path)
	return strings.HasSuffix(p, ".html") || strings.HasSuffix(p, ".htm")
}

// apiAnchor reports whether frag reads as an API identifier: names joined
// by '.' or "::", or a signature with parentheses ("os.getcwd",
// "length()", "method.push", "std::vec").
func apiAnchor(frag string) bool {
	if !(frag[0] >= 'a' && frag[0] <= 'z' || frag[0] >= 'A' && frag[0] <= 'Z' || frag[0] == '_') {
		return false
	}
	dot := strings.Contains(frag, ".") || strings.Contains(frag, "::")
	paren := strings.Contains(frag, "(")
	return (dot && frag[len(frag)-1] != '.') || paren
}
