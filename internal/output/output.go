// Package output names a choice about a run's output that settings,
// requests and command lines spell as a word: the Action verification
// takes on a citation its source does not support, with its one Parse,
// which config, the root package and verify use. (The report's Format is
// the public render package's, the citation Style citeproc's, each with
// its own words; Names lists choices in their messages.)
package output

import (
	"errors"
	"fmt"
	"strings"
)

// Action is what verification does with a citation whose source does not
// support the sentence that cites it.
type Action string

// The actions.
const (
	Keep   Action = "keep"   // leave it; the report's verification lists it
	Flag   Action = "flag"   // keep it, marked "[unsupported: n]"
	Remove Action = "remove" // drop it from the report
)

// Actions lists the actions, in the order messages name them.
var Actions = []Action{Keep, Flag, Remove}

// ErrAction reports an action that is none of Actions.
var ErrAction = errors.New("unknown action on unsupported citations")

// ParseAction returns the action named s: "keep", "flag" or "remove"; ""
// is Flag, the default of output.unsupported. Other names are an error
// wrapping ErrAction.
func ParseAction(s string) (Action, error) {
	switch a := Action(s); a {
	case "":
		return Flag, nil
	case Keep, Flag, Remove:
		return a, nil
	}
	return "", fmt.Errorf("%w %q: want %s", ErrAction, s, Names(Actions))
}

// Names lists choices for a message: "a, b or c".
func Names[T ~string](choices []T) string {
	var b strings.Builder
	for i, c := range choices {
		switch {
		case i == 0:
		case i == len(choices)-1:
			b.WriteString(" or ")
		default:
			b.WriteString(", ")
		}
		b.WriteString(string(c))
	}
	return b.String()
}
