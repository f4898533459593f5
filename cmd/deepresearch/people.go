package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/config/load"
	"github.com/deepresearch/deepresearch/events"
)

func init() { extraCommands = append(extraCommands, newPlanCmd) }

// peopleFlags are the run command's flags for a person in the loop: the
// clarifying questions, the plan, and the report's shape.
type peopleFlags struct {
	clarify    deepresearch.ClarifyMode
	plan       string // a plan file (deepresearch plan's output)
	review     deepresearch.ReviewMode
	reviewPlan bool // --review first_plan
	length     int
	outline    string // a file: one section a line
	language   string
	audience   string
}

// add defines the flags on fs: all of them for run, only --outline for
// plan (the planner reads no report's length, language or audience).
func (pf *peopleFlags) add(fs *pflag.FlagSet, run bool) {
	fs.StringVar(&pf.outline, "outline", "", "`FILE` of the report's sections, one a line, in order (each researched as its own task)")
	if !run {
		return
	}
	fs.TextVar(&pf.clarify, "clarify", deepresearch.ClarifyMode(""), "clarifying questions before planning, `WHEN`: auto (asked at the prompt on a terminal; elsewhere the report states its assumptions) or never (default: research.clarify, auto)")
	fs.StringVar(&pf.plan, "plan", "", "research exactly the tasks of this plan `FILE` (as 'deepresearch plan' prints it; \"-\": stdin)")
	fs.BoolVar(&pf.reviewPlan, "review-plan", false, "show the plan before research: accept, edit (in $EDITOR) or reject it (on a terminal); --review first_plan")
	fs.TextVar(&pf.review, "review", deepresearch.ReviewMode(""), "`WHICH` plans to show before they are researched: first_plan, every_cycle (each later cycle's follow-ups too) or never (default: research.review_plan and research.review)")
	fs.IntVar(&pf.length, "length", 0, "target length of the report in `WORDS` (default: output.length)")
	fs.StringVar(&pf.language, "language", "", "the `LANGUAGE` the report is written in (default: output.language, else the question's)")
	fs.StringVar(&pf.audience, "audience", "", "who the report is for, and in what tone: an `AUDIENCE` such as \"engineers\" (default: output.audience)")
}

// request fills req from the flags: what the library is asked, and, on a
// terminal, the hooks that ask the person at it.
func (pf *peopleFlags) request(cmd *cobra.Command, req deepresearch.Request) (deepresearch.Request, error) {
	req.Clarify, req.Review = pf.clarify, pf.review
	if pf.reviewPlan {
		switch pf.review {
		case "":
			req.Review = deepresearch.ReviewFirstPlan
		case deepresearch.ReviewNever:
			return req, usageError{errors.New("--review-plan asks for the plan to be reviewed, and --review never for no review")}
		}
	}
	req.Length, req.Language, req.Audience = pf.length, pf.language, pf.audience
	if pf.outline != "" {
		b, err := os.ReadFile(pf.outline)
		if err != nil {
			return req, inputError(fmt.Errorf("--outline: %w", err))
		}
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "#-*"))
			if line != "" {
				req.Outline = append(req.Outline, line)
			}
		}
	}
	if pf.plan != "" {
		var r io.Reader
		if pf.plan == "-" {
			r = cmd.InOrStdin()
		} else {
			f, err := os.Open(pf.plan)
			if err != nil {
				return req, inputError(fmt.Errorf("--plan: %w", err))
			}
			defer f.Close()
			r = f
		}
		var p deepresearch.Plan
		if err := json.NewDecoder(r).Decode(&p); err != nil {
			return req, inputError(fmt.Errorf("--plan %s: %w", pf.plan, err))
		}
		req.Plan = &p
	}
	if err := req.Validate(); err != nil {
		return req, inputError(err)
	}
	if t, ok := terminal(cmd); ok {
		// Review is called only when the run reviews its plan: asked by
		// --review-plan or --review, or by the settings research.review_plan
		// and research.review.
		req.Hooks = &deepresearch.Hooks{Ask: t.ask, Review: t.review}
	} else if req.Review == deepresearch.ReviewFirstPlan || req.Review == deepresearch.ReviewEveryCycle {
		flag := "--review " + string(req.Review)
		if pf.reviewPlan {
			flag = "--review-plan"
		}
		return req, usageError{fmt.Errorf(`%s needs a terminal; elsewhere, "deepresearch plan" prints a plan to edit and "run --plan FILE" runs it`, flag)}
	}
	return req, nil
}

// prompt is a person at a terminal: questions go to out, answers come
// from in, a line each.
type prompt struct {
	in  *bufio.Reader
	out io.Writer
}

// terminal returns the prompt of a command whose stdin and stderr are a
// terminal.
func terminal(cmd *cobra.Command) (*prompt, bool) {
	in, ok := cmd.InOrStdin().(*os.File)
	if !ok || !isatty.IsTerminal(in.Fd()) || !isTerminal(cmd.ErrOrStderr()) {
		return nil, false
	}
	// The model's words are printed: a Write is a whole Fprintf.
	return &prompt{in: bufio.NewReader(in), out: printableWriter{W: cmd.ErrOrStderr(), JSON: false}}, true
}

