package godoc

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/build"
	"go/doc"
	"go/doc/comment"
	"go/format"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxNames is the most names a section heading lists for a group of
// constants or variables.
const maxNames = 6

// packageDoc renders the documentation of the package in dir (import path
// importPath) as Markdown, and counts its examples. ok is false for a
// folder without a documented, non-main package.
func packageDoc(ctxt *build.Context, dir, importPath string) (text string, examples int, ok bool, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", 0, false, err
	}
	fset := token.NewFileSet()
	var files, tests []*ast.File
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") {
			continue
		}
		// Only the files this context builds: two files declaring one
		// function under different build tags would make the document
		// depend on which go/doc met first.
		if ok, err := ctxt.MatchFile(dir, n); err != nil || !ok {
			continue
		}
		path := filepath.Join(dir, n)
		test := strings.HasSuffix(n, "_test.go")
		var src any // nil: the parser reads the file
		if test {
			// Test files are read for their examples only; most have none.
			b, err := os.ReadFile(path)
			if err != nil {
				return "", 0, false, err
			}
			if !bytes.Contains(b, []byte("func Example")) {
				continue
			}
			src = b
		}
		mode := parser.ParseComments | parser.SkipObjectResolution
		if test {
			mode = parser.ParseComments // go/doc makes an example's whole program from unresolved names
		}
		f, err := parser.ParseFile(fset, path, src, mode)
		if err != nil {
			continue // a file for another toolchain; its package still has others
		}
		if test {
			tests = append(tests, f)
		} else {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return "", 0, false, nil
	}
	// All files of one folder belong to one package, but a folder may hold
	// a "package main" generator or a documentation-only file with a build
	// tag; keep the most common package name.
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
		return "", 0, false, nil
	}
	files = slices.DeleteFunc(files, func(f *ast.File) bool { return f.Name.Name != best })
	tests = slices.DeleteFunc(tests, func(f *ast.File) bool { return f.Name.Name != best && f.Name.Name != best+"_test" })
	p, err := doc.NewFromFiles(fset, append(files, tests...), importPath)
	if err != nil || strings.TrimSpace(p.Doc) == "" {
		return "", 0, false, nil
	}
	w := &pkgWriter{fset: fset, p: p}
	return w.write(importPath), w.examples, true, nil
}

// pkgWriter renders one package.
type pkgWriter struct {
	fset     *token.FileSet
	p        *doc.Package
	pr       *comment.Printer
	b        strings.Builder
	examples int
}

func (w *pkgWriter) write(importPath string) string {
	p := w.p
	w.pr = p.Printer()
	w.pr.HeadingLevel = 2
	w.pr.DocLinkURL = func(*comment.DocLink) string { return "" }

	fmt.Fprintf(&w.b, "---\nurl: https://pkg.go.dev/%s\n---\n\n", importPath)
	fmt.Fprintf(&w.b, "# Package %s (%s)\n\n", p.Name, importPath)
	w.b.WriteString(w.md(p.Doc))
	w.examplesOf(2, "", p.Examples)
	w.values(2, "const", p.Consts)
	w.values(2, "var", p.Vars)
	for _, f := range p.Funcs {
		w.section(2, "func "+f.Name, f.Name, f.Doc)
		w.examplesOf(3, f.Name, f.Examples)
	}
	for _, t := range p.Types {
		w.section(2, "type "+t.Name, t.Name, t.Doc)
		w.examplesOf(3, t.Name, t.Examples)
		w.values(3, "const", t.Consts)
		w.values(3, "var", t.Vars)
		for _, f := range t.Funcs {
			w.section(3, "func "+f.Name, f.Name, f.Doc)
			w.examplesOf(4, f.Name, f.Examples)
		}
		for _, m := range t.Methods {
			id := t.Name + "." + m.Name
			w.section(3, "func ("+m.Recv+") "+m.Name, id, m.Doc)
			w.examplesOf(4, id, m.Examples)
		}
	}
	return w.b.String()
}

