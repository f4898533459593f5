package eval

import (
	"bufio"
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/sourcegraph/conc/pool"

	"github.com/deepresearch/deepresearch/internal/corpus"
	"github.com/deepresearch/deepresearch/internal/godoc"
)

// CorpusStats says what a corpus's Write wrote.
type CorpusStats struct {
	Packages int // the Go corpus: package documents written under pkg/
	Docs     int // other documents: files copied or written
	Bytes    int64
}

// WriteCorpus writes the Go evaluation corpus into dir: the Go
// distribution's documentation as the default corpus has it (see
// godoc.Write): pkg/<import path>.md for each standard-library package,
// with its examples; cmd/go/<topic>.md for the go command's help; a copy
// of goroot/doc under doc/. A document's ID in the corpus index is its
// path under dir, such as "pkg/sync.md" or "doc/go_mem.html".
func WriteCorpus(ctx context.Context, goroot, dir string) (CorpusStats, error) {
	st, err := godoc.Write(ctx, goroot, dir)
	return CorpusStats{Packages: st.Packages, Docs: st.Commands + st.Docs, Bytes: st.Bytes}, err
}

// ErrMissing reports that the files an evaluation corpus is made from are
// not installed (a Debian package is missing).
var ErrMissing = errors.New("eval: corpus source not installed")

// Corpus is one evaluation corpus: where its documents come from and the
// questions asked of it.
type Corpus struct {
	// Name is short and stable: "go", "foldoc", "python", "manpages",
	// "postgresql", "linux-doc", "git-doc", "sqlite", "nodejs".
	Name string
	// Questions is the questions file, relative to testdata/eval.
	Questions string
	// MoreQuestions are further question sets over the same documents,
	// each evaluated and reported on its own.
	MoreQuestions []string
	// Packages are the Debian packages its source comes from; "" for the
	// Go distribution.
	Packages []string
	// HeldOut marks the corpus kept out of tuning: its per-question
	// results were not looked at while thresholds were chosen.
	HeldOut bool
	// Write writes the corpus's documents into dir. It fails with
	// ErrMissing when the source is not installed.
	Write func(ctx context.Context, dir string) (CorpusStats, error)
}

// Corpora are the evaluation corpora, none written by the team: the Go
// standard library's documentation, FOLDOC (the Free On-line Dictionary
// of Computing, one file per entry), Python's documentation (HTML), the
// Linux manual pages (rendered to text) and PostgreSQL's documentation
// (HTML, held out of tuning), and two corpora of long technical pages
// whose questions carry answer keys: part of the Linux kernel's
// documentation (reStructuredText) and git's documentation (HTML, held
// out of tuning), SQLite's documentation (HTML, keyed, held out of all
// tuning: its figures are reported as first measured) and Node.js's API
// documentation (HTML, keyed, held out of all tuning in the same way:
// its questions and keys were written from the pages before any research
// or search ran on it). The standard
// library's documentation is asked two question sets: the team's and a
// newcomer's (NewcomerQuestions).
func Corpora() []Corpus { return CorporaFrom(Sources{}) }

// Sources says where the corpora whose source may lie elsewhere than its
// Debian package puts it are read from; a zero field is the package's
// place.
type Sources struct {
	// NodeDocs is the folder of Node.js's API pages; "" is NodeDocs.
	NodeDocs string
}

