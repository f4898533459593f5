package godoc

import (
	"fmt"
	"go/doc/comment"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// goHelpURL is the page that publishes the go command's help.
const goHelpURL = "https://pkg.go.dev/cmd/go"

// commandWord is a word of a go command's name in its usage line ("mod",
// "download"); flags, "[…]" and "<…>" end the name.
var commandWord = regexp.MustCompile(`^[a-z][a-z0-9.]*$`)

// helpDoc is one document of the go command's help.
type helpDoc struct {
	name   string // "build", "mod download", "testflag"; "" for `go help` itself
	topic  bool   // a help topic, not a command
	title  string // the section's heading: "Compile packages and dependencies"
	anchor string // pkg.go.dev's id of the heading
	blocks []comment.Block
}

// writeGoHelp writes cmd/go/<topic>.md for each command and help topic
// of the go command, from the doc comment of GOROOT/src/cmd/go/alldocs.go,
// which holds the text of every `go help` page: one section per command
// or topic, headed by its one-line description ("# Compile packages and
// dependencies"). A command's section opens with its usage line ("go mod
// download [-x] …"), which names it; a topic's heading is the description
// `go help` lists it with ("testflag  testing flags"). Other headings are
// sections of the page before them ("# Vendor Directories" in gopath).
// It returns the documents and bytes written; a distribution without
// cmd/go's source writes none.
func writeGoHelp(goroot, dir string) (int, int64, error) {
	path := filepath.Join(goroot, "src", "cmd", "go", "alldocs.go")
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.PackageClauseOnly|parser.ParseComments)
	if err != nil {
		if isNotExist(err) {
			return 0, 0, nil
		}
		return 0, 0, fmt.Errorf("godoc: go command help: %w", err)
	}
	if f.Doc == nil {
		return 0, 0, fmt.Errorf("godoc: go command help: %s has no doc comment", path)
	}
	var p comment.Parser
	docs := splitHelp(p.Parse(f.Doc.Text()))
	if len(docs) < 2 {
		return 0, 0, fmt.Errorf("godoc: go command help: %s has no command sections", path)
	}
	ids := map[*comment.Heading]string{}
	pr := &comment.Printer{
		HeadingLevel: 2,
		HeadingID:    func(h *comment.Heading) string { return ids[h] },
	}
	// pkg.go.dev gives a heading its default id, and the second heading
	// of the same id that id with "-1" added ("Make vendored copy of
	// dependencies" is both `go mod vendor` and `go work vendor`).
	seen := map[string]int{}
	anchor := func(h *comment.Heading) string {
		id := h.DefaultID()
		n := seen[id]
		seen[id]++
		if n > 0 {
			id = fmt.Sprintf("%s-%d", id, n)
		}
		ids[h] = id
		return id
	}
	for i := range docs {
		d := &docs[i]
		if d.name != "" {
			d.anchor = anchor(&comment.Heading{Text: []comment.Text{comment.Plain(d.title)}})
		}
		for _, b := range d.blocks {
			if h, ok := b.(*comment.Heading); ok {
				anchor(h)
			}
		}
	}
	var n int64
	for _, d := range docs {
		text := helpText(pr, d)
		name := "go"
		if d.name != "" {
			name = strings.ReplaceAll(d.name, " ", "-")
		}
		if err := writeFile(filepath.Join(dir, "cmd", "go", name+".md"), text); err != nil {
			return 0, n, fmt.Errorf("godoc: go command help: %w", err)
		}
		n += int64(len(text))
	}
	return len(docs), n, nil
}

// splitHelp cuts the go command's doc comment into its pages: the
// overview (`go help`), then one per command or topic.
func splitHelp(d *comment.Doc) []helpDoc {
	topics := map[string]string{} // lower-case description → command or topic name
	var out []helpDoc
	cur := &helpDoc{}
	for _, b := range d.Content {
		h, ok := b.(*comment.Heading)
		if !ok {
			cur.blocks = append(cur.blocks, b)
			continue
		}
		if len(out) == 0 {
			// The overview lists the commands and the topics with their
			// descriptions, in code blocks.
			for _, b := range cur.blocks {
				if c, ok := b.(*comment.Code); ok {
					for _, l := range strings.Split(c.Text, "\n") {
						if name, desc, ok := strings.Cut(strings.TrimSpace(l), " "); ok {
							topics[strings.ToLower(strings.TrimSpace(desc))] = name
						}
					}
				}
			}
		}
		out = append(out, *cur)
		cur = &helpDoc{title: plainText(h.Text)}
		if t, ok := topics[strings.ToLower(cur.title)]; ok {
			cur.name, cur.topic = t, true
		}
	}
	out = append(out, *cur)
	// Commands are named by their usage line; a section that is neither a
	// command nor a topic belongs to the page before it.
	var pages []helpDoc
	for i, d := range out {
		if i == 0 {
			pages = append(pages, d)
			continue
		}
		if name := usageName(d.blocks); name != "" {
			// The overview lists commands with their descriptions too.
			d.name, d.topic = name, false
		}
		if d.name == "" {
			last := &pages[len(pages)-1]
			last.blocks = append(last.blocks, &comment.Heading{Text: []comment.Text{comment.Plain(d.title)}})
			last.blocks = append(last.blocks, d.blocks...)
			continue
		}
		pages = append(pages, d)
	}
	return pages
}

// usageName returns the command a section documents, from the usage line
// under its first "Usage:" ("go mod download [-x] …" → "mod download"),
// or "".
func usageName(blocks []comment.Block) string {
	i := slices.IndexFunc(blocks, func(b comment.Block) bool {
		p, ok := b.(*comment.Paragraph)
		return ok && strings.TrimSpace(plainText(p.Text)) == "Usage:"
	})
	if i < 0 || i+1 == len(blocks) {
		return ""
	}
	c, ok := blocks[i+1].(*comment.Code)
	if !ok {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(c.Text), "\n")
	fields := strings.Fields(line)
	if len(fields) < 2 || fields[0] != "go" {
		return ""
	}
	var name []string
	for _, w := range fields[1:] {
		if !commandWord.MatchString(w) {
			break
		}
		name = append(name, w)
	}
	return strings.Join(name, " ")
}

// helpText renders one page: front matter with its URL, a title that says
// how to ask for it ("go test: Test packages", "go help testflag: Testing
// flags"), then its text.
func helpText(pr *comment.Printer, d helpDoc) string {
	var b strings.Builder
	url, title := goHelpURL, "go: the go command"
	switch {
	case d.topic:
		url, title = goHelpURL+"#"+d.anchor, "go help "+d.name+": "+d.title
	case d.name != "":
		url, title = goHelpURL+"#"+d.anchor, "go "+d.name+": "+d.title
	}
	fmt.Fprintf(&b, "---\nurl: %s\n---\n\n# %s\n\n", url, title)
	b.Write(pr.Markdown(&comment.Doc{Content: d.blocks}))
	return b.String()
}

// plainText is the text of a heading or paragraph, without markup.
func plainText(ts []comment.Text) string {
	var b strings.Builder
	for _, t := range ts {
		switch t := t.(type) {
		case comment.Plain:
			b.WriteString(string(t))
		case comment.Italic:
			b.WriteString(string(t))
		case *comment.Link:
			b.WriteString(plainText(t.Text))
		case *comment.DocLink:
			b.WriteString(plainText(t.Text))
		}
	}
	return b.String()
}
