package verify

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
		"Source":         reflect.TypeFor[Source](),
		"Result":         reflect.TypeFor[Result](),
		"Summary":        reflect.TypeFor[Summary](),
		"Citation":       reflect.TypeFor[Citation](),
		"Evidence":       reflect.TypeFor[Evidence](),
		"Problem":        reflect.TypeFor[Problem](),
		"SidecarProblem": reflect.TypeFor[SidecarProblem](),
	}
	aliasdoc.Check(t, []string{"verify.go"}, types)
}