// md renders a doc comment as Markdown.
func (w *pkgWriter) md(text string) string {
	return string(w.pr.Markdown(w.p.Parser().Parse(text)))
}

// section writes a heading at level with pkg.go.dev's anchor id, and the
// doc comment under it; nothing when the comment is empty.
func (w *pkgWriter) section(level int, title, id, docText string) {
	if strings.TrimSpace(docText) == "" {
		return
	}
	fmt.Fprintf(&w.b, "\n%s %s {#%s}\n\n%s", strings.Repeat("#", level), title, id, w.md(docText))
}

// values writes a section for each documented group of constants or
// variables, headed by its names: "## const MaxScanTokenSize".
func (w *pkgWriter) values(level int, kind string, vs []*doc.Value) {
	for _, v := range vs {
		if len(v.Names) == 0 {
			continue
		}
		names := strings.Join(v.Names[:min(len(v.Names), maxNames)], ", ")
		if len(v.Names) > maxNames {
			names += ", …"
		}
		w.section(level, kind+" "+names, v.Names[0], v.Doc)
	}
}

// examplesOf writes the examples of the identifier id ("" for the
// package's own), each a section at level: its doc comment, its code as a
// whole program where go/doc can make one (else the example's body), and
// its expected output.
func (w *pkgWriter) examplesOf(level int, id string, exs []*doc.Example) {
	for _, ex := range exs {
		code, err := w.exampleCode(ex)
		if err != nil {
			continue // go/printer cannot print it: leave it out
		}
		w.examples++
		title := "Example"
		if id != "" {
			title += " " + id
		}
		if ex.Suffix != "" {
			title += " (" + ex.Suffix + ")"
		}
		fmt.Fprintf(&w.b, "\n%s %s {#%s}\n\n", strings.Repeat("#", level), title, exampleID(id, ex.Suffix))
		if strings.TrimSpace(ex.Doc) != "" {
			w.b.WriteString(w.md(ex.Doc))
			w.b.WriteString("\n")
		}
		w.b.WriteString(fenced("go", code))
		if ex.Output != "" || ex.EmptyOutput {
			label := "Output:"
			if ex.Unordered {
				label = "Unordered output:"
			}
			fmt.Fprintf(&w.b, "\n%s\n\n%s", label, fenced("", ex.Output))
		}
	}
}

// exampleCode prints an example: the whole program go/doc synthesises
// (ex.Play), else the body of the example function, unindented.
func (w *pkgWriter) exampleCode(ex *doc.Example) (string, error) {
	var buf bytes.Buffer
	if ex.Play != nil {
		if err := format.Node(&buf, w.fset, ex.Play); err != nil {
			return "", err
		}
		return buf.String(), nil
	}
	if err := format.Node(&buf, w.fset, &printer.CommentedNode{Node: ex.Code, Comments: ex.Comments}); err != nil {
		return "", err
	}
	s := buf.String()
	if _, ok := ex.Code.(*ast.BlockStmt); ok {
		s = strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(s), "{"), "}")
		lines := strings.Split(strings.Trim(s, "\n"), "\n")
		for i, l := range lines {
			lines[i] = strings.TrimPrefix(l, "\t")
		}
		s = strings.Join(lines, "\n")
	}
	return s, nil
}

// exampleID is pkg.go.dev's anchor of an example of the identifier id
// ("" for the package) with the suffix (the part of the example's name
// after the identifier and '_', title-cased): "example-Scanner-Lines",
// "example-package".
func exampleID(id, suffix string) string {
	if suffix != "" {
		r, n := utf8.DecodeRuneInString(suffix)
		suffix = "-" + string(unicode.ToTitle(r)) + suffix[n:]
	}
	if id == "" {
		id = "package"
	}
	return "example-" + id + suffix
}

// fenced returns text as a Markdown fenced code block, with a fence longer
// than any run of backticks in it.
func fenced(lang, text string) string {
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	return fence + lang + "\n" + strings.TrimRight(text, "\n") + "\n" + fence + "\n"
}
