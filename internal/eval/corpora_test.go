package eval_test

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/eval"
	"github.com/deepresearch/deepresearch/internal/golden"
)

// TestMissingSourceIsErrMissing: a corpus whose Debian package is not
// installed fails with ErrMissing, which the evaluation skips (except
// under CI=true).
func TestMissingSourceIsErrMissing(t *testing.T) {
	nowhere := filepath.Join(t.TempDir(), "absent")
	ctx := context.Background()
	for name, write := range map[string]func() error{
		"foldoc":     func() error { _, err := eval.WriteFOLDOC(ctx, nowhere, t.TempDir()); return err },
		"python":     func() error { _, err := eval.WritePythonDocs(ctx, nowhere, t.TempDir()); return err },
		"postgresql": func() error { _, err := eval.WritePostgresDocs(ctx, nowhere, t.TempDir()); return err },
		"sqlite":     func() error { _, err := eval.WriteSQLiteDocs(ctx, nowhere, t.TempDir()); return err },
		"nodejs":     func() error { _, err := eval.WriteNodeDocs(ctx, nowhere, t.TempDir()); return err },
		"manpages": func() error {
			_, err := eval.WriteManPages(ctx, nowhere, []string{"manpages"}, t.TempDir())
			return err
		},
	} {
		if err := write(); !errors.Is(err, eval.ErrMissing) {
			t.Errorf("%s: err = %v, want ErrMissing", name, err)
		}
	}
}

