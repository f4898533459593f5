package eval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/corpus"
	"github.com/deepresearch/deepresearch/internal/extractive"
)

// cablesIndex indexes the repository's test corpus (undersea cables),
// with extra files, in a temporary folder.
func cablesIndex(t *testing.T, extra map[string]string) *corpus.Index {
	t.Helper()
	dir := t.TempDir()
	docs := filepath.Join(dir, "corpus")
	if err := os.CopyFS(docs, os.DirFS(filepath.Join("..", "..", "testdata", "corpus"))); err != nil {
		t.Fatal(err)
	}
	for name, text := range extra {
		p := filepath.Join(docs, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ix, err := corpus.Open(context.Background(), filepath.Join(dir, "index.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if _, err := ix.Sync(context.Background(), docs); err != nil {
		t.Fatal(err)
	}
	return ix
}

func TestUnanswerableQuestionSaysSo(t *testing.T) {
	ix := cablesIndex(t, nil)
	rep, err := Research(context.Background(), PipelineConfig{Model: extractive.New(extractive.Options{}), Search: ix},
		"What is the airspeed velocity of an unladen swallow?")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.References) != 0 {
		t.Errorf("the report cites %d sources: %+v", len(rep.References), rep.References)
	}
	if !strings.Contains(rep.Body, extractive.NoReportEvidence) || strings.Contains(rep.Body, "[1]") {
		t.Errorf("the report does not say the sources hold no evidence:\n%s", rep.Body)
	}
}

func TestCopiesUnderTwoNamesCitedOnce(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join("..", "..", "testdata", "corpus", "operations", "cable-faults.md"))
	if err != nil {
		t.Fatal(err)
	}
	ix := cablesIndex(t, map[string]string{"mirror/repairing-undersea-cables.md": string(orig)})
	rep, err := Research(context.Background(), PipelineConfig{Model: extractive.New(extractive.Options{}), Search: ix},
		"How are broken submarine cables found and repaired?")
	if err != nil {
		t.Fatal(err)
	}
	copies := 0
	for _, r := range rep.References {
		if r.ID == "operations/cable-faults.md" || r.ID == "mirror/repairing-undersea-cables.md" {
			copies++
		}
	}
	if copies != 1 {
		t.Errorf("the report cites %d copies of the same text, want 1:\n%s", copies, rep.Body)
	}
}
