package extract

import (
	"encoding/xml"
	"strconv"
	"strings"
)

// odtSkipped are the elements of an OpenDocument text whose text is not
// the document's: deleted text kept for change tracking, notes (the
// footnote's marker and body, which would land inside the sentence it
// annotates), comments, and the declarations of numbered sequences.
var odtSkipped = map[string]bool{
	"tracked-changes": true,
	"note":            true,
	"annotation":      true,
	"sequence-decls":  true,
}

// extractODT reads an OpenDocument text (.odt): content.xml's text:h
// elements are headings (their text:outline-level, 1 when absent), its
// text:p elements paragraphs (of lists too), each table row a block of
// its cells separated by " | " (as DOCX's). Deleted text kept for change
// tracking, notes and comments are left out. The title is meta.xml's
// dc:title, else the first top-level heading.
func extractODT(z *zipReader, fallback string) (Document, error) {
	data, err := z.read("content.xml")
	if err != nil {
		return Document{}, err
	}
	var b builder
	b.metaTitle = odfTitle(z)
	body := wordBody{b: &b, bud: z.bud, member: "content.xml"}
	var (
		depth  int  // text:p and text:h elements open: a frame's text inside a paragraph joins it
		skip   int  // depth inside an element of odtSkipped
		inBody bool // inside office:text
	)
	err = xmlWalk(z.bud, data, "content.xml", func(tok xml.Token) error {
		switch e := tok.(type) {
		case xml.StartElement:
			name := e.Name.Local
			switch {
			case name == "text" && e.Name.Space == odfOffice:
				inBody = true
				return nil
			case !inBody:
				return nil
			case skip > 0 || odtSkipped[name]:
				skip++
				return nil
			}
			switch name {
			case "p", "h":
				depth++
				if depth > 1 {
					body.space() // a text frame's paragraph, inside this one
					return nil
				}
				level := 0
				if name == "h" {
					level = 1
					if n, err := strconv.Atoi(attr(e, "outline-level")); err == nil && n > 0 {
						level = min(n, 6)
					}
				}
				body.start(level)
			case "s", "tab", "line-break":
				body.space()
			case "table-row":
				body.startRow()
			case "table-cell", "covered-table-cell":
				body.startCell()
			}
		case xml.EndElement:
			name := e.Name.Local
			switch {
			case name == "text" && e.Name.Space == odfOffice:
				inBody = false
				return nil
			case !inBody:
				return nil
			case skip > 0:
				skip--
				return nil
			}
			switch name {
			case "p", "h":
				if depth--; depth == 0 {
					return body.end()
				}
			case "table-row":
				body.endRow()
			}
		case xml.CharData:
			if inBody && skip == 0 && depth > 0 {
				return body.write(e)
			}
		}
		return nil
	})
	if err != nil {
		return Document{}, err
	}
	d := b.finish(fallback)
	d.Text = strings.TrimSpace(b.out.String())
	return d, nil
}

// odfOffice is the namespace of OpenDocument's office: elements.
const odfOffice = "urn:oasis:names:tc:opendocument:xmlns:office:1.0"