// TestWriteFOLDOC reads a dictionary in dictd's format (an index of
// headword, base-64 offset and length; gzip-compressed data, as dictzip
// writes it): one file per entry, named after the entry's own headword,
// synonyms pointing at one entry written once, the database's own entries
// left out.
func TestWriteFOLDOC(t *testing.T) {
	entries := []string{
		"00-database-info\n\n   About this dictionary.\n",
		"currying\n\n   Turning an uncurried function into a {curried function}.\n",
		"Transmission Control Protocol\nTCP\n\n   <networking, protocol> (TCP) The most common transport protocol.\n",
		"a/b testing\n\n   Comparing two variants.\n",
	}
	var data bytes.Buffer
	var index strings.Builder
	b64 := func(n int) string {
		const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
		if n == 0 {
			return "A"
		}
		s := ""
		for ; n > 0; n /= 64 {
			s = string(digits[n%64]) + s
		}
		return s
	}
	heads := [][]string{{"00-database-info"}, {"currying"}, {"TCP", "Transmission Control Protocol"}, {"a/b testing"}}
	for i, e := range entries {
		for _, h := range heads[i] {
			index.WriteString(h + "\t" + b64(data.Len()) + "\t" + b64(len(e)) + "\n")
		}
		data.WriteString(e)
	}
	dir := t.TempDir()
	base := filepath.Join(dir, "dict")
	if err := os.WriteFile(base+".index", []byte(index.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(data.Bytes())
	zw.Close()
	if err := os.WriteFile(base+".dict.dz", gz.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	st, err := eval.WriteFOLDOC(context.Background(), base, out)
	if err != nil {
		t.Fatal(err)
	}
	names, _ := filepath.Glob(filepath.Join(out, "*"))
	for i := range names {
		names[i] = filepath.Base(names[i])
	}
	if got := strings.Join(names, "|"); got != "Transmission Control Protocol.txt|a_b testing.txt|currying.txt" || st.Docs != 3 {
		t.Errorf("files %q (%d documents)", got, st.Docs)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "currying.txt")); string(b) != entries[1] {
		t.Errorf("currying.txt = %q, want the entry as the dictionary holds it", b)
	}
	os.WriteFile(base+".index", []byte("currying\tA\t!!\n"), 0o644)
	if _, err := eval.WriteFOLDOC(context.Background(), base, t.TempDir()); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a bad index line: err = %v, want one naming line 1", err)
	}
}

// sqliteHeader is the website's header as every page of SQLite's
// documentation opens with it (shortened): logo, menu, search form, the
// menu's script.
const sqliteHeader = `<div class=nosearch>
<a href="index.html"><img class="logo" src="images/sqlite370_banner.gif" alt="SQLite"></a>
<div class="tagline desktoponly">Small. Fast. Reliable.<br>Choose any three.</div>
<div class="menu mainmenu"><ul><li><a href="index.html">Home</a><li><a href="docs.html">Documentation</a></ul></div>
<div class="searchmenu" id="searchmenu"><form method="GET" action="search"><input type="text" name="q"></form></div>
</div>
<script>
function toggle_search() {}
</script>
`

// TestWriteSQLiteDocs writes a small tree shaped like Debian's
// sqlite3-doc: content pages keep their paths without the website's
// header (a page's own second "nosearch" block, its title, stays);
// navigation and index pages, the syntax diagrams and the one-page
// copies are left out; other files are not written; writing twice gives
// the same bytes.
func TestWriteSQLiteDocs(t *testing.T) {
	root := t.TempDir()
	page := func(path, title, body string) string {
		dots := strings.Repeat("../", strings.Count(path, "/"))
		return "<!DOCTYPE html>\n<html><head>\n<link href=\"" + dots + "sqlite.css\" rel=\"stylesheet\">\n<title>" + title + "</title>\n</head>\n<body>\n" +
			strings.ReplaceAll(sqliteHeader, `href="`, `href="`+dots) + body + "\n</body></html>\n"
	}
	files := map[string]string{
		"lang_select.html":        page("lang_select.html", "The SELECT statement", "<h1>SELECT</h1>\n<p>The SELECT statement is used to query the database.</p>"),
		"c3ref/open.html":         page("c3ref/open.html", "Opening A New Database Connection", "<div class=nosearch>\n<h2>Opening A New Database Connection</h2>\n</div>\n<p>These routines open an SQLite database file.</p>"),
		"releaselog/3_40_1.html":  page("releaselog/3_40_1.html", "SQLite Release 3.40.1", "<h2>SQLite Release 3.40.1 On 2022-12-28</h2>"),
		"sqlite.html":             "<html><head><title>sqlite3: A command-line access program</title></head><body><h1>sqlite3</h1><p>The sqlite3 program.</p></body></html>\n",
		"odd.html":                "<html><head><title>Odd</title></head><body><div class=nosearch><h1>Odd</h1><p>A first paragraph.</p></div><script>x()</script></body></html>\n",
		"docs.html":               page("docs.html", "SQLite Documentation", "<ul><li><a href=\"lang_select.html\">SELECT</a></ul>"),
		"keyword_index.html":      page("keyword_index.html", "Website Keyword Index", "<a href=\"lang_select.html\">SELECT</a>"),
		"capi3ref.html":           page("capi3ref.html", "C/C++ Interface For SQLite Version 3", "<p>These routines open an SQLite database file.</p>"),
		"changes.html":            page("changes.html", "Release History Of SQLite", "<h3>2022-12-28 (3.40.1)</h3>"),
		"c3ref/funclist.html":     page("c3ref/funclist.html", "List Of SQLite Functions", "<a href=\"open.html\">sqlite3_open</a>"),
		"syntax/select-stmt.html": page("syntax/select-stmt.html", "SQLite Syntax: select-stmt", "<svg></svg>"),
		"images/logo.gif":         "GIF89a",
		"toc.db.gz":               "\x1f\x8b",
	}
	st, written := writeFixture(t, eval.WriteSQLiteDocs, root, files)
	want := []string{"c3ref/open.html", "lang_select.html", "odd.html", "releaselog/3_40_1.html", "sqlite.html"}
	if names := slices.Sorted(maps.Keys(written)); !slices.Equal(names, want) || st.Docs != len(want) {
		t.Errorf("wrote %q (%d documents), want %q", names, st.Docs, want)
	}
	total := 0
	for _, b := range written {
		total += len(b)
	}
	if st.Bytes != int64(total) {
		t.Errorf("stats say %d bytes, the files hold %d", st.Bytes, total)
	}
	for name, b := range written {
		if name != "odd.html" && strings.Contains(string(b), "Choose any three") {
			t.Errorf("%s keeps the website's header:\n%s", name, b)
		}
	}
	wantSelect := "<!DOCTYPE html>\n<html><head>\n<link href=\"sqlite.css\" rel=\"stylesheet\">\n<title>The SELECT statement</title>\n</head>\n<body>\n\n" +
		"<h1>SELECT</h1>\n<p>The SELECT statement is used to query the database.</p>\n</body></html>\n"
	if got := string(written["lang_select.html"]); got != wantSelect {
		t.Errorf("lang_select.html =\n%s\nwant\n%s", got, wantSelect)
	}
	if got := string(written["c3ref/open.html"]); !strings.Contains(got, "<div class=nosearch>\n<h2>Opening A New Database Connection</h2>") || !strings.Contains(got, "<title>Opening A New Database Connection</title>") {
		t.Errorf("c3ref/open.html lost its title or its heading:\n%s", got)
	}
	for _, name := range []string{"sqlite.html", "odd.html"} {
		if got := string(written[name]); got != files[name] {
			t.Errorf("%s = %q, want it as it is: it has no website header to cut", name, got)
		}
	}
	checkWritesAgain(t, eval.WriteSQLiteDocs, root, written)
}

// TestWriteSQLiteDocsInstalled writes the documentation Debian's
// sqlite3-doc installs (skipped when it is not installed, except under
// CI=true): the pages questions are asked of are there, with their
// content; no page keeps the website's header; the navigation pages and
// the syntax diagrams are not written.
func TestWriteSQLiteDocsInstalled(t *testing.T) {
	st, written := writeInstalled(t, eval.WriteSQLiteDocs, eval.SQLiteDocs, "sqlite3-doc")
	if st.Docs != len(written) || st.Docs < 600 {
		t.Errorf("%d documents written, %d files; want the same, at least 600", st.Docs, len(written))
	}
	checkHolds(t, written, map[string]string{
		"pragma.html":            "This pragma queries or sets the journal mode",
		"c3ref/open.html":        "sqlite3_open_v2",
		"lang_select.html":       "<title>SELECT</title>",
		"releaselog/3_40_1.html": "2022-12-28",
	})
	for name, b := range written {
		if bytes.Contains(b, []byte("Choose any three")) {
			t.Errorf("%s keeps the website's header", name)
		}
		if strings.HasPrefix(name, "syntax/") || name == "docs.html" || name == "capi3ref.html" || name == "c3ref/funclist.html" {
			t.Errorf("%s is written: a navigation page, a drawing or a copy", name)
		}
	}
}

// nodePage is a page of Node.js's API documentation as nodejs-doc
// installs it (shortened): the side column listing every module, then
// the content column with its header (the documentation's name, the
// pickers: the page's table of contents, every module again, other
// versions), the page's own table of contents and its content.
func nodePage(name, title, content string) string {
	return `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>` + title + ` | Node.js v18.20.4 Documentation</title>
  <link rel="stylesheet" href="assets/style.css">
</head>
<body class="alt apidoc" id="api-section-` + name + `">
  <div id="content" class="clearfix">
    <div id="column2" class="interior">
      <div id="intro" class="interior">
        <a href="index.html" title="Go back to the home page">Node.js</a>
      </div>
      <ul>
<li><a href="fs.html" class="nav-fs">File system</a></li>
<li><a href="path.html" class="nav-path">Path</a></li>
<li><a href="zlib.html" class="nav-zlib">Zlib</a></li>
</ul>
    </div>

    <div id="column1" data-id="` + name + `" class="interior">
      <header class="header">
        <div class="header-container">
          <h1>Node.js v18.20.4 documentation</h1>
        </div>
        <div id="gtoc">
          <ul>
            <li class="picker-header"><a href="#">Table of contents</a>
              <div class="picker"><div class="toc"><ul><li><a href="#` + name + `">` + title + `</a></li></ul></div></div></li>
            <li class="picker-header"><a href="#">Index</a>
              <div class="picker"><ul><li><a href="fs.html" class="nav-fs">File system</a></li><li><a href="zlib.html" class="nav-zlib">Zlib</a></li></ul></div></li>
            <li class="picker-header"><a href="#">Other versions</a>
              <div class="picker"><ol id="alt-docs"><li><a href="https://nodejs.org/docs/latest-v16.x/api/` + name + `.html">16.x</a></li></ol></div></li>
          </ul>
        </div>
        <hr>
      </header>

      <details id="toc" open><summary>Table of contents</summary><ul>
<li><a href="#` + name + `">` + title + `</a></li>
</ul>
</details>

      <div id="apicontent">
        ` + content + `
        <!-- API END -->
      </div>
    </div>
  </div>
</body>
</html>
`
}

// TestWriteNodeDocs writes a small tree shaped like Debian's nodejs-doc:
// the module pages keep their names, their <title>, their own table of
// contents and their content, without the side column and the header
// (whose navigation every page repeats); the one-page copy all.html, the
// list of pages index.html, the assets and the JSON and markdown forms
// are not written; a page without that navigation is written as it is;
// writing twice gives the same bytes.
func TestWriteNodeDocs(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{
		"fs.html":         nodePage("fs", "File system", `<section><h2>File system</h2><p>The <code>node:fs</code> module enables interacting with the file system.</p></section>`),
		"path.html":       nodePage("path", "Path", `<section><h2>Path</h2><p><code>path.join([...paths])</code> joins all given path segments.</p></section>`),
		"all.html":        nodePage("all", "All", `<p>The <code>node:fs</code> module enables interacting with the file system.</p>`),
		"index.html":      nodePage("index", "Index", `<ul><li><a href="fs.html">File system</a></li></ul>`),
		"plain.html":      "<html><head><title>Plain</title></head><body><h1>Plain</h1><p>No navigation.</p></body></html>\n",
		"fs.json.gz":      "\x1f\x8b",
		"fs.md.gz":        "\x1f\x8b",
		"assets/api.js":   "window.x = 1;",
		"assets/nav.html": "<ul><li>File system</li></ul>",
	}
	st, written := writeFixture(t, eval.WriteNodeDocs, root, files)
	want := []string{"fs.html", "path.html", "plain.html"}
	if names := slices.Sorted(maps.Keys(written)); !slices.Equal(names, want) || st.Docs != len(want) {
		t.Errorf("wrote %q (%d documents), want %q", names, st.Docs, want)
	}
	total := 0
	for _, b := range written {
		total += len(b)
	}
	if st.Bytes != int64(total) {
		t.Errorf("stats say %d bytes, the files hold %d", st.Bytes, total)
	}
	for _, name := range []string{"fs.html", "path.html"} {
		got := string(written[name])
		for _, nav := range []string{`id="column2"`, "nav-zlib", "Zlib", "Node.js v18.20.4 documentation", "Other versions", "<header"} {
			if strings.Contains(got, nav) {
				t.Errorf("%s keeps the navigation (%q):\n%s", name, nav, got)
			}
		}
		for _, own := range []string{`<details id="toc" open>`, `<div id="column1"`, `<div id="apicontent">`, "<!-- API END -->"} {
			if !strings.Contains(got, own) {
				t.Errorf("%s lost %q:\n%s", name, own, got)
			}
		}
	}
	fs := string(written["fs.html"])
	for _, own := range []string{"<title>File system | Node.js v18.20.4 Documentation</title>", `<li><a href="#fs">File system</a></li>`, "<h2>File system</h2>", "enables interacting with the file system"} {
		if !strings.Contains(fs, own) {
			t.Errorf("fs.html lost %q:\n%s", own, fs)
		}
	}
	if got := string(written["plain.html"]); got != files["plain.html"] {
		t.Errorf("plain.html = %q, want it as it is: it has no navigation to cut", got)
	}
	checkWritesAgain(t, eval.WriteNodeDocs, root, written)
}

// TestWriteNodeDocsInstalled writes the documentation Debian's
// nodejs-doc installs (skipped when it is not installed, except under
// CI=true): the pages questions are asked of are there, with their
// title and content; no page keeps the navigation every page repeats;
// all.html and index.html are not written, nor anything but the pages.
func TestWriteNodeDocsInstalled(t *testing.T) {
	st, written := writeInstalled(t, eval.WriteNodeDocs, cmp.Or(os.Getenv(eval.NodeDocsEnv), eval.NodeDocs), "nodejs-doc")
	if st.Docs != len(written) || st.Docs < 50 {
		t.Errorf("%d documents written, %d files; want the same, at least 50", st.Docs, len(written))
	}
	checkHolds(t, written, map[string]string{
		"fs.html":            "fs.mkdir(",
		"child_process.html": "child_process.execFile(",
		"stream.html":        "highWaterMark",
		"path.html":          "<title>Path | Node.js",
		"cli.html":           "--max-old-space-size",
	})
	for name, b := range written {
		if strings.Contains(name, "/") || !strings.HasSuffix(name, ".html") || name == "all.html" || name == "index.html" {
			t.Errorf("%s is written: a copy, the list of pages, an asset or another form of a page", name)
		}
		// The side column's link to the zlib page (class "nav-zlib") and
		// the header's version picker are on every page, and are cut.
		for _, nav := range []string{`id="column2"`, `class="nav-zlib`, `id="alt-docs"`} {
			if bytes.Contains(b, []byte(nav)) {
				t.Errorf("%s keeps the navigation (%s)", name, nav)
			}
		}
		if !bytes.Contains(b, []byte(`<div id="apicontent">`)) || !bytes.Contains(b, []byte("<title>")) {
			t.Errorf("%s lost its content or its title", name)
		}
	}
}

// writeDocs is a corpus writer of eval: WriteSQLiteDocs, WriteNodeDocs.
type writeDocs func(ctx context.Context, root, dir string) (eval.CorpusStats, error)

// writeInstalled writes the documentation Debian's package pkg installs
// under root with write, and returns what it counted and the files
// written; it skips the test when pkg is not installed, except under
// CI=true, where .ci/run installs it.
func writeInstalled(t *testing.T, write writeDocs, root, pkg string) (eval.CorpusStats, map[string][]byte) {
	t.Helper()
	out := t.TempDir()
	st, err := write(context.Background(), root, out)
	if errors.Is(err, eval.ErrMissing) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v; .ci/run installs it", err)
		}
		t.Skipf("%v; install the Debian package %s", err, pkg)
	}
	if err != nil {
		t.Fatal(err)
	}
	return st, golden.Tree(t, out)
}

