package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/deepresearch/deepresearch/config/load"
)

// A mistyped command line is answered with what was probably meant: the
// command or flag within two edits of the word typed (or that it starts),
// else the commands that have a flag this one does not.

// unknownCommand is the usage error of name, which names no subcommand of
// c, with the subcommands it is close to.
func unknownCommand(c *cobra.Command, name string) error {
	msg := fmt.Sprintf("unknown command %q for %q", name, c.CommandPath())
	if s := c.SuggestionsFor(name); len(s) > 0 {
		msg += "; did you mean " + orList(quoteAll(s, "")) + "?"
	}
	return usageError{fmt.Errorf("%s (see '%s --help')", msg, c.CommandPath())}
}

// subcommandArgs is the Args of a command that only groups subcommands:
// an argument is a mistyped subcommand.
func subcommandArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return unknownCommand(c, args[0])
}

// flagError turns pflag's error for c's command line into a sentence
// that names the flag, what is wrong and what was probably meant.
func flagError(c *cobra.Command, err error) error {
	if c.HasSubCommands() && len(c.Flags().Args()) > 0 {
		// "deepresearch rn --corpus x": the command is the mistake.
		return unknownCommand(c, c.Flags().Args()[0])
	}
	var (
		notExist *pflag.NotExistError
		invalid  *pflag.InvalidValueError
		required *pflag.ValueRequiredError
	)
	msg := err.Error()
	switch {
	case errors.As(err, &notExist) && notExist.GetSpecifiedShortnames() != "":
		msg = "unknown flag -" + notExist.GetSpecifiedName()[:1]
		if group := notExist.GetSpecifiedShortnames(); len(group) > 1 {
			msg += " in -" + group
		}
	case errors.As(err, &notExist):
		name := notExist.GetSpecifiedName()
		msg = "unknown flag --" + name
		if s := flagSuggestions(c, name); len(s) > 0 {
			msg += "; did you mean " + orList(quoteAll(s, "--")) + "?"
		} else if in := commandsWithFlag(c.Root(), name); len(in) > 0 {
			msg += fmt.Sprintf(" for %s (%s %s it)", c.Name(), andList(in), plural(len(in), "has", "have"))
		}
	case errors.As(err, &invalid):
		f := invalid.GetFlag()
		msg = fmt.Sprintf("--%s %q: %s", f.Name, invalid.GetValue(), wantOf(f, invalid.Unwrap()))
	case errors.As(err, &required):
		f := required.GetFlag()
		arg, _ := pflag.UnquoteUsage(f)
		msg = fmt.Sprintf("--%s needs an argument: %s", f.Name, arg)
	}
	return usageError{fmt.Errorf("%s (see '%s --help')", msg, c.CommandPath())}
}

// wantOf says what a flag of f's type takes, for a value that did not
// parse (cause).
func wantOf(f *pflag.Flag, cause error) string {
	switch f.Value.Type() {
	case "int", "int64", "uint", "uint64":
		return "want a whole number"
	case "float64", "float32":
		return "want a number"
	case "duration":
		return "want a duration such as 90s, 2m or 1h30m"
	case "bool":
		return "want true or false"
	}
	return cause.Error()
}

// flagSuggestions are c's flags within two edits of name, that name
// starts or that start with name, or that are name with "_" for "-".
func flagSuggestions(c *cobra.Command, name string) []string {
	var out []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Name == "help" {
			return
		}
		if load.Distance(strings.ToLower(name), f.Name) <= 2 || strings.HasPrefix(f.Name, name) ||
			strings.ReplaceAll(name, "_", "-") == f.Name || (len(name) >= 4 && strings.HasPrefix(name, f.Name)) {
			out = append(out, f.Name)
		}
	})
	return out
}

// commandsWithFlag lists the commands under root (by name) that have the
// flag name.
func commandsWithFlag(root *cobra.Command, name string) []string {
	var out []string
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Flags().Lookup(name) != nil && sub.IsAvailableCommand() {
				out = append(out, strings.TrimPrefix(sub.CommandPath(), root.Name()+" "))
			}
			walk(sub)
		}
	}
	walk(root)
	slices.Sort(out)
	return out
}

func quoteAll(names []string, prefix string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = prefix + n
	}
	return out
}

// orList joins words as "a", "a or b", "a, b or c".
func orList(words []string) string { return joinList(words, "or") }

// andList joins words as "a", "a and b", "a, b and c".
func andList(words []string) string { return joinList(words, "and") }

func joinList(words []string, last string) string {
	if len(words) <= 1 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + last + " " + words[len(words)-1]
}
