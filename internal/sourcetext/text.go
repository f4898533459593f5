// Package sourcetext is the plumbing of text from sources that the
// public source package and the stages share: cleaning untrusted text for
// a line of a list (Clean), splitting it as a model reads lines (Lines),
// hashing it (SHA256), reading the dates search APIs and page metadata
// write (ParseDate), joining authors into a Source's Author (JoinAuthors)
// and naming a knowledge base's collections (CollectionTitle). It is a
// leaf: it imports only the standard library.
package sourcetext

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"unicode/utf8"
)

// Clean folds white space to single spaces and drops control characters
// (C0, DEL, C1), so text from a corpus, the web or a model cannot break a
// line of a list or carry a terminal escape sequence.
func Clean(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return ' '
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

// SHA256 returns the hex SHA-256 of s: the hash of a passage and of a
// source's text read.
func SHA256(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// authorSep separates the authors of a Source's Author (source.AuthorSep).
const authorSep = "; "

// maxAuthors and maxAuthor bound what JoinAuthors keeps of a source's
// authors: untrusted metadata cannot make a reference line long.
const (
	maxAuthors = 10
	maxAuthor  = 100
)

// ParseAuthors is the Author of a list of names separated by ";" (a
// search result's, a document's metadata), as JoinAuthors makes it.
func ParseAuthors(list string) string {
	return JoinAuthors(strings.Split(list, ";")...)
}

// JoinAuthors is the Author of names: each cleaned (white space folded,
// control characters dropped, ";" made ","), empty and repeated ones
// dropped, at most 10 of at most 100 bytes each (cut at a rune), joined
// by "; " (source.AuthorSep).
func JoinAuthors(names ...string) string {
	var out []string
	for _, n := range names {
		n = Clean(strings.ReplaceAll(n, ";", ","))
		if len(n) > maxAuthor {
			cut := maxAuthor
			for cut > 0 && !utf8.RuneStart(n[cut]) {
				cut--
			}
			n = strings.TrimSpace(n[:cut])
		}
		if n != "" && !slices.Contains(out, n) && len(out) < maxAuthors {
			out = append(out, n)
		}
	}
	return strings.Join(out, authorSep)
}
