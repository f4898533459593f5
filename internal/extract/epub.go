package extract

import (
	"encoding/xml"
	"fmt"
	"net/url"
	"path"
	"strings"
)

// extractEPUB reads the chapters of an EPUB in spine order, each once and
// as HTML (headings give the heading paths), the title from the package's
// metadata.
func extractEPUB(z *zipReader, fallback string) (Document, error) {
	container, err := z.read("META-INF/container.xml")
	if err != nil {
		return Document{}, err
	}
	var opfPath string
	xmlWalk(z.bud, container, "META-INF/container.xml", func(tok xml.Token) error {
		if e, ok := tok.(xml.StartElement); ok && e.Name.Local == "rootfile" && opfPath == "" {
			opfPath = cleanMember(attr(e, "full-path"))
		}
		return nil
	})
	if opfPath == "" {
		return Document{}, fmt.Errorf("%w: META-INF/container.xml names no package file", ErrMalformed)
	}
	opf, err := z.read(opfPath)
	if err != nil {
		return Document{}, err
	}
	var (
		title    strings.Builder
		inTitle  bool
		manifest = map[string]string{} // id → member
		spine    []string
	)
	base := path.Dir(opfPath)
	err = xmlWalk(z.bud, opf, opfPath, func(tok xml.Token) error {
		switch e := tok.(type) {
		case xml.StartElement:
			switch e.Name.Local {
			case "title":
				inTitle = title.Len() == 0
			case "item":
				href, err := url.PathUnescape(attr(e, "href"))
				if err != nil {
					href = attr(e, "href")
				}
				manifest[attr(e, "id")] = cleanMember(path.Join(base, href))
			case "itemref":
				spine = append(spine, attr(e, "idref"))
			}
		case xml.EndElement:
			if e.Name.Local == "title" {
				inTitle = false
			}
		case xml.CharData:
			// A title split into many pieces (by comments) is built in
			// linear time, and kept to maxTitle bytes.
			if inTitle && title.Len() < maxTitle {
				title.Write(e[:min(len(e), maxTitle-title.Len())])
			}
		}
		return nil
	})
	if err != nil {
		return Document{}, err
	}
	var d Document
	var text []string
	read := map[string]bool{} // a chapter the spine lists again is read once
	for _, id := range spine {
		member, ok := manifest[id]
		if !ok || !z.has(member) || read[member] {
			continue
		}
		read[member] = true
		data, err := z.read(member)
		if err != nil {
			return Document{}, err
		}
		ch := extractHTML(Clean(validText(data)), "")
		if err := z.bud.take(len(ch.Text)+unitCost*(len(ch.blocks)+len(ch.sections)), member); err != nil {
			return Document{}, err
		}
		d.appendDoc(ch)
		if ch.Text != "" {
			text = append(text, ch.Text)
		}
	}
	d.Title = collapseSpace(Clean(title.String()))
	if d.Title == "" {
		d.Title = fallback
	}
	d.Text = strings.Join(text, "\n\n")
	return d, nil
}

// maxTitle bounds a title read from metadata, in bytes: past it, the
// title is cut.
const maxTitle = 4 << 10

// appendDoc adds o's sections and blocks after d's; the line numbers of
// o's blocks, which count in another file, are dropped.
func (d *Document) appendDoc(o Document) {
	if len(d.sections) == 0 {
		d.sections = append(d.sections, section{})
	}
	off := len(d.sections)
	d.sections = append(d.sections, o.sections...)
	for _, b := range o.blocks {
		b.sec += off
		b.first, b.last = 0, 0
		d.blocks = append(d.blocks, b)
	}
}