// CorporaFrom is Corpora with their sources read from s.
func CorporaFrom(s Sources) []Corpus {
	nodeDocs := cmp.Or(s.NodeDocs, NodeDocs)
	return []Corpus{
		{Name: "go", Questions: "questions.json", MoreQuestions: []string{NewcomerQuestions},
			Write: func(ctx context.Context, dir string) (CorpusStats, error) {
				root, err := corpus.GoRoot(ctx)
				if err != nil {
					return CorpusStats{}, err
				}
				return WriteCorpus(ctx, root, dir)
			}},
		{Name: "foldoc", Questions: "foldoc.json", Packages: []string{"dict-foldoc"},
			Write: func(ctx context.Context, dir string) (CorpusStats, error) {
				return WriteFOLDOC(ctx, "/usr/share/dictd/foldoc", dir)
			}},
		{Name: "python", Questions: "python.json", Packages: []string{"python3-doc"},
			Write: func(ctx context.Context, dir string) (CorpusStats, error) {
				return WritePythonDocs(ctx, "/usr/share/doc/python3-doc/html", dir)
			}},
		{Name: "manpages", Questions: "manpages.json", Packages: []string{"manpages", "manpages-dev", "mandoc"},
			Write: func(ctx context.Context, dir string) (CorpusStats, error) {
				return WriteManPages(ctx, "/var/lib/dpkg/info", []string{"manpages", "manpages-dev"}, dir)
			}},
		{Name: "postgresql", Questions: "postgresql.json", Packages: []string{"postgresql-doc"}, HeldOut: true,
			Write: func(ctx context.Context, dir string) (CorpusStats, error) {
				return WritePostgresDocs(ctx, postgresDocs(), dir)
			}},
		{Name: "linux-doc", Questions: "linuxdoc.json", Packages: []string{"linux-doc"},
			Write: func(ctx context.Context, dir string) (CorpusStats, error) {
				return WriteLinuxDocs(ctx, "/usr/share/doc/linux-doc/Documentation", dir)
			}},
		{Name: "git-doc", Questions: "gitdoc.json", Packages: []string{"git-doc"}, HeldOut: true,
			Write: func(ctx context.Context, dir string) (CorpusStats, error) {
				return WriteGitDocs(ctx, "/usr/share/doc/git-doc", dir)
			}},
		{Name: "sqlite", Questions: "sqlite.json", Packages: []string{"sqlite3-doc"}, HeldOut: true,
			Write: func(ctx context.Context, dir string) (CorpusStats, error) {
				return WriteSQLiteDocs(ctx, SQLiteDocs, dir)
			}},
		{Name: "nodejs", Questions: "nodejs.json", Packages: []string{"nodejs-doc"}, HeldOut: true,
			Write: func(ctx context.Context, dir string) (CorpusStats, error) {
				return WriteNodeDocs(ctx, nodeDocs, dir)
			}},
	}
}

// NewcomerQuestions is the second question set of the "go" corpus:
// what a person new to Go asks, answered by the standard library's
// documentation and the go command's.
const NewcomerQuestions = "newcomer.json"

// LinuxDocParts are the parts of the kernel's Documentation folder the
// linux-doc corpus holds: the administrator's guide, the filesystems,
// the user-space API and the development process, without the two
// folders of media-device pages (a fifth of the words, each page a
// struct or an ioctl of one API).
var LinuxDocParts = []string{"admin-guide", "filesystems", "userspace-api", "process"}

// WriteLinuxDocs writes the reStructuredText and text pages of the
// LinuxDocParts of the kernel's Documentation (Debian's linux-doc, which
// gzips most of them) into dir, uncompressed, keeping their paths:
// "admin-guide/sysctl/vm.rst". Folders named "media" are left out.
func WriteLinuxDocs(ctx context.Context, root, dir string) (CorpusStats, error) {
	var st CorpusStats
	if _, err := os.Stat(filepath.Join(root, "admin-guide")); err != nil {
		return st, fmt.Errorf("%w: %s (Debian package linux-doc)", ErrMissing, root)
	}
	for _, part := range LinuxDocParts {
		err := filepath.WalkDir(filepath.Join(root, part), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			if d.IsDir() {
				if d.Name() == "media" {
					return filepath.SkipDir
				}
				return nil
			}
			rel, _ := filepath.Rel(root, path)
			gz := strings.HasSuffix(rel, ".gz")
			rel = strings.TrimSuffix(rel, ".gz")
			if ext := filepath.Ext(rel); ext != ".rst" && ext != ".txt" {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if gz {
				zr, err := gzip.NewReader(bytes.NewReader(b))
				if err != nil {
					return fmt.Errorf("%s: %w", path, err)
				}
				if b, err = io.ReadAll(zr); err != nil {
					return fmt.Errorf("%s: %w", path, err)
				}
			}
			out := filepath.Join(dir, rel)
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return err
			}
			st.Docs++
			st.Bytes += int64(len(b))
			return os.WriteFile(out, b, 0o644)
		})
		if err != nil {
			return st, fmt.Errorf("eval: linux-doc: %w", err)
		}
	}
	return st, nil
}

