package verify

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
		"Source":         reflect.TypeFor[Source](),
		"Result":         reflect.TypeFor[Result](),
		"Summary":        reflect.TypeFor[Summary](),
		"Citation":       reflect.TypeFor[Citation](),
		"Evidence":       reflect.TypeFor[Evidence](),
		"Problem":        reflect.TypeFor[Problem](),
		"SidecarProblem": reflect.TypeFor[SidecarProblem](),
		"Passage":        reflect.TypeFor[Passage](),
	}
	docs := map[string]string{}
	f, err := parser.ParseFile(token.NewFileSet(), "verify.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if ts, ok := n.(*ast.TypeSpec); ok && ts.Assign != 0 {
			docs[ts.Name.Name] = ts.Doc.Text()
		}
		return true
	})
	for name, typ := range types {
		doc, ok := docs[name]
		if !ok {
			t.Errorf("no alias %s with a comment", name)
			continue
		}
		for f := range typ.Fields() {
			if f.IsExported() && !strings.Contains(doc, f.Name) {
				t.Errorf("%s's comment does not show field %s", name, f.Name)
			}
		}
	}
}
