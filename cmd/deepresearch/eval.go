package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/deepresearch/deepresearch"
	corpusindex "github.com/deepresearch/deepresearch/internal/corpus"
	"github.com/deepresearch/deepresearch/internal/eval"
)

func init() { extraCommands = append(extraCommands, newEvalCmd) }

func newEvalCmd() *cobra.Command {
	var (
		questions string
		keep      string
		maxTasks  int
		verbose   bool
	)
	c := &cobra.Command{
		Use:   "eval",
		Short: "Measure retrieval quality against a plain search, on the Go standard library's docs",
		Long: `eval writes the evaluation corpus (one markdown document per standard-library
package, made with go/doc from $(go env GOROOT)/src, plus $(go env GOROOT)/doc)
into a temporary folder, indexes it, answers every question of the questions
file with a full research run and with a plain BM25 search of the question (top
5 documents), and prints both side by side: hit rate (an expected document
cited), recall of the expected documents, precision (cited documents that are
expected or share a key term with the question) and off-topic citations.

Run it from a checkout of the repository, or give --questions.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runEval(cmd.Context(), cmd, questions, keep, maxTasks, verbose)
		},
	}
	c.Flags().StringVar(&questions, "questions", filepath.Join("testdata", "eval", "questions.json"), "questions file")
	c.Flags().StringVar(&keep, "keep", "", "write the corpus and index into this folder and keep them (default: a temporary folder, removed)")
	c.Flags().IntVar(&maxTasks, "max-tasks", 0, "research tasks per question (default 4)")
	c.Flags().BoolVarP(&verbose, "verbose", "v", false, "print each question's citations")
	return c
}

func runEval(ctx context.Context, cmd *cobra.Command, questionsFile, keep string, maxTasks int, verbose bool) error {
	if ctx == nil {
		ctx = context.Background()
	}
	qs, err := eval.LoadQuestions(questionsFile)
	if err != nil {
		return inputError(err)
	}
	dir := keep
	if dir == "" {
		if dir, err = os.MkdirTemp("", "deepresearch-eval-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	out := cmd.OutOrStdout()
	start := time.Now()
	docs := filepath.Join(dir, "corpus")
	st, err := eval.WriteCorpus(ctx, eval.GOROOT(), docs)
	if err != nil {
		return err
	}
	// The baseline searches the index the research run uses.
	dbPath := filepath.Join(dir, "index.db")
	ix, err := corpusindex.Open(ctx, dbPath)
	if err != nil {
		return err
	}
	defer ix.Close()
	if _, err := ix.Sync(ctx, docs); err != nil {
		return err
	}
	r, err := deepresearch.New(deepresearch.Config{Corpus: docs, IndexPath: dbPath, MaxTasks: maxTasks})
	if err != nil {
		return err
	}
	defer r.Close()
	fmt.Fprintf(cmd.ErrOrStderr(), "corpus: %d package documents and %d files of GOROOT/doc (%.1f MB), indexed in %v\n",
		st.Packages, st.Docs, float64(st.Bytes)/1e6, time.Since(start).Round(time.Millisecond))

	research := func(ctx context.Context, q string) ([]string, error) {
		rep, err := r.Run(ctx, q)
		if err != nil {
			return nil, err
		}
		var ids []string
		for _, ref := range rep.References {
			if !slices.Contains(ids, ref.ID) {
				ids = append(ids, ref.ID)
			}
		}
		return ids, nil
	}
	docText := func(ctx context.Context, id string) (string, error) {
		d, err := ix.Fetch(ctx, id)
		return d.Title + "\n" + d.Text, err
	}
	pipe, pres, err := eval.Evaluate(ctx, "research", qs, research, docText)
	if err != nil {
		return err
	}
	base, bres, err := eval.Evaluate(ctx, "plain BM25 top 5", qs, eval.Baseline(ix, 5), docText)
	if err != nil {
		return err
	}
	eval.Table(out, pipe, base)
	if verbose {
		fmt.Fprintln(out)
		for i, p := range pres {
			fmt.Fprintf(out, "%s %q\n  expected %v\n  research %v\n  baseline %v\n", p.ID, p.Question.Question, p.Expect, p.Cited, bres[i].Cited)
		}
	}
	return nil
}
