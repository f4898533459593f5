package corpus

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/deepresearch/deepresearch/internal/extract"
)

// CheckFolder checks that dir is a folder holding at least one file of a
// document format the index reads (outside hidden files and folders, as
// Sync walks it), so that a caller can refuse a corpus that cannot be
// searched before it starts any work. It reads no file: it walks the
// folder's listing, in lexical order, up to the first document. It
// returns nil, or a *Error wrapping ErrNoFolder (dir does not exist, or
// is not a folder; fs.ErrNotExist too when it does not exist) or
// ErrNoDocuments (the folder is empty, or holds only files of other
// formats, a few of which the message names).
func CheckFolder(dir string) error {
	root, err := resolveRoot(dir)
	if err != nil {
		return &Error{Op: "open folder", Subject: dir, Err: err}
	}
	var others []Skip
	found := false
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil && path == root:
			return err
		case err != nil || path == root:
			return nil // an unreadable folder: Sync skips it too
		case strings.HasPrefix(d.Name(), "."):
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		case d.IsDir():
			return nil
		}
		if name, _ := extract.Gzipped(d.Name()); extract.FormatOf(name) != extract.FormatNone {
			found = true
			return fs.SkipAll
		}
		rel, _ := filepath.Rel(root, path)
		others = append(others, Skip{Path: filepath.ToSlash(rel), Unsupported: true})
		return nil
	})
	switch {
	case err != nil:
		return &Error{Op: "open folder", Subject: dir, Err: err}
	case found:
		return nil
	}
	return &Error{Op: "open folder", Subject: dir, Err: noDocuments(len(others), others)}
}

// NoDocuments returns nil when st, the stats of a Sync, says that the
// index holds documents; else an error wrapping ErrNoDocuments that says
// why none is there: the folder is empty, its files are of formats the
// index does not read, or they were skipped (a few named, with their
// reasons).
func NoDocuments(st SyncStats) error {
	if st.Documents > 0 {
		return nil
	}
	return noDocuments(st.Skipped, st.Skips)
}

// noDocuments is ErrNoDocuments for a folder whose n files were all
// skipped; skips are some of them.
func noDocuments(n int, skips []Skip) error {
	if n == 0 {
		return fmt.Errorf("%w: the folder is empty", ErrNoDocuments)
	}
	const named = 3
	var names []string
	all := true // all of them of formats the index does not read
	for _, sk := range skips {
		all = all && sk.Unsupported
	}
	for _, sk := range skips[:min(len(skips), named)] {
		if all {
			names = append(names, sk.Path)
		} else {
			names = append(names, sk.Path+": "+sk.Reason)
		}
	}
	if n > len(names) {
		names = append(names, "…")
	}
	files := "1 file"
	if n > 1 {
		files = fmt.Sprintf("%d files", n)
	}
	if all {
		return fmt.Errorf("%w: %s, of formats the index does not read (%s)", ErrNoDocuments, files, strings.Join(names, ", "))
	}
	return fmt.Errorf("%w: %s, all skipped (%s)", ErrNoDocuments, files, strings.Join(names, "; "))
}
