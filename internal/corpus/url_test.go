package corpus

import (
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestDeclaredURLs checks that the URL a document declares in its front
// matter (or an HTML canonical link) is the URL of its search results
// (lexical and hybrid) and of its fetch, and that a URL that is not
// http(s) is ignored: the document keeps its file:// URL.
func TestDeclaredURLs(t *testing.T) {
	for _, hybrid := range []bool{false, true} {
		name := "lexical"
		if hybrid {
			name = "hybrid"
		}
		t.Run(name, func(t *testing.T) {
			ix := openIndex(t)
			if hybrid {
				ix = openHybrid(t, newWordsEmbedder())
			}
			testDeclaredURLs(t, ix)
		})
	}
}

func testDeclaredURLs(t *testing.T, ix *Index) {
	dir := t.TempDir()
	tests := []struct {
		file, src, want string // want "": the file:// URL
	}{
		{"bufio.md", "---\nurl: https://pkg.go.dev/bufio\n---\n\n# Package bufio\n\nScanner zebrafinch reads lines.\n", "https://pkg.go.dev/bufio"},
		{"spec.html", `<html><head><link rel="canonical" href="https://go.dev/ref/spec"></head><body><h2 id="x">Slices</h2><p>Zebrafinch slices.</p></body></html>`, "https://go.dev/ref/spec"},
		{"js.md", "---\nurl: javascript:alert(document.cookie)\n---\n\n# JS\n\nZebrafinch script.\n", ""},
		{"file.md", "---\nurl: file:///etc/passwd\n---\n\n# File\n\nZebrafinch file.\n", ""},
		{"plain.md", "# Plain\n\nZebrafinch plain.\n", ""},
	}
	for _, tt := range tests {
		if err := os.WriteFile(filepath.Join(dir, tt.file), []byte(tt.src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx := t.Context()
	if _, err := ix.Sync(ctx, dir); err != nil {
		t.Fatal(err)
	}
	res, err := ix.Search(ctx, "zebrafinch", 10)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range res {
		got[r.DocID] = r.URL
	}
	root, _ := filepath.EvalSymlinks(dir)
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			want := tt.want
			if want == "" {
				want = fileURL(filepath.Join(root, tt.file))
			}
			if u, ok := got[tt.file]; !ok || u != want {
				t.Errorf("search result URL = %q (found %v), want %q", u, ok, want)
			}
			doc, err := ix.Fetch(ctx, tt.file)
			if err != nil {
				t.Fatal(err)
			}
			if doc.URL != want {
				t.Errorf("Fetch URL = %q, want %q", doc.URL, want)
			}
			if strings.Contains(doc.Text, "url:") {
				t.Errorf("front matter in the text: %q", doc.Text)
			}
		})
	}
}

// TestOpenRebuildsOlderSchemas checks that an index of an older schema
// version is dropped and rebuilt by Open, whatever it holds: a real index
// of the version before docs.url (4) and indexes marked with older
// versions. The next Sync adds every document again, and search results
// carry the declared URL that the old index could not hold.
func TestOpenRebuildsOlderSchemas(t *testing.T) {
	dir := t.TempDir()
	src := "---\nurl: https://pkg.go.dev/bufio\n---\n\n# Package bufio\n\nScanner reads lines.\n"
	if err := os.WriteFile(filepath.Join(dir, "bufio.md"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, version := range []int{1, 3, 4} {
		t.Run(strconv.Itoa(version), func(t *testing.T) {
			ctx := t.Context()
			path := filepath.Join(t.TempDir(), "index.db")
			db, err := sql.Open("sqlite", dsn(path))
			if err != nil {
				t.Fatal(err)
			}
			// The version 4 schema: docs without url, one indexed document.
			old := []string{
				`CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
				`CREATE TABLE docs (id INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE, title TEXT NOT NULL,
					size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL, hash TEXT NOT NULL, text TEXT NOT NULL)`,
				`CREATE TABLE passages (id INTEGER PRIMARY KEY, doc_id INTEGER NOT NULL, seq INTEGER NOT NULL,
					location TEXT NOT NULL, loc_kind TEXT NOT NULL DEFAULT '', loc_value TEXT NOT NULL DEFAULT '',
					loc_part TEXT NOT NULL DEFAULT '', body TEXT NOT NULL, embed_hash TEXT NOT NULL DEFAULT '')`,
				`CREATE VIRTUAL TABLE passages_fts USING fts5(title, heading, body, content = '', contentless_delete = 1)`,
				`INSERT INTO docs(path, title, size, mtime_ns, hash, text) VALUES ('bufio.md', 'Package bufio', 1, 1, 'x', 'old text')`,
				`PRAGMA user_version = ` + strconv.Itoa(version),
			}
			for _, q := range old {
				if _, err := db.ExecContext(ctx, q); err != nil {
					t.Fatal(q, err)
				}
			}
			db.Close()
			ix, err := Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			var v, n int
			if err := ix.db.QueryRowContext(ctx, `SELECT user_version, (SELECT count(*) FROM docs) FROM pragma_user_version`).Scan(&v, &n); err != nil || v != schemaVersion || n != 0 {
				t.Fatalf("after Open: user_version %d, %d documents, %v; want %d and none", v, n, err, schemaVersion)
			}
			st, err := ix.Sync(ctx, dir)
			if err != nil || st.Added != 1 {
				t.Fatalf("Sync = %+v, %v; want the document added again", st, err)
			}
			res, err := ix.Search(ctx, "scanner", 5)
			if err != nil || len(res) != 1 || res[0].URL != "https://pkg.go.dev/bufio" {
				t.Errorf("Search = %+v, %v; want bufio.md with its declared URL", res, err)
			}
		})
	}
}