// WriteGitDocs copies the HTML pages of git's documentation (Debian's
// git-doc: the manual pages of every command, the guides such as
// gittutorial and the user manual, the how-tos and the technical
// documents) into dir, keeping their paths: "git-rebase.html",
// "howto/revert-a-faulty-merge.html".
func WriteGitDocs(ctx context.Context, root, dir string) (CorpusStats, error) {
	if _, err := os.Stat(filepath.Join(root, "git.html")); err != nil {
		return CorpusStats{}, fmt.Errorf("%w: %s (Debian package git-doc)", ErrMissing, root)
	}
	return copyFiles(ctx, root, dir, []string{"."}, ".html")
}

// WriteFOLDOC writes one plain-text file per entry of a dictd dictionary
// (base.index and base.dict.dz, as Debian's dict-foldoc installs them)
// into dir: the entry's text exactly as the dictionary holds it (the
// headword, then the indented definition), named after its first
// headword, so the file name is the document's title. Headwords that
// share one entry (synonyms) make one file. The dictionary's own
// "00-database" entries are left out.
func WriteFOLDOC(ctx context.Context, base, dir string) (CorpusStats, error) {
	var st CorpusStats
	idx, err := os.ReadFile(base + ".index")
	if errors.Is(err, fs.ErrNotExist) {
		return st, fmt.Errorf("%w: %s (Debian package dict-foldoc)", ErrMissing, base+".index")
	}
	if err != nil {
		return st, fmt.Errorf("eval: foldoc: %w", err)
	}
	f, err := os.Open(base + ".dict.dz")
	if err != nil {
		return st, fmt.Errorf("eval: foldoc: %w", err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f) // dictzip is gzip with a seek table
	if err != nil {
		return st, fmt.Errorf("eval: foldoc: %s.dict.dz: %w", base, err)
	}
	data, err := io.ReadAll(zr)
	if err != nil {
		return st, fmt.Errorf("eval: foldoc: %s.dict.dz: %w", base, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return st, err
	}
	written := map[[2]int]bool{}
	names := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(idx))
	line := 0
	for sc.Scan() {
		line++
		if ctx.Err() != nil {
			return st, context.Cause(ctx)
		}
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) < 3 {
			continue
		}
		head := fields[0]
		off, err1 := dictNumber(fields[1])
		n, err2 := dictNumber(fields[2])
		if err1 != nil || err2 != nil || off < 0 || n <= 0 || off+n > len(data) {
			return st, fmt.Errorf("eval: foldoc: %s.index line %d: bad offset or length", base, line)
		}
		if strings.HasPrefix(head, "00-database") || strings.HasPrefix(head, "00database") || written[[2]int{off, n}] {
			continue
		}
		written[[2]int{off, n}] = true
		text := data[off : off+n]
		// The entry's own first line is its headword; the index lists
		// its synonyms too, in alphabetical order.
		first, _, _ := bytes.Cut(text, []byte("\n"))
		name := cmp.Or(fileName(string(first)), fileName(head))
		if name == "" {
			continue
		}
		base := name
		for k := 2; names[strings.ToLower(name)]; k++ {
			name = fmt.Sprintf("%s (%d)", base, k)
		}
		names[strings.ToLower(name)] = true
		if err := os.WriteFile(filepath.Join(dir, name+".txt"), text, 0o644); err != nil {
			return st, fmt.Errorf("eval: foldoc: %w", err)
		}
		st.Docs++
		st.Bytes += int64(len(text))
	}
	return st, sc.Err()
}

