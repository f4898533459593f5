package eval

import (
	"context"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// CorpusStats says what WriteCorpus wrote.
type CorpusStats struct {
	Packages int // package documents written under pkg/
	Docs     int // files copied from GOROOT/doc under doc/
	Bytes    int64
}

// GOROOT returns the Go distribution's root: runtime.GOROOT, else the
// GOROOT environment variable.
func GOROOT() string {
	//lint:ignore SA1019 the distribution this binary was built with is the one whose docs we read.
	if r := runtime.GOROOT(); r != "" {
		return r
	}
	return os.Getenv("GOROOT")
}

// WriteCorpus writes the evaluation corpus into dir: one markdown
// document per standard-library package, pkg/<import path>.md, made with
// go/doc from the package's doc comments under goroot/src (the package
// comment, then the doc comments of its exported functions, types and
// methods; no code, no declarations; the files this toolchain builds for
// its own platform, so the output is the same on every run), and a copy of the documents
// of goroot/doc under doc/. Commands (cmd/), internal and vendored
// packages and testdata are left out. A document's ID in the corpus index
// is its path under dir, such as "pkg/sync.md" or "doc/go_mem.html".
//
// Cost: it parses every non-test Go file of the standard library: about
// 1.9 s on the 2-core development machine (BenchmarkWriteCorpus), for
// 2.3 MB of markdown in about 185 documents.
func WriteCorpus(ctx context.Context, goroot, dir string) (CorpusStats, error) {
	var st CorpusStats
	src := filepath.Join(goroot, "src")
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if ctx.Err() != nil {
			return context.Cause(ctx)
		}
		if !d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(src, path)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		name := d.Name()
		if rel == "cmd" || name == "internal" || name == "vendor" || name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
			return filepath.SkipDir
		}
		text, ok, err := packageDoc(path, rel)
		if err != nil || !ok {
			return err
		}
		out := filepath.Join(dir, "pkg", filepath.FromSlash(rel)+".md")
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(out, []byte(text), 0o644); err != nil {
			return err
		}
		st.Packages++
		st.Bytes += int64(len(text))
		return nil
	})
	if err != nil {
		return st, fmt.Errorf("eval: write corpus from %s: %w", src, err)
	}
	docs, err := copyFiles(ctx, goroot, dir, []string{"doc"}, "")
	st.Docs, st.Bytes = docs.Docs, st.Bytes+docs.Bytes
	return st, err
}

// packageDoc renders the documentation of the package in dir (import
// path importPath) as markdown. ok is false for a directory without a
// documented, non-main package.
func packageDoc(dir, importPath string) (string, bool, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", false, err
	}
	fset := token.NewFileSet()
	var files []*ast.File
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		// Only the files this toolchain builds: two files declaring one
		// function under different build tags would make the document
		// depend on which go/doc met first.
		if ok, err := build.Default.MatchFile(dir, n); err != nil || !ok {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			continue // a file for another toolchain; its package still has others
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return "", false, nil
	}
	// All files of one directory belong to one package, but a directory
	// may hold a "package main" generator or a documentation-only file
	// with a build tag; keep the most common package name.
	count := map[string]int{}
	for _, f := range files {
		count[f.Name.Name]++
	}
	best := ""
	for n, c := range count {
		if n != "main" && n != "documentation" && (c > count[best] || c == count[best] && n < best) {
			best = n
		}
	}
	if best == "" {
		return "", false, nil
	}
	files = slices.DeleteFunc(files, func(f *ast.File) bool { return f.Name.Name != best })
	p, err := doc.NewFromFiles(fset, files, importPath)
	if err != nil || strings.TrimSpace(p.Doc) == "" {
		return "", false, nil
	}
	pr := p.Printer()
	pr.HeadingLevel = 2
	pr.DocLinkURL = func(*comment.DocLink) string { return "" }
	md := func(text string) string { return string(pr.Markdown(p.Parser().Parse(text))) }

	var b strings.Builder
	fmt.Fprintf(&b, "# Package %s (%s)\n\n", p.Name, importPath)
	b.WriteString(md(p.Doc))
	section := func(title, docText string) {
		if strings.TrimSpace(docText) == "" {
			return
		}
		fmt.Fprintf(&b, "\n## %s\n\n%s", title, md(docText))
	}
	for _, f := range p.Funcs {
		section("func "+f.Name, f.Doc)
	}
	for _, t := range p.Types {
		section("type "+t.Name, t.Doc)
		for _, f := range t.Funcs {
			section("func "+f.Name, f.Doc)
		}
		for _, m := range t.Methods {
			section("func ("+t.Name+") "+m.Name, m.Doc)
		}
	}
	return b.String(), true, nil
}
