package events

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestFieldDocs: go doc shows each payload's fields with their comments,
// so every exported field of every exported struct of the package says
// what it holds — in its own comment, or as the next line of a group the
// field above documents ("Agents counts …, AgentsFailed those …") — and
// every exported type has a doc comment.
func TestFieldDocs(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	structs := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.TYPE {
				continue
			}
			for _, spec := range gd.Specs {
				ts := spec.(*ast.TypeSpec)
				if !ts.Name.IsExported() {
					continue
				}
				if gd.Doc == nil && ts.Doc == nil {
					t.Errorf("%s: type %s has no doc comment", fset.Position(ts.Pos()), ts.Name.Name)
				}
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				structs++
				covered, prevLine := false, 0
				for _, fld := range st.Fields.List {
					line := fset.Position(fld.Pos()).Line
					switch {
					case fld.Doc != nil || fld.Comment != nil:
						covered = true
					case covered && line == prevLine+1:
						// the next line of a documented group
					default:
						covered = false
						for _, n := range fld.Names {
							if n.IsExported() {
								t.Errorf("%s: field %s.%s has no comment", fset.Position(fld.Pos()), ts.Name.Name, n.Name)
							}
						}
					}
					prevLine = fset.Position(fld.End()).Line
				}
			}
		}
	}
	if structs < 25 {
		t.Errorf("checked %d structs; the package's files were not found", structs)
	}
}
