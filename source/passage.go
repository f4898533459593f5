package source

import "github.com/deepresearch/deepresearch/internal/sourcetext"

// Passage is a span of the text read of a source: the part a citation of
// it was checked against. It is kept with a report so that the report can
// be checked again without the source.
//
// Its JSON form is part of a report's ("passages" of a reference).
type Passage struct {
	// Text is the passage's text.
	Text string `json:"text"`
	// SHA256 is the hex SHA-256 of Text, so a passage edited after the
	// check is told from the one that was read.
	SHA256 string `json:"sha256"`
	// Start and End are Text's byte offsets in the whole text read (whose
	// own hash a report keeps beside its passages).
	Start int `json:"start"`
	End   int `json:"end"`
}

// NewPassage returns the passage text[start:end] of a text, hashed.
func NewPassage(text string, start, end int) Passage {
	t := text[start:end]
	return Passage{Text: t, SHA256: sourcetext.SHA256(t), Start: start, End: end}
}

// Intact reports whether the passage's text is the one its hash was taken
// of.
func (p Passage) Intact() bool { return p.SHA256 == sourcetext.SHA256(p.Text) }
