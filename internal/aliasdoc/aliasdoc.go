// Package aliasdoc holds a public package's aliases of internal types to
// their comments, for its tests: go doc does not follow an alias into an
// internal package, so the comment of each struct alias names every
// exported field of the type it aliases.
package aliasdoc

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"strings"
	"testing"
)

// Check fails t for each alias of types (by name) that has no comment in
// files (the package's source files, read from its folder) or whose
// comment does not name an exported field of the type: the field's name,
// or "the X's fields, embedded" for an embedded X.
func Check(t *testing.T, files []string, types map[string]reflect.Type) {
	t.Helper()
	docs := map[string]string{}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok && ts.Assign != 0 {
				docs[ts.Name.Name] = ts.Doc.Text()
			}
			return true
		})
	}
	for name, typ := range types {
		doc, ok := docs[name]
		if !ok {
			t.Errorf("no alias %s with a comment", name)
			continue
		}
		for f := range typ.Fields() {
			if !f.IsExported() {
				continue
			}
			want := f.Name
			if f.Anonymous {
				want = "the " + f.Name + "'s fields, embedded"
			}
			if !strings.Contains(doc, want) {
				t.Errorf("%s's comment does not show field %s", name, want)
			}
		}
	}
}
