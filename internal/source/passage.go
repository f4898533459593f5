package source

import (
	"crypto/sha256"
	"encoding/hex"
)

// Passage is a span of the text read of a source: the part a citation of
// it was checked against. It is kept with a report so that the report can
// be checked again without the source.
//
// SHA256 is the hash of Text, so a passage edited after the check is told
// from the one that was read; Start and End are Text's byte offsets in the
// whole text read (whose own hash a report keeps beside its passages).
type Passage struct {
	Text   string `json:"text"`
	SHA256 string `json:"sha256"`
	Start  int    `json:"start"`
	End    int    `json:"end"`
}

// NewPassage returns the passage text[start:end] of a text, hashed.
func NewPassage(text string, start, end int) Passage {
	t := text[start:end]
	return Passage{Text: t, SHA256: SHA256(t), Start: start, End: end}
}

// Intact reports whether the passage's text is the one its hash was taken
// of.
func (p Passage) Intact() bool { return p.SHA256 == SHA256(p.Text) }

// SHA256 returns the hex SHA-256 of s: the hash of a passage and of a
// source's text read.
func SHA256(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
