package verify

import (
	"io/fs"

	iverify "github.com/deepresearch/deepresearch/internal/verify"
)

// ParseSources reads the sources of a report from JSON: a list of
// {"number", "title", "url", "text"} (also "id", "grade", "type", "ref",
// "text_sha256", "passages"), or a whole JSON report: its "references",
// which carry no text but the passages its citations were checked
// against, with their hashes (source.Passage): enough to check the report
// again. SourcesFromFS and DocumentText read sources' texts from files.
func ParseSources(data []byte) ([]Source, error) { return iverify.ParseSources(data) }

// SourcesFromFS reads a folder of documents as sources (.md .txt .html …,
// HTML reduced to its text), numbered by a leading number in their names
// ("3-intro.md") when all have one, else 1..N in path order. A document's
// YAML front matter gives its title, grade (HIGH, MODERATE, LOW, VERY
// LOW), type and ref (a REF-123 identifier).
func SourcesFromFS(fsys fs.FS) ([]Source, error) { return iverify.SourcesFromFS(fsys) }

// DocumentText returns the text and title of a document as a source's
// text: HTML reduced to its text, markdown's first heading as its title;
// name's extension says which.
func DocumentText(name string, data []byte) (text, title string) {
	return iverify.DocumentText(name, data)
}
