// Command deepresearch plans a research question, runs research agents in
// parallel and writes a cited report. Its subcommands also expose the
// citation core to programs in other languages (cite, collapse).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

// exitError carries the exit status a failure should produce. Status 2 is
// bad input or usage; 1 is a failure while working.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// inputError marks err as the caller's bad input (exit status 2).
func inputError(err error) error { return &exitError{code: 2, err: err} }

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := execute(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// execute runs the command line and returns the exit status.
func execute(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRootCmd(stdin, stdout, stderr)
	root.SetArgs(bareReportFlag(args))
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	// The library's errors already start with "deepresearch: ".
	fmt.Fprintf(stderr, "deepresearch: %s\n", printable(strings.TrimPrefix(err.Error(), "deepresearch: ")))
	var ee *exitError
	switch {
	case errors.As(err, &ee):
		return ee.code
	case errors.Is(err, context.Canceled):
		return 130
	case isUsage(err):
		return 2
	}
	return 1
}

type usageError struct{ error }

func (e usageError) Unwrap() error { return e.error }

func isUsage(err error) bool {
	var u usageError
	return errors.As(err, &u)
}

func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "deepresearch",
		Short: "Deep research with citations that are right",
		Long: `deepresearch plans a question into research tasks, runs research agents in
parallel over a corpus (offline by default), merges their citations into one
consistent numbering and writes a final report whose every citation resolves
to a source that was really retrieved.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	// A mistyped flag or command gets a "did you mean" (usage.go).
	root.SetFlagErrorFunc(flagError)
	root.SuggestionsMinimumDistance = 2
	root.AddCommand(newCiteCmd(), newCollapseCmd())
	for _, add := range extraCommands {
		root.AddCommand(add())
	}
	// Wrong arguments are usage errors (status 2), like wrong flags. The
	// root must be runnable for cobra to validate its arguments.
	root.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	var all []*cobra.Command
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		all = append(all, c)
		if c.HasSubCommands() {
			// Its arguments can only be a mistyped subcommand.
			c.Args = subcommandArgs
			c.SuggestionsMinimumDistance = 2
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for _, c := range all {
		if validate := c.Args; validate != nil {
			c.Args = func(c *cobra.Command, args []string) error {
				err := validate(c, args)
				if err == nil || isUsage(err) {
					return err
				}
				return usageError{fmt.Errorf("%w (see '%s --help')", err, c.CommandPath())}
			}
		}
	}
	return root
}

// extraCommands are registered by other files of this package.
var extraCommands []func() *cobra.Command
