package verify

import "github.com/deepresearch/deepresearch/internal/output"

// ActionOf is the fix for a, the action a run or a caller names ("keep",
// "flag", "remove"): Keep for anything but Flag and Remove.
func ActionOf(a output.Action) Action {
	switch a {
	case output.Flag:
		return Flag
	case output.Remove:
		return Remove
	}
	return Keep
}
