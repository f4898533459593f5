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
	var (
		para   strings.Builder
		level  int                // heading level of the paragraph being read; 0: a paragraph
		depth  int                // text:p and text:h elements open: a frame's text inside a paragraph joins it
		skip   int                // depth inside an element of odtSkipped
		cells  []*strings.Builder // cells of the table row being read
		rows   int                // depth of table rows
		paraN  int                // paragraphs so far, for errors
		inBody bool               // inside office:text
	)
	where := func() string { return "content.xml, paragraph " + strconv.Itoa(paraN) }
	endPara := func() error {
		paraN++
		text := collapseSpace(para.String())
		para.Reset()
		if text != "" && !z.bud.spend(len(text)+unitCost) {
			return z.bud.over(where())
		}
		switch {
		case text == "":
		case rows > 0:
			if len(cells) > 0 {
				c := cells[len(cells)-1]
				if c.Len() > 0 {
					c.WriteByte(' ')
				}
				c.WriteString(text)
			}
		case level > 0:
			b.heading(min(level, 6), text)
		default:
			b.block(text, false, 0, 0)
		}
		level = 0
		return nil
	}
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
					para.WriteByte(' ') // a text frame's paragraph, inside this one
					return nil
				}
				para.Reset()
				level = 0
				if name == "h" {
					level = 1
					if n, err := strconv.Atoi(attr(e, "outline-level")); err == nil && n > 0 {
						level = n
					}
				}
			case "s", "tab", "line-break":
				para.WriteByte(' ')
			case "table-row":
				rows++
				cells = cells[:0]
			case "table-cell", "covered-table-cell":
				cells = append(cells, new(strings.Builder))
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
				depth--
				if depth == 0 {
					return endPara()
				}
			case "table-row":
				rows--
				var kept []string
				for _, c := range cells {
					if c.Len() > 0 {
						kept = append(kept, c.String())
					}
				}
				if rows == 0 && len(kept) > 0 {
					b.block(strings.Join(kept, " | "), false, 0, 0)
				}
			}
		case xml.CharData:
			if inBody && skip == 0 && depth > 0 {
				if para.Len()+len(e) > z.bud.left {
					return z.bud.over(where())
				}
				para.Write(e)
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
