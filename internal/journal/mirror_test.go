package journal

import (
	"reflect"
	"slices"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/fetch"
	"github.com/deepresearch/deepresearch/search"
	"github.com/deepresearch/deepresearch/source"
)

// TestMirrorsCoverEveryField: each record mirrors every field of the type
// it records, so that a field added there (a result's locator, say) is not
// silently lost on replay. A new field fails here until the record, its
// recording and its replay carry it.
func TestMirrorsCoverEveryField(t *testing.T) {
	for _, tc := range []struct {
		of      any
		mirror  any
		renamed map[string]string // the original's field → the mirror's
	}{
		{search.Result{}, Result{}, map[string]string{}},
		{source.Location{}, Locator{}, map[string]string{}},
		{search.Document{}, DocumentRecord{}, map[string]string{}},
		{fetch.Page{}, PageRecord{}, map[string]string{}},
		{llms.ContentChoice{}, Choice{}, map[string]string{"ReasoningContent": "Reasoning", "GenerationInfo": "Info"}},
		{llms.ToolCall{}, ToolCall{}, map[string]string{"FunctionCall": "Function"}},
		{llms.FunctionCall{}, FunctionCall{}, map[string]string{}},
	} {
		of, mirror := reflect.TypeOf(tc.of), reflect.TypeOf(tc.mirror)
		var have []string
		for i := range mirror.NumField() {
			have = append(have, mirror.Field(i).Name)
		}
		for i := range of.NumField() {
			f := of.Field(i)
			if !f.IsExported() {
				continue
			}
			name := f.Name
			if r, ok := tc.renamed[name]; ok {
				name = r
			}
			if !slices.Contains(have, name) {
				t.Errorf("%s.%s has no counterpart in the journal's %s", of, f.Name, mirror)
			}
		}
	}
}