// dictNumber decodes a dictd index number (base 64, most significant digit
// first).
func dictNumber(s string) (int, error) {
	const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	n := 0
	for _, c := range s {
		d := strings.IndexRune(digits, c)
		if d < 0 {
			return 0, fmt.Errorf("bad digit %q", c)
		}
		n = n*64 + d
	}
	return n, nil
}

// fileName makes a headword a file name: path separators, control
// characters and a leading dot replaced, cut to 100 bytes.
func fileName(s string) string {
	s = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || unicode.IsControl(r) {
			return '_'
		}
		return r
	}, strings.TrimSpace(s))
	if strings.HasPrefix(s, ".") {
		s = "_" + s[1:]
	}
	for len(s) > 100 {
		_, size := utf8LastRune(s)
		s = s[:len(s)-size]
	}
	return s
}

func utf8LastRune(s string) (rune, int) {
	for i := len(s) - 1; i >= 0; i-- {
		if s[i]&0xC0 != 0x80 {
			return rune(s[i]), len(s) - i
		}
	}
	return 0, 1
}

// WritePythonDocs copies the HTML pages of Python's documentation
// (Debian's python3-doc: the library reference, the language reference,
// the tutorial, the HOWTOs, the FAQs and the glossary) into dir, keeping
// their paths: "library/functools.html".
func WritePythonDocs(ctx context.Context, html, dir string) (CorpusStats, error) {
	if _, err := os.Stat(filepath.Join(html, "library")); err != nil {
		return CorpusStats{}, fmt.Errorf("%w: %s (Debian package python3-doc)", ErrMissing, html)
	}
	return copyFiles(ctx, html, dir, []string{"library", "reference", "tutorial", "howto", "faq", "glossary.html"}, ".html")
}

// postgresDocs returns the HTML folder of the newest PostgreSQL
// documentation installed (postgresql-doc depends on postgresql-doc-N),
// or the folder of version 15 when none is.
func postgresDocs() string {
	dirs, _ := filepath.Glob("/usr/share/doc/postgresql-doc-*/html")
	if len(dirs) == 0 {
		return "/usr/share/doc/postgresql-doc-15/html"
	}
	slices.SortFunc(dirs, func(a, b string) int { return cmp.Compare(pgVersion(a), pgVersion(b)) })
	return dirs[len(dirs)-1]
}

func pgVersion(dir string) int {
	v, _ := strconv.Atoi(strings.TrimPrefix(filepath.Base(filepath.Dir(dir)), "postgresql-doc-"))
	return v
}

// WritePostgresDocs copies the HTML pages of PostgreSQL's documentation
// (Debian's postgresql-doc) into dir.
func WritePostgresDocs(ctx context.Context, html, dir string) (CorpusStats, error) {
	if _, err := os.Stat(filepath.Join(html, "index.html")); err != nil {
		return CorpusStats{}, fmt.Errorf("%w: %s (Debian package postgresql-doc)", ErrMissing, html)
	}
	return copyFiles(ctx, html, dir, []string{"."}, ".html")
}

// SQLiteDocs is where Debian's sqlite3-doc installs SQLite's
// documentation.
const SQLiteDocs = "/usr/share/doc/sqlite3"

// sqliteSkipped are the pages of SQLite's documentation that are not
// written: navigation and index pages that hold no content of their own
// (the documentation's lists of pages, the site map, the keyword index
// and its cross references; the C interface's and the session module's
// lists of functions, constants and objects; the lists of syntax
// diagrams, which are drawings), and the two pages that hold many others
// over again on one page (capi3ref.html holds every page of c3ref/,
// changes.html every release's page of releaselog/).
var sqliteSkipped = map[string]bool{
	"docs.html": true, "doclist.html": true, "sitemap.html": true, "keyword_index.html": true,
	"doc_backlink_crossref.html": true, "doc_keyword_crossref.html": true,
	"doc_pagelink_crossref.html": true, "doc_target_crossref.html": true,
	"syntax.html": true, "syntaxdiagrams.html": true,
	"c3ref/funclist.html": true, "c3ref/constlist.html": true, "c3ref/objlist.html": true,
	"session/funclist.html": true, "session/constlist.html": true, "session/objlist.html": true,
	"capi3ref.html": true, "changes.html": true,
}

