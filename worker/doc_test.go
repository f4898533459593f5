package worker

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
	aliasdoc.Check(t, []string{"worker.go"}, map[string]reflect.Type{
		"Task":   reflect.TypeFor[Task](),
		"Output": reflect.TypeFor[Output](),
	})
}
