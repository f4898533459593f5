package corpus

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/deepresearch/deepresearch/internal/extract"
	"github.com/deepresearch/deepresearch/search"
)

var _ search.Resolver = (*Index)(nil)

// The kinds of names a document goes by (names.kind). Resolve prefers the
// lower: a reference that is a document's URL or path names that document
// before one that is another document's title, a title before an rst
// label, a label before a heading.
const (
	nameURL     = 0 // the http(s) URL the document declares
	namePath    = 1 // a trailing part of its path, without the extension: "admin-guide/cgroup-v2", "cgroup-v2"
	nameTitle   = 2
	nameLabel   = 3 // an rst label: ".. _cgroup-v2:", the target of :ref:
	nameHeading = 4
)

// Bounds of the names index: a document's headings and labels past these
// are not indexed, and a name longer than maxNameLen is not a name.
const (
	maxNamesPerKind = 200
	maxNameLen      = 200
)

// docName is one row of the names table.
type docName struct {
	name string
	kind int
}

// namesOf returns the names document id (a DocID) goes by: its declared
// URL, every trailing part of its path without the extension, its title,
// its rst labels and its headings, each normalised (normName), each once.
func namesOf(id string, doc *extract.Document, labels []string) []docName {
	var out []docName
	seen := map[docName]bool{}
	add := func(kind int, s string) {
		n := docName{normName(s), kind}
		if n.name != "" && len(n.name) <= maxNameLen && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	if doc.URL != "" {
		add(nameURL, normURL(doc.URL))
	}
	p := stripDocExt(id)
	for {
		add(namePath, p)
		i := strings.IndexByte(p, '/')
		if i < 0 {
			break
		}
		p = p[i+1:]
	}
	add(nameTitle, doc.Title)
	for i, l := range labels {
		if i == maxNamesPerKind {
			break
		}
		add(nameLabel, l)
	}
	for i, h := range doc.Headings() {
		if i == maxNamesPerKind {
			break
		}
		add(nameHeading, h)
	}
	return out
}

// rstLabelRe finds the labels of an rst document: ".. _cgroup-v2:" (the
// extracted text drops them, as link targets).
var rstLabelRe = regexp.MustCompile("(?m)^\\.\\. _([^:`\\n]{1,200}):[ \\t]*$")

// labelsOf returns the rst labels of a document's source, in order.
func labelsOf(f extract.Format, data []byte) []string {
	if f != extract.FormatRST {
		return nil
	}
	var out []string
	for _, m := range rstLabelRe.FindAllSubmatch(data, maxNamesPerKind) {
		out = append(out, string(m[1]))
	}
	return out
}

// normName is the form names are stored and looked up in: lower case,
// runs of spaces as one, surrounding punctuation, quotes and emphasis
// marks trimmed.
func normName(s string) string {
	s = strings.ToLower(strings.Join(strings.Fields(s), " "))
	return strings.TrimFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || strings.ContainsRune("\"'`*_“”‘’«».,;:!?()[]{}<>", r)
	})
}

// normURL is a URL as a name: without a trailing slash (normName lowers
// it all). A document's URL keeps its fragment: pages of one manual may
// declare one address each section ("…/cmd/go#hdr-Testing_flags").
func normURL(u string) string {
	return strings.TrimSuffix(u, "/")
}

// urlKeys are the names a URL reference may have in the index, best
// first: as written, then without its fragment and query.
func urlKeys(u string) []string {
	out := []string{normURL(u)}
	if i := strings.IndexAny(u, "#?"); i >= 0 {
		out = append(out, normURL(u[:i]))
	}
	return out
}

// stripDocExt removes a document extension (.rst, .md, .html, …) from
// the path p, with the ".gz" of a compressed one (.pdf.gz); another (the
// ".path" of "os.path") stays.
func stripDocExt(p string) string {
	if inner, ok := extract.Gzipped(p); ok {
		p = inner
	}
	if ext := path.Ext(p); ext != "" && extract.FormatOf(p) != extract.FormatNone {
		return strings.TrimSuffix(p, ext)
	}
	return p
}