// WriteSQLiteDocs writes the HTML pages of SQLite's documentation
// (Debian's sqlite3-doc, root being SQLiteDocs: the SQL language, the
// pragmas, the C interface under c3ref/, the session extension under
// session/, each release's notes under releaselog/, and the articles on
// the file format, locking, WAL, the query planner and the rest) into
// dir, keeping their paths, which are their paths on sqlite.org too:
// "lang_select.html", "c3ref/open.html". A page keeps its <title> as its
// title. The website's header that opens every page — the logo, the
// menu, the search form and the menu's scripts — is cut out, as it is
// the same on every page and none of its content. Navigation and index
// pages, the syntax diagrams (syntax/, drawings named by their rule) and
// the two one-page copies of other pages are left out (sqliteSkipped).
// The same source always gives the same files.
func WriteSQLiteDocs(ctx context.Context, root, dir string) (CorpusStats, error) {
	return writeHTMLDocs(ctx, root, dir, "lang_select.html", "sqlite3-doc", func(rel string) bool {
		return !strings.HasPrefix(rel, "syntax/") && !sqliteSkipped[rel]
	}, sqliteContent)
}

// writeHTMLDocs writes the HTML pages under root that keep accepts (by
// their slash-separated path relative to root) into dir through convert,
// once root is known to hold marker, a page every version of the
// documentation has: without it, the Debian package pkg is not installed
// (ErrMissing).
func writeHTMLDocs(ctx context.Context, root, dir, marker, pkg string, keep func(rel string) bool, convert func([]byte) []byte) (CorpusStats, error) {
	if _, err := os.Stat(filepath.Join(root, marker)); err != nil {
		return CorpusStats{}, fmt.Errorf("%w: %s (Debian package %s)", ErrMissing, root, pkg)
	}
	return writeFiles(ctx, root, dir, []string{"."}, func(rel string) bool {
		rel = filepath.ToSlash(rel)
		return strings.HasSuffix(rel, ".html") && keep(rel)
	}, convert)
}

// sqliteContent cuts the website's header out of a page of SQLite's
// documentation: from the first <div class=nosearch> (the logo, the
// menu and the search form) to the end of the first script after it
// (the menu's). A page without that header, or whose header holds a
// heading or a paragraph, is returned as it is.
func sqliteContent(page []byte) []byte {
	return cutSpan(page, "<div class=nosearch>", "</script>", false, func(header []byte) bool {
		return bytes.Contains(header, []byte("<h1")) || bytes.Contains(header, []byte("<p>"))
	})
}

// cutSpan cuts out of page the span from the first open to the first end
// after it, end included unless keepEnd; page is returned as it is when
// either is missing or the span holdsContent.
func cutSpan(page []byte, open, end string, keepEnd bool, holdsContent func(span []byte) bool) []byte {
	i := bytes.Index(page, []byte(open))
	if i < 0 {
		return page
	}
	j := bytes.Index(page[i:], []byte(end))
	if j < 0 {
		return page
	}
	j += i
	if !keepEnd {
		j += len(end)
	}
	if holdsContent(page[i:j]) {
		return page
	}
	return slices.Concat(page[:i], page[j:])
}

