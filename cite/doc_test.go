package cite

import (
	"reflect"
	"testing"

	"github.com/deepresearch/deepresearch/internal/aliasdoc"
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
	aliasdoc.Check(t, []string{"cite.go", "merge.go"}, types)
}
