package corpus

import "errors"

var (
	// ErrOtherCorpus reports a Sync of a folder into an index that belongs
	// to another folder.
	ErrOtherCorpus = errors.New("corpus: index belongs to another folder")
	// ErrSchema reports a database this package cannot use: written by a
	// newer version, or not a corpus index at all.
	ErrSchema = errors.New("corpus: unusable index schema")
	// ErrNoCorpus reports that DefaultCorpus found no Go documentation folder.
	ErrNoCorpus = errors.New("corpus: no default corpus folder")
)