// NodeDocs is where Debian's nodejs-doc installs Node.js's API
// documentation; NodeDocsEnv is the environment variable the evaluation's
// front ends (its tests, the eval command) read Sources.NodeDocs from: the
// same folder of an unpacked copy of the package (`dpkg-deb -x`), for a
// machine that cannot install it — it conflicts with NodeSource's nodejs,
// whose node and npm installing it removes (.ci/run unpacks it).
const (
	NodeDocs    = "/usr/share/doc/nodejs/api"
	NodeDocsEnv = "EVAL_NODEJS_DOCS"
)

// nodeSkipped are the pages of Node.js's API documentation that are not
// written: all.html holds every other page over again on one page, and
// index.html is the list of pages.
var nodeSkipped = map[string]bool{"all.html": true, "index.html": true}

// WriteNodeDocs writes the HTML pages of Node.js's API documentation
// (Debian's nodejs-doc, root being NodeDocs: one page per module, such as
// "fs.html", "child_process.html", "stream.html", and the pages on the
// command line, the module systems, errors, globals and the test runner)
// into dir, keeping their names, which are their names on nodejs.org
// too. A page keeps its <title> ("File system | Node.js v18.20.4
// Documentation") as its title, its own table of contents and its
// content. The navigation every page repeats is cut out (nodeContent):
// the side column listing every module, and the page header (the
// documentation's name and version, the theme button, and the pickers:
// a copy of the page's table of contents, the list of every module again,
// the links to other versions, the options). The one-page copy all.html,
// the list of pages index.html, the assets/ folder (style sheets, a
// script) and the .json.gz and .md.gz forms of the pages are left out.
// The same source always gives the same files.
func WriteNodeDocs(ctx context.Context, root, dir string) (CorpusStats, error) {
	return writeHTMLDocs(ctx, root, dir, "fs.html", "nodejs-doc, or "+NodeDocsEnv+" naming its unpacked api folder", func(rel string) bool {
		return !strings.Contains(rel, "/") && !nodeSkipped[rel]
	}, nodeContent)
}

// nodeContent cuts the navigation out of a page of Node.js's API
// documentation: the side column, from `<div id="column2"` to the
// `<div id="column1"` that follows it (the page's content column, kept),
// and the content column's header, from the first `<header
// class="header">` to its `</header>`. Each part is cut only
// when it is found whole and holds no paragraph and not the page's
// content (`id="apicontent"`); a page without them is returned as it is.
func nodeContent(page []byte) []byte {
	holdsContent := func(b []byte) bool {
		return bytes.Contains(b, []byte("<p>")) || bytes.Contains(b, []byte(`id="apicontent"`))
	}
	page = cutSpan(page, `<div id="column2"`, `<div id="column1"`, true, holdsContent)
	return cutSpan(page, `<header class="header">`, `</header>`, false, holdsContent)
}

// copyFiles copies the files whose names end in ext ("" for all) under
// the given parts of root (folders or files) into dir, keeping their
// paths relative to root.
func copyFiles(ctx context.Context, root, dir string, parts []string, ext string) (CorpusStats, error) {
	return writeFiles(ctx, root, dir, parts, func(rel string) bool { return strings.HasSuffix(rel, ext) }, nil)
}

// writeFiles writes the files under the given parts of root (folders or
// files) that keep accepts (by their path relative to root) into dir,
// keeping their paths relative to root, each through convert (nil:
// copied as it is).
func writeFiles(ctx context.Context, root, dir string, parts []string, keep func(rel string) bool, convert func([]byte) []byte) (CorpusStats, error) {
	var st CorpusStats
	root, err := filepath.EvalSymlinks(root)
	if err != nil {
		return st, fmt.Errorf("eval: %w", err)
	}
	for _, part := range parts {
		err := filepath.WalkDir(filepath.Join(root, part), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if ctx.Err() != nil {
				return context.Cause(ctx)
			}
			if d.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(root, path)
			if !keep(rel) {
				return nil
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			if convert != nil {
				b = convert(b)
			}
			out := filepath.Join(dir, rel)
			if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
				return err
			}
			st.Docs++
			st.Bytes += int64(len(b))
			return os.WriteFile(out, b, 0o644)
		})
		if err != nil {
			return st, fmt.Errorf("eval: copy %s: %w", filepath.Join(root, part), err)
		}
	}
	return st, nil
}

