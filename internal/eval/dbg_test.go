package eval_test

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/eval"
)

func TestDebugOne(t *testing.T) {
	name := os.Getenv("DBG_CORPUS")
	if name == "" {
		t.Skip()
	}
	for _, c := range eval.Corpora() {
		if c.Name != name {
			continue
		}
		p := prepare(t, c)
		if d := os.Getenv("DBG_DUMP"); d != "" {
			os.RemoveAll(d)
			os.CopyFS(d, os.DirFS(p.Docs))
		}
		if id := os.Getenv("DBG_DOC"); id != "" {
			d, err := p.Index.Fetch(context.Background(), id)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Println(d.Text)
			return
		}
		ans := eval.Research(researcher(t, p))
		for _, q := range strings.Split(os.Getenv("DBG_Q"), "|") {
			a, err := ans(context.Background(), q)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Printf("==== %s\nTASKS %q\nKEPT %v\nCITED %v\n", q, a.Tasks, a.Kept, a.Cited)
			if os.Getenv("DBG_EV") != "" {
				for i, e := range a.Evidence {
					fmt.Printf("---- agent %d\n%s\n", i, e)
				}
			}
			fmt.Printf("---- REPORT\n%s\n", a.Report)
		}
	}
}