// Resolve returns the document that ref names, as text read from document
// from (a DocID, or "" when the text comes from elsewhere) writes it: a
// link target or URL, a path, a title, an rst label or a heading. It
// looks ref up in the index of names Sync keeps (see namesOf):
//
//   - an http(s) URL: the document that declares it, with the fragment
//     first ("…/cmd/go#hdr-Testing_flags" is one section's page), then
//     without the fragment and query;
//   - a path ("../admin-guide/cgroup-v2.rst", "/userspace-api/spec_ctrl",
//     "Documentation/admin-guide/cgroup-v2.rst", a Markdown link's
//     target): relative to from's folder first, then from the corpus
//     root, then with its leading folders dropped one by one — hyphens,
//     dots and underscores are part of a path's names, and the document
//     extension is optional;
//   - anything else ("Control Groups", "cgroup-v2", "fmt"): a title, an rst
//     label, a heading, a file name, in that order.
//
// Where several documents go by the name, the nearest to from (the
// longest common folder) wins, then the first by path. A reference to
// from itself, a fragment ("#usage"), another scheme (mailto:,
// javascript:, file:) or an empty one names nothing. It returns
// search.ErrNotFound when no document goes by the name. Cost: one to a
// few indexed lookups.
func (ix *Index) Resolve(ctx context.Context, from, ref string) (string, error) {
	ref = strings.TrimSpace(ref)
	notFound := &Error{Op: "resolve", Subject: fmt.Sprintf("%q", ref), Err: search.ErrNotFound}
	if ref == "" || len(ref) > 1000 || strings.HasPrefix(ref, "#") {
		return "", notFound
	}
	from = strings.TrimPrefix(path.Clean("/"+from), "/")
	try := func(name string, kinds ...int) (string, error) {
		id, err := ix.lookup(ctx, from, normName(name), kinds)
		if err != nil {
			return "", ix.queryError(ctx, "resolve", ref, err)
		}
		return id, nil
	}
	var keys []string
	kinds := []int{namePath}
	switch scheme := schemeOf(ref); {
	case scheme == "http" || scheme == "https":
		keys, kinds = urlKeys(ref), []int{nameURL}
	case scheme != "":
		return "", notFound
	case strings.Contains(ref, "/") || extract.FormatOf(ref) != extract.FormatNone:
		keys = pathKeys(from, ref)
	default:
		keys, kinds = []string{ref}, []int{nameTitle, nameLabel, nameHeading, namePath}
	}
	for _, k := range keys {
		id, err := try(k, kinds...)
		if err != nil || id != "" {
			return id, err
		}
	}
	return "", notFound
}

// schemeOf is the lower-case scheme of a URL ("" for a path; a Windows
// drive letter is no scheme).
func schemeOf(ref string) string {
	i := strings.IndexByte(ref, ':')
	if i < 2 {
		return ""
	}
	s := ref[:i]
	for j, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || j > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.')) {
			return ""
		}
	}
	return strings.ToLower(s)
}

// pathKeys are the path names a path reference may have in the index,
// best first: relative to from's folder (unless it starts with "/"), from
// the root, then less each leading folder while two names are left.
func pathKeys(from, ref string) []string {
	if i := strings.IndexAny(ref, "#?"); i >= 0 {
		ref = ref[:i]
	}
	if ref == "" {
		return nil
	}
	var out []string
	add := func(p string) {
		p = stripDocExt(strings.TrimPrefix(path.Clean("/"+p), "/"))
		if p != "" && p != "." && !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	if !strings.HasPrefix(ref, "/") && from != "" {
		add(path.Join(path.Dir(from), ref))
	}
	// Leading folders are dropped while two names are left: "kernel/init"
	// is no reference to any "init".
	rooted := strings.TrimPrefix(path.Clean("/"+ref), "/")
	for p := rooted; p != ""; {
		add(p)
		i := strings.IndexByte(p, '/')
		if i < 0 || !strings.Contains(p[i+1:], "/") {
			break
		}
		p = p[i+1:]
	}
	return out
}

// lookup returns the document that goes by name under the first of kinds
// that any does; among several, the nearest to from (the one under the
// deepest of from's folders), then the first by path; "" when none does,
// or when from itself goes by it under that kind (a page's own title
// names no other page's heading). However many documents go by the name,
// each kind costs a query for any, one for from's own name and one for
// each of from's folders, deepest first, until one holds a document.
func (ix *Index) lookup(ctx context.Context, from, name string, kinds []int) (string, error) {
	if name == "" {
		return "", nil
	}
	const q = `SELECT d.path FROM names n JOIN docs d ON d.id = n.doc_id
		WHERE n.name = ? AND n.kind = ? AND (? = '' OR d.path >= ? AND d.path < ?) ORDER BY d.path LIMIT 1`
	// first is the first document by path under folder (a prefix ending
	// in "/", whose paths sort from it to it with '0', the byte after
	// '/', for its last byte; "" for the root) that goes by name under
	// kind.
	first := func(kind int, folder string) (string, error) {
		hi := ""
		if folder != "" {
			hi = folder[:len(folder)-1] + "0"
		}
		var p string
		err := ix.db.QueryRowContext(ctx, q, name, kind, folder, folder, hi).Scan(&p)
		if errors.Is(err, sql.ErrNoRows) {
			return "", nil
		}
		return p, err
	}
	var folders []string // from's folders, deepest first: "a/b/", "a/"
	for d := path.Dir(from); d != "." && d != "/" && d != ""; d = path.Dir(d) {
		folders = append(folders, d+"/")
	}
	for _, k := range kinds {
		best, err := first(k, "")
		if err != nil || best == "" {
			if err != nil {
				return "", err
			}
			continue
		}
		if from != "" {
			var self int
			err := ix.db.QueryRowContext(ctx, `SELECT 1 FROM names n JOIN docs d ON d.id = n.doc_id
				WHERE n.name = ? AND n.kind = ? AND d.path = ?`, name, k, from).Scan(&self)
			switch {
			case err == nil:
				return "", nil // the document's own name: it names itself
			case !errors.Is(err, sql.ErrNoRows):
				return "", err
			}
		}
		for _, f := range folders {
			p, err := first(k, f)
			if err != nil {
				return "", err
			}
			if p != "" {
				return p, nil
			}
		}
		return best, nil
	}
	return "", nil
}
