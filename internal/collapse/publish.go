package collapse

import (
	"fmt"
	"strings"

	"github.com/deepresearch/deepresearch/internal/citeproc"
)

// Published is a text renumbered for readers.
type Published struct {
	Text string `json:"text"`
	// References are the cited sources numbered 1..K in order of first
	// appearance in Text; uncited sources are dropped.
	References []Source  `json:"references"`
	Unknown    []Unknown `json:"unknown"`
}

// Publish renumbers the sources text cites 1..K in order of first
// appearance, drops the sources it does not cite, and returns the
// reference list. Markers keep their bracket style; markers whose numbers
// are not among sources are dropped and reported.
func Publish(text string, sources []Source) (*Published, error) {
	mp, err := Mapping(sources)
	if err != nil {
		return nil, err
	}
	byNumber := make(map[int]Source, len(sources))
	for _, s := range sources {
		byNumber[s.Number] = s
	}
	pub := &Published{Unknown: []Unknown{}}
	var sb strings.Builder
	sb.Grow(len(text))
	p := citeproc.New(&sb, citeproc.Config{
		Mode:     citeproc.Renumber,
		Mapping:  mp,
		Numberer: citeproc.FirstCitedNumbers(), // merged numbers are distinct sources
		Hooks: citeproc.Hooks{
			Citation: func(c citeproc.Citation) {
				s := byNumber[c.Number]
				s.Number = c.Display
				pub.References = append(pub.References, s)
			},
			Unknown: func(u citeproc.Unknown) {
				pub.Unknown = append(pub.Unknown, Unknown{Number: u.Number, URL: u.URL, Marker: u.Marker})
			},
		},
	})
	p.WriteString(text)
	if err := p.Close(); err != nil {
		return nil, fmt.Errorf("collapse: publish: %w", err)
	}
	pub.Text = sb.String()
	if pub.References == nil {
		pub.References = []Source{}
	}
	return pub, nil
}
