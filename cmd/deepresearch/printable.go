package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/deepresearch/deepresearch/internal/termsafe"
	"github.com/deepresearch/deepresearch/render"
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

// printJSON writes v to w as indented JSON made printable, with a final
// newline: what a command's --json prints.
func printJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", printableJSON(b))
	return err
}

// printableWriter writes through printable, or printableJSON: each Write
// whole lines or documents.
type printableWriter = termsafe.Writer

// printableDoc is a rendered report made printable: a JSON format's
// characters escaped, any other text format's dropped. A binary format's
// document (DOCX) is passed as it is: it is never printed on a terminal
// (binaryToTerminal), and its own writer has already removed what the
// format cannot carry.
func printableDoc(f render.Format, doc []byte) []byte {
	if f.Binary() {
		return doc
	}
	if f == render.JSON || f == render.CSL {
		return printableJSON(doc)
	}
	return []byte(printable(string(doc)))
}

// binaryToTerminal refuses a binary format's document (DOCX) bound for w
// when w is a terminal, as other tools refuse to print binary data: it
// would show as noise and could upset the terminal. flag names the
// option that chose the format.
func binaryToTerminal(f render.Format, w io.Writer, flag string) error {
	if f.Binary() && isTerminal(w) {
		return inputError(fmt.Errorf("%s %s is a binary file and stdout is a terminal: write it to a file (-o report%s) or redirect stdout", flag, f, f.Extension()))
	}
	return nil
}