// WriteManPages renders the manual pages of sections 2 to 7 that the
// given Debian packages install (their file lists are read from dpkgInfo,
// /var/lib/dpkg/info) to plain text with mandoc, one file per page,
// "man2/fork.2.txt". Pages that only include another (".so") are left
// out, as man shows the page they name.
func WriteManPages(ctx context.Context, dpkgInfo string, packages []string, dir string) (CorpusStats, error) {
	var st CorpusStats
	mandoc, err := exec.LookPath("mandoc")
	if err != nil {
		return st, fmt.Errorf("%w: mandoc (Debian package mandoc)", ErrMissing)
	}
	var pages []string
	for _, p := range packages {
		b, err := os.ReadFile(filepath.Join(dpkgInfo, p+".list"))
		if errors.Is(err, fs.ErrNotExist) {
			return st, fmt.Errorf("%w: %s (Debian package %s)", ErrMissing, filepath.Join(dpkgInfo, p+".list"), p)
		}
		if err != nil {
			return st, fmt.Errorf("eval: manpages: %w", err)
		}
		for _, l := range strings.Split(string(b), "\n") {
			sec := filepath.Base(filepath.Dir(l))
			if fi, err := os.Lstat(l); err != nil || !fi.Mode().IsRegular() {
				continue // another name of a page (a symbolic link)
			}
			if strings.HasSuffix(l, ".gz") && len(sec) == 4 && strings.HasPrefix(sec, "man") && sec[3] >= '2' && sec[3] <= '7' {
				pages = append(pages, l)
			}
		}
	}
	slices.Sort(pages)
	pages = slices.Compact(pages)
	type out struct {
		rel  string
		text []byte
	}
	results := make([]out, len(pages))
	p := pool.New().WithErrors().WithContext(ctx).WithMaxGoroutines(runtime.GOMAXPROCS(0))
	for i, page := range pages {
		p.Go(func(ctx context.Context) error {
			if include, err := soPage(page); err != nil || include {
				return err
			}
			b, err := exec.CommandContext(ctx, mandoc, "-T", "utf8", "-O", "width=100", page).Output()
			if err != nil {
				return fmt.Errorf("mandoc %s: %w", page, err)
			}
			name := strings.TrimSuffix(filepath.Base(page), ".gz") + ".txt"
			results[i] = out{rel: filepath.Join(filepath.Base(filepath.Dir(page)), name), text: overstrike(b)}
			return nil
		})
	}
	if err := p.Wait(); err != nil {
		return st, fmt.Errorf("eval: manpages: %w", err)
	}
	for _, r := range results {
		if r.rel == "" {
			continue
		}
		path := filepath.Join(dir, r.rel)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return st, err
		}
		if err := os.WriteFile(path, r.text, 0o644); err != nil {
			return st, err
		}
		st.Docs++
		st.Bytes += int64(len(r.text))
	}
	return st, nil
}

// soPage reports whether the gzipped man page at path only includes
// another page.
func soPage(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	head := make([]byte, 512)
	n, _ := io.ReadFull(zr, head)
	for _, l := range strings.Split(string(head[:n]), "\n") {
		if strings.HasPrefix(l, ".so ") {
			return true, nil
		}
		if l != "" && !strings.HasPrefix(l, ".\\\"") && !strings.HasPrefix(l, "'\\\"") {
			return false, nil
		}
	}
	return false, nil
}

// overstrike removes terminal overstriking ("x\bx" bold, "_\bx"
// underline), leaving the plain text.
func overstrike(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '\b' {
			// Drop the backspace and the rune before it.
			for len(out) > 0 {
				c := out[len(out)-1]
				out = out[:len(out)-1]
				if c&0xC0 != 0x80 {
					break
				}
			}
			continue
		}
		out = append(out, b[i])
	}
	return out
}
