package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/deepresearch/deepresearch"
	docs "github.com/deepresearch/deepresearch/corpus"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/eval"
)

func init() { extraCommands = append(extraCommands, newEvalCmd) }

func newEvalCmd() *cobra.Command {
	var (
		questions string
		only      []string
		maxTasks  int
		verbose   bool
	)
	c := &cobra.Command{
		Use:   "eval",
		Short: "Measure retrieval and answer quality against a plain search, on nine real corpora",
		Long: `eval writes each evaluation corpus into a temporary folder and indexes it: the
Go distribution's docs (go/doc over $(go env GOROOT)/src with examples, the
go command's help, $(go env GOROOT)/doc: the default corpus), FOLDOC (Debian
dict-foldoc), Python's documentation (python3-doc), the manual pages
(manpages, manpages-dev, rendered by mandoc), PostgreSQL's documentation
(postgresql-doc), part of the Linux kernel's documentation (linux-doc),
git's (git-doc), SQLite's (sqlite3-doc) and Node.js's API documentation
(nodejs-doc, which conflicts with NodeSource's nodejs: unpack it with
dpkg-deb -x and name its usr/share/doc/nodejs/api folder in
EVAL_NODEJS_DOCS). It answers every question of the corpus's question sets
with a full research run and with a plain BM25
search of the question (top 5 documents), and prints both side by side: hit
rate (an expected document cited), recall of the expected documents,
precision, off-topic citations and "no evidence" answers; and, over the
questions with an answer key (the facts a correct answer contains),
evidence recall (every fact in what the agents handed the writer; for the
plain search, in its five documents) and answered (every fact in the
report). With --verbose it lists each question's citations and the facts
missing. A corpus whose package is not installed is skipped.

Run it from a checkout of the repository, or give --questions.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runEval(cmd.Context(), cmd, questions, only, maxTasks, verbose)
		},
	}
	c.Flags().StringVar(&questions, "questions", filepath.Join("testdata", "eval"), "`DIR` of the questions files")
	c.Flags().StringSliceVar(&only, "corpus", nil, "evaluate only these `CORPORA` (go, foldoc, python, manpages, postgresql, linux-doc, git-doc, sqlite, nodejs)")
	c.Flags().IntVar(&maxTasks, "max-tasks", 0, "`N` research tasks per question (default 4)")
	c.Flags().BoolVarP(&verbose, "verbose", "v", false, "print each question's citations and missing facts")
	return c
}

func runEval(ctx context.Context, cmd *cobra.Command, questionsDir string, only []string, maxTasks int, verbose bool) error {
	if ctx == nil {
		ctx = context.Background()
	}
	for _, c := range eval.CorporaFrom(eval.Sources{NodeDocs: os.Getenv(eval.NodeDocsEnv)}) {
		if len(only) > 0 && !slices.Contains(only, c.Name) {
			continue
		}
		if err := evalCorpus(ctx, cmd, c, questionsDir, maxTasks, verbose); errors.Is(err, eval.ErrMissing) {
			fmt.Fprintf(cmd.ErrOrStderr(), "%s: skipped: %s\n", c.Name, printable(err.Error()))
		} else if err != nil {
			return err
		}
	}
	return nil
}

func evalCorpus(ctx context.Context, cmd *cobra.Command, c eval.Corpus, questionsDir string, maxTasks int, verbose bool) error {
	dir, err := eval.TempDir(c.Name)
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	p, err := eval.Prepare(ctx, c, dir)
	if err != nil {
		return err
	}
	defer p.Close()
	fmt.Fprintf(cmd.ErrOrStderr(), "%s: %d documents (%.1f MB) written and indexed in %v\n",
		c.Name, p.Stats.Docs+p.Stats.Packages, float64(p.Stats.Bytes)/1e6, p.Took.Round(time.Millisecond))
	ix, err := docs.Open(p.Docs, docs.Options{IndexPath: p.IndexPath})
	if err != nil {
		return err
	}
	r, err := deepresearch.New(deepresearch.Config{Search: ix, Limits: deepresearch.Limits{MaxTasks: maxTasks}})
	if err != nil {
		ix.Close()
		return err
	}
	defer r.Close()
	research := eval.Research(func(ctx context.Context, q string, sink func(events.Event)) error {
		run, err := r.Start(ctx, deepresearch.Request{Question: q}, deepresearch.RunOptions{Sink: sink})
		if err != nil {
			return err
		}
		_, err = run.Wait()
		return err
	})
	for _, file := range c.QuestionSets() {
		cmp, err := p.CompareSet(ctx, questionsDir, file, research)
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return inputError(err)
			}
			return err
		}
		cmp.Print(cmd.OutOrStdout(), verbose)
	}
	return nil
}
