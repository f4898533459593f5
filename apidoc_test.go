package deepresearch_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The event payloads' aliases show their types' fields in their doc
// comments (go doc does not follow an alias into internal/events): every
// exported field of each aliased struct, with its JSON name, is in its
// alias's comment, so a field added to a payload fails here until the
// comment shows it.
func TestEventPayloadDocs(t *testing.T) {
	fset := token.NewFileSet()
	fields := map[string][]*ast.Field{} // events type → its fields
	files, err := filepath.Glob(filepath.Join("internal", "events", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok {
				if st, ok := ts.Type.(*ast.StructType); ok {
					fields[ts.Name.Name] = st.Fields.List
				}
			}
			return true
		})
	}
	src, err := os.ReadFile("api.go")
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(fset, "api.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE || gd.Doc == nil || !strings.HasPrefix(gd.Doc.Text(), "Event payloads") {
			continue
		}
		for _, spec := range gd.Specs {
			ts := spec.(*ast.TypeSpec)
			sel, ok := ts.Type.(*ast.SelectorExpr)
			if !ok || ts.Assign == 0 {
				t.Errorf("%s is not an alias of an events type", ts.Name.Name)
				continue
			}
			doc := ts.Doc.Text()
			if !strings.HasPrefix(doc, ts.Name.Name+" ") {
				t.Errorf("%s's comment does not start with its name: %q", ts.Name.Name, doc)
			}
			for _, fld := range fields[sel.Sel.Name] {
				for _, n := range fld.Names {
					if !n.IsExported() {
						continue
					}
					want := n.Name + " "
					if fld.Tag != nil {
						if tag := fld.Tag.Value; strings.Contains(tag, `json:"`) {
							want = strings.Trim(tag, "`")
						}
					}
					if !strings.Contains(doc, n.Name) || !strings.Contains(doc, want) {
						t.Errorf("%s's comment does not show field %s (%s) of events.%s", ts.Name.Name, n.Name, want, sel.Sel.Name)
					}
				}
			}
			checked++
		}
	}
	if checked < 20 {
		t.Errorf("checked %d payload aliases; the block was not found", checked)
	}
}
