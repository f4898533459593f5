package main

import (
	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/internal/termsafe"
)

// What the CLI prints passes through internal/termsafe, the program's one
// filter of terminal controls: printable (text), printableJSON (JSON),
// printableWriter; its log too (config.NewLogger).

// printable drops from s the control characters a terminal acts on
// (termsafe.Text).
func printable(s string) string { return termsafe.Text(s) }

// printableJSON escapes the DEL and C1 characters of the JSON document b
// (termsafe.JSON).
func printableJSON(b []byte) []byte { return termsafe.JSON(b) }

// printableWriter writes through printable, or printableJSON: each Write
// whole lines or documents.
type printableWriter = termsafe.Writer

// printableDoc is a rendered report made printable: a JSON format's
// characters escaped, any other's dropped.
func printableDoc(f deepresearch.Format, doc []byte) []byte {
	if f == deepresearch.FormatJSON || f == deepresearch.FormatCSL {
		return printableJSON(doc)
	}
	return []byte(printable(string(doc)))
}
