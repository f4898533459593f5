package extractive

import "regexp"

// recordRe matches a record of a table as the corpus writes a CSV or
// spreadsheet row: "name: TechBook Air; price: 999.0; stock: 40" — two
// or more "column: value" pairs separated by "; ".
var recordRe = regexp.MustCompile(`^[^:;]{1,60}: [^;]+(?:; [^:;]{1,60}: [^;]*)+$`)

// recordSentence reports whether s is a table row worth quoting whole: a
// row is the answer to a question about the thing it describes, though it
// reads like no sentence of prose.
func recordSentence(s string) bool {
	return len(s) <= 2000 && recordRe.MatchString(s)
}

// pipeRecordRe matches a record written with its pairs separated by " | "
// ("product_id: SKU002 | name: TechBook Air | price: 999.0"), as a
// vector store's row documents are.
var pipeRecordRe = regexp.MustCompile(`^[^:|]{1,60}: [^|]+(?: \| [^:|]{1,60}: [^|]*)+$`)

// rowLike reports whether s is a table's row, in either way a corpus
// writes one (recordSentence, pipeRecordRe). Only recordSentence's rows
// are grouped into tables (rowTables); both are records, never prose.
func rowLike(s string) bool {
	return recordSentence(s) || len(s) <= 2000 && pipeRecordRe.MatchString(s)
}