// checkWritesAgain fails t unless writing root again with write gives
// the files written.
func checkWritesAgain(t *testing.T, write writeDocs, root string, written map[string][]byte) {
	t.Helper()
	again := filepath.Join(t.TempDir(), "again")
	if _, err := write(context.Background(), root, again); err != nil {
		t.Fatal(err)
	}
	if second := golden.Tree(t, again); !maps.EqualFunc(written, second, bytes.Equal) {
		t.Error("writing the same source twice gave different files")
	}
}

// checkHolds fails t for each file of holds that was not written or does
// not hold its text.
func checkHolds(t *testing.T, written map[string][]byte, holds map[string]string) {
	t.Helper()
	for name, text := range holds {
		if b, ok := written[name]; !ok || !bytes.Contains(b, []byte(text)) {
			t.Errorf("%s: written %v, want it holding %q", name, ok, text)
		}
	}
}

// writeFixture writes files (by their paths relative to root) under root,
// then writes them with write, and returns what it counted and the files
// it wrote.
func writeFixture(t *testing.T, write writeDocs, root string, files map[string]string) (eval.CorpusStats, map[string][]byte) {
	t.Helper()
	for name, text := range files {
		path := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "out")
	st, err := write(context.Background(), root, out)
	if err != nil {
		t.Fatal(err)
	}
	return st, golden.Tree(t, out)
}