// line reads one answer; ctx done or the input closed ends it.
func (p *prompt) line(ctx context.Context) (string, error) {
	type read struct {
		s   string
		err error
	}
	ch := make(chan read, 1)
	go func() { s, err := p.in.ReadString('\n'); ch <- read{s, err} }()
	select {
	case r := <-ch:
		if r.err != nil && !(errors.Is(r.err, io.EOF) && r.s != "") {
			return "", r.err
		}
		return strings.TrimSpace(r.s), nil
	case <-ctx.Done():
		return "", context.Cause(ctx)
	}
}

// ask asks the clarifying questions, one at a time; an empty answer keeps
// the assumption.
func (p *prompt) ask(ctx context.Context, qs []events.Clarification) ([]string, error) {
	fmt.Fprintf(p.out, "\nBefore the research, %d question(s) (Enter keeps the assumption):\n", len(qs))
	answers := make([]string, len(qs))
	for i, q := range qs {
		fmt.Fprintf(p.out, "%d. %s\n", i+1, q.Question)
		if q.Assumption != "" {
			fmt.Fprintf(p.out, "   [%s] ", q.Assumption)
		}
		fmt.Fprint(p.out, "> ")
		a, err := p.line(ctx)
		if err != nil {
			return answers, err
		}
		answers[i] = a
	}
	fmt.Fprintln(p.out)
	return answers, nil
}

// review shows the plan and asks to accept, edit or reject it.
func (p *prompt) review(ctx context.Context, plan deepresearch.Plan) (deepresearch.Plan, error) {
	for {
		fmt.Fprintf(p.out, "\nThe plan (%d tasks, at most %d cycles):\n", len(plan.Tasks), plan.MaxCycles)
		for i, t := range plan.Tasks {
			fmt.Fprintf(p.out, "%d. %s: %s\n", i+1, t.Title, t.Question)
		}
		fmt.Fprint(p.out, "[a]ccept, [e]dit, [r]eject? ")
		a, err := p.line(ctx)
		if err != nil {
			return plan, err
		}
		switch strings.ToLower(a) {
		case "", "a", "accept", "y", "yes":
			return plan, nil
		case "r", "reject", "n", "no":
			return plan, deepresearch.ErrPlanRejected
		case "e", "edit":
			edited, err := p.edit(ctx, plan)
			if err != nil {
				fmt.Fprintf(p.out, "The edit was not taken: %v\n", err)
				continue
			}
			plan = edited
		}
	}
}

// edit opens the plan as JSON in $EDITOR (vi without one) and reads it
// back.
func (p *prompt) edit(ctx context.Context, plan deepresearch.Plan) (deepresearch.Plan, error) {
	dir, err := os.MkdirTemp("", "deepresearch-plan-")
	if err != nil {
		return plan, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "plan.json")
	b, _ := json.MarshalIndent(plan, "", "  ")
	if err := os.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return plan, err
	}
	editor := os.Getenv("VISUAL")
	if editor == "" {
		editor = os.Getenv("EDITOR")
	}
	if editor == "" {
		editor = "vi"
	}
	args := strings.Fields(editor)
	c := exec.CommandContext(ctx, args[0], append(args[1:], path)...)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, os.Stderr, os.Stderr
	if err := c.Run(); err != nil {
		return plan, fmt.Errorf("%s: %w", editor, err)
	}
	b, err = os.ReadFile(path)
	if err != nil {
		return plan, err
	}
	var out deepresearch.Plan
	if err := json.Unmarshal(b, &out); err != nil {
		return plan, err
	}
	return out, out.Validate()
}

func newPlanCmd() *cobra.Command {
	var configFile string
	var pf peopleFlags
	cmd := &cobra.Command{
		Use:   "plan QUESTION",
		Short: "Plan a question into research tasks and print the plan as JSON",
		Long: `plan asks the planner to split the question into research tasks, as run does,
and prints the plan as JSON on stdout without researching it. Edit it (add,
remove, reword tasks) and run exactly its tasks with "deepresearch run --plan FILE".`,
		Example: `  deepresearch plan "How did the 1858 Atlantic cable fail?" > plan.json
  deepresearch run --plan plan.json "How did the 1858 Atlantic cable fail?"`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 || strings.TrimSpace(args[0]) == "" {
				return usageError{errors.New("plan takes one question (quote it)")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := settings(cmd, configFile)
			if err != nil {
				return err
			}
			r, err := config.NewResearcher(s, nil)
			if err != nil {
				return inputError(err)
			}
			defer r.Close()
			pf.clarify = deepresearch.ClarifyNever
			req, err := pf.request(cmd, deepresearch.Request{Question: args[0]})
			if err != nil {
				return err
			}
			p, err := r.Plan(cmd.Context(), req)
			if err != nil {
				return err
			}
			b, err := json.MarshalIndent(p, "", "  ")
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s\n", b)
			return err
		},
	}
	// The planner reads the question, the task cap and the outline: it
	// neither searches nor writes the report.
	load.AddFlagsFor(cmd.Flags(), flagGroups(modelFlags, []string{"max-tasks", "max-cycles"})...)
	cmd.Flags().StringVar(&configFile, "config", "", "YAML configuration `FILE`")
	pf.add(cmd.Flags(), false)
	return cmd
}
