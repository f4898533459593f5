package eval_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/events"

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
		if k := os.Getenv("DBG_SNIP"); k != "" {
			files := append([]string{c.Questions}, c.MoreQuestions...)
			n, inSnip, inDoc := 0, 0, 0
			limit := 5
			fmt.Sscan(k, &limit)
			for _, f := range files {
				qs, err := eval.LoadQuestions(filepath.Join("../../testdata/eval", f))
				if err != nil {
					t.Fatal(err)
				}
				for _, q := range qs {
					if len(q.Facts) == 0 {
						continue
					}
					n++
					rs, _ := p.Index.Search(context.Background(), q.Question, limit)
					var snips, docs []string
					seen := map[string]bool{}
					for _, r := range rs {
						snips = append(snips, r.Snippet)
						if !seen[r.DocID] {
							seen[r.DocID] = true
							d, _ := p.Index.Fetch(context.Background(), r.DocID)
							docs = append(docs, d.Text)
						}
					}
					ms := eval.MissingFacts(q.Facts, snips...)
					md := eval.MissingFacts(q.Facts, docs...)
					if len(ms) == 0 {
						inSnip++
					}
					if len(md) == 0 {
						inDoc++
					}
					fmt.Printf("%s snip-missing=%v doc-missing=%v\n", q.ID, ms, md)
				}
			}
			fmt.Printf("SNIP %s n=%d inSnip=%d inDoc=%d\n", c.Name, n, inSnip, inDoc)
			return
		}
		if os.Getenv("DBG_SEEN") != "" {
			run := researcher(t, p)
			files := append([]string{c.Questions}, c.MoreQuestions...)
			n, seenN, evN := 0, 0, 0
			for _, f := range files {
				qs, err := eval.LoadQuestions(filepath.Join("../../testdata/eval", f))
				if err != nil {
					t.Fatal(err)
				}
				for _, q := range qs {
					if len(q.Facts) == 0 {
						continue
					}
					n++
					var queries []string
					var evidence []string
					cur := map[int]*strings.Builder{}
					err := run(context.Background(), q.Question, func(e events.Event) {
						switch d := e.Data.(type) {
						case events.SearchData:
							queries = append(queries, d.Query)
						case events.AgentStartedData:
							cur[e.Agent] = new(strings.Builder)
						case events.DeltaData:
							if cur[e.Agent] != nil {
								cur[e.Agent].WriteString(d.Text)
							}
						case events.AgentFinishedData:
							if cur[e.Agent] != nil {
								evidence = append(evidence, cur[e.Agent].String())
							}
						}
					})
					if err != nil {
						t.Fatal(err)
					}
					var snips []string
					for _, qq := range queries {
						rs, _ := p.Index.Search(context.Background(), qq, 5)
						for _, r := range rs {
							snips = append(snips, r.Snippet)
						}
					}
					ms := eval.MissingFacts(q.Facts, snips...)
					me := eval.MissingFacts(q.Facts, evidence...)
					if len(ms) == 0 {
						seenN++
					}
					if len(me) == 0 {
						evN++
					}
					fmt.Printf("%s seen-missing=%v ev-missing=%v queries=%q\n", q.ID, ms, me, queries)
				}
			}
			fmt.Printf("SEEN %s n=%d seen=%d evidence=%d\n", c.Name, n, seenN, evN)
			return
		}
		if q := os.Getenv("DBG_SEARCH"); q != "" {
			rs, err := p.Index.Search(context.Background(), q, 10)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range rs {
				fmt.Printf("#### %s %.3f %s | %s\n%s\n", r.DocID, r.Score, r.Title, r.Location, r.Snippet)
			}
			return
		}
		ans := eval.Research(researcher(t, p))
		if os.Getenv("DBG_WATCH") != "" {
			ans = watched(t, p)
		}
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
