package main

import "slices"

// The settings flags (load.FlagKeys) by what they set. A command defines
// the groups that change what it does (load.AddFlagsFor), and no flag
// that would do nothing: a worker takes its research limits from each
// task, plan neither searches nor writes, doctor makes no run.
var (
	// modelFlags choose the models.
	modelFlags = []string{"provider", "model", "base-url"}
	// searchFlags choose what is searched: the embedding model, the local
	// corpus and its index, the search backends, the pages fetched.
	searchFlags = []string{"embeddings", "corpus", "index", "search", "fetch-allow"}
	// limitFlags bound a run.
	limitFlags = []string{"max-tasks", "parallelism", "search-limit", "max-tool-calls", "max-tokens", "agent-timeout",
		"max-run-tokens", "max-cost", "max-cycles"}
	// logFlags shape the log on stderr.
	logFlags = []string{"log-level", "log-format"}
)

// flagGroups joins groups of flag names into one list.
func flagGroups(groups ...[]string) []string { return slices.Concat(groups...) }
