package cite

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"strings"
	"testing"
)

// TestAliasDocs: go doc does not follow an alias into an internal package,
// so the comment of each struct alias names every exported field of the
// type it aliases; a field added there fails here until the comment
// shows it.
func TestAliasDocs(t *testing.T) {
	types := map[string]reflect.Type{
		"Citation":        reflect.TypeFor[Citation](),
		"Unresolved":      reflect.TypeFor[Unresolved](),
		"Report":          reflect.TypeFor[Report](),
		"Collapsed":       reflect.TypeFor[Collapsed](),
		"CollapsedReport": reflect.TypeFor[CollapsedReport](),
		"MergedSource":    reflect.TypeFor[MergedSource](),
		"Dropped":         reflect.TypeFor[Dropped](),
		"InvalidURL":      reflect.TypeFor[InvalidURL](),
	}
	docs := map[string]string{}
	fset := token.NewFileSet()
	for _, name := range []string{"cite.go", "merge.go"} {
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
