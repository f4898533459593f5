package eval_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/eval"
)

func TestZZDebug(t *testing.T) {
	name, q := os.Getenv("ZZ_CORPUS"), os.Getenv("ZZ_Q")
	if name == "" {
		t.Skip()
	}
	for _, c := range eval.Corpora() {
		if c.Name != name {
			continue
		}
		p := prepare(t, c)
		a, err := eval.Research(researcher(t, p))(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("EVIDENCE:\n%s\n\nREPORT:\n%s\nCITED %v KEPT %v", strings.Join(a.Evidence, "\n----\n"), a.Report, a.Cited, a.Kept)
	}
}
