package verify

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// ParseSources reads sources from JSON: a list of {"number", "title",
// "url", "text"} (also "id"), or an object whose "references" field is such
// a list (the JSON form of a report). Unknown fields are ignored, so a
// report's references, which carry more, are read as they are.
func ParseSources(data []byte) ([]Source, error) {
	data = bytes.TrimSpace(data)
	var list []Source
	switch {
	case len(data) > 0 && data[0] == '[':
		if err := json.Unmarshal(data, &list); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrSources, jsonWhere(data, err))
		}
	case len(data) > 0 && data[0] == '{':
		var obj struct {
			References *[]Source `json:"references"`
		}
		if err := json.Unmarshal(data, &obj); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrSources, jsonWhere(data, err))
		}
		if obj.References == nil {
			return nil, fmt.Errorf("%w: a JSON object of sources needs a \"references\" list", ErrSources)
		}
		list = *obj.References
	default:
		return nil, fmt.Errorf("%w: want a JSON list of sources or an object with \"references\"", ErrSources)
	}
	seen := map[int]bool{}
	for i, s := range list {
		switch {
		case s.Number < 1:
			return nil, fmt.Errorf("%w: source %d: \"number\" must be 1 or more, got %d", ErrSources, i+1, s.Number)
		case seen[s.Number]:
			return nil, fmt.Errorf("%w: source %d: number %d is used twice", ErrSources, i+1, s.Number)
		}
		seen[s.Number] = true
	}
	return list, nil
}

// jsonWhere adds the line and column of a syntax or type error.
func jsonWhere(data []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 || off > int64(len(data)) {
		return err
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := int(off) - bytes.LastIndexByte(data[:off], '\n')
	return fmt.Errorf("line %d, column %d: %w", line, col, err)
}

// documentExts are the file extensions SourcesFromFS reads.
var documentExts = map[string]bool{
	".md": true, ".markdown": true, ".mdx": true, ".txt": true, ".text": true, ".rst": true,
	".adoc": true, ".asciidoc": true, ".org": true, ".tex": true,
	".html": true, ".htm": true, ".xhtml": true,
}

// SourcesFromFS reads a folder of documents as sources. Files are numbered
// by a leading number in their name ("3.md", "02-intro.txt") when every file
// has one, else 1..N in path order. The URL of each is "file:" and its
// path in the folder; HTML is reduced to its text. Files that are not
// documents (by extension), are not UTF-8, or are hidden are skipped. A
// document's YAML front matter gives its title, grade, type and ref (see
// Source).
// Reading goes through fsys, so an os.Root's FS keeps symbolic links from
// leading out of the folder.
func SourcesFromFS(fsys fs.FS) ([]Source, error) {
	var paths []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		base := path.Base(p)
		if p != "." && strings.HasPrefix(base, ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && documentExts[strings.ToLower(path.Ext(p))] {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSources, err)
	}
	slices.Sort(paths)
	var out []Source
	numbered := len(paths) > 0
	for _, p := range paths {
		if leadingNumber(path.Base(p)) == 0 {
			numbered = false
		}
	}
	seen := map[int]string{}
	for i, p := range paths {
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrSources, err)
		}
		if !utf8.Valid(b) {
			continue
		}
		n := i + 1
		if numbered {
			n = leadingNumber(path.Base(p))
			if other, dup := seen[n]; dup {
				return nil, fmt.Errorf("%w: %s and %s both have number %d", ErrSources, other, p, n)
			}
			seen[n] = p
		}
		text, title := DocumentText(p, b)
		fm := frontMatter(string(b))
		if fm.title != "" {
			title = fm.title
		}
		if title == "" {
			title = path.Base(p)
		}
		out = append(out, Source{Number: n, ID: p, Title: title, URL: "file:" + p, Text: text, Grade: fm.grade, Type: fm.typ, Ref: fm.ref})
	}
	return out, nil
}

// DocumentText returns a document's text and title as a source's Text:
// HTML reduced to its visible text (by the name's extension), other
// formats as they are with their first "# " heading as the title.
func DocumentText(name string, b []byte) (text, title string) {
	switch strings.ToLower(path.Ext(name)) {
	case ".html", ".htm", ".xhtml":
		return htmlText(b)
	}
	return string(b), markdownTitle(string(b))
}

func leadingNumber(name string) int {
	i := 0
	for i < len(name) && name[i] >= '0' && name[i] <= '9' {
		i++
	}
	if i == 0 || i > 6 {
		return 0
	}
	n, _ := strconv.Atoi(name[:i])
	return n
}

func markdownTitle(text string) string {
	for _, line := range strings.SplitN(text, "\n", 40) {
		if t, ok := strings.CutPrefix(strings.TrimSpace(line), "# "); ok {
			return strings.TrimSpace(t)
		}
	}
	return ""
}

// htmlText returns an HTML document's visible text, blocks separated by
// blank lines, and its title.
func htmlText(b []byte) (text, title string) {
	z := html.NewTokenizer(bytes.NewReader(b))
	var sb strings.Builder
	skip := 0
	inTitle := false
	for {
		switch z.Next() {
		case html.ErrorToken:
			return strings.TrimSpace(blankRuns(sb.String())), strings.TrimSpace(title)
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			switch a := atom.Lookup(name); a {
			case atom.Script, atom.Style, atom.Noscript, atom.Template:
				skip++
			case atom.Title:
				inTitle = true
			case atom.P, atom.Div, atom.Li, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6,
				atom.Pre, atom.Tr, atom.Br, atom.Section, atom.Article, atom.Blockquote, atom.Dd, atom.Dt:
				sb.WriteString("\n\n")
			}
		case html.EndTagToken:
			name, _ := z.TagName()
			switch atom.Lookup(name) {
			case atom.Script, atom.Style, atom.Noscript, atom.Template:
				skip = max(0, skip-1)
			case atom.Title:
				inTitle = false
			}
		case html.TextToken:
			if skip > 0 {
				continue
			}
			t := string(z.Text())
			if inTitle {
				title += t
				continue
			}
			sb.WriteString(t)
		}
	}
}

// blankRuns collapses blanks within lines and runs of blank lines.
func blankRuns(s string) string {
	var out []string
	blank := false
	for _, line := range strings.Split(s, "\n") {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" {
			blank = true
			continue
		}
		if blank && len(out) > 0 {
			out = append(out, "")
		}
		blank = false
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}
