package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/config/load"
	docs "github.com/deepresearch/deepresearch/corpus"
)

func init() { extraCommands = append(extraCommands, newIndexCmd) }

func newIndexCmd() *cobra.Command {
	var (
		configFile      string
		verbose, asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "index [DIR]",
		Short: "Build or update the full-text index of a folder of documents",
		Long: `index builds the search index of DIR (default: --corpus or corpus.dir, else the
Go distribution's documentation), re-reading only new and changed files, and
prints what it did. run does this itself on first use; index lets you do it
ahead of time, and says what it could not read.

Formats: text (.md .markdown .mdx .txt .text .json .rst .adoc .asciidoc .org
.tex), web pages (.html .htm .xhtml), documents (.pdf .docx .odt .pptx
.epub), spreadsheets and tables (.xlsx .xlsm .ods .csv .tsv .tab), and each
of them gzip-compressed (.pdf.gz, .md.gz, ...: unpacked to 8 MiB at most, so
a gzip bomb is skipped). Extensions are matched in any case.

Every file is counted. Those not indexed are skipped with a reason: another
format (.png, .go, .tar.gz), larger than 8 MiB, not UTF-8, encrypted,
malformed, no text layer (a scanned PDF), a link out of the folder, more
than the index could take in the memory it had ("writing it to the index
failed: out of memory (7)"), or the file being read when the last index
ended (the process ran out of memory or was killed): one bad file costs
only itself, and is read again once it changes. Each
such document is listed; files of other formats are counted by extension,
and listed one by one with --verbose. --json prints the whole summary,
every skipped file with its reason, as JSON. Hidden files and folders
(names starting with ".") are not part of the corpus.

On a terminal, a progress line on stderr counts the files read and skipped
and the passages (and embeddings) so far.

Exit status 2 when DIR does not exist or holds no document it can read.`,
		Example: `  deepresearch index ./docs
  deepresearch index --verbose /usr/share/doc
  deepresearch index --json ./docs | jq '.skips[] | select(.unsupported | not)'
  deepresearch index --embeddings ollama:nomic-embed-text ./docs`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := settings(cmd, configFile)
			if err != nil {
				return err
			}
			if len(args) == 1 {
				s.Corpus.Dir = args[0]
			}
			var progress func(docs.Stats)
			stderr := cmd.ErrOrStderr()
			var line *progressLine
			if isTerminal(stderr) {
				line = &progressLine{w: stderr, width: termWidth(), now: time.Now}
				progress = line.show
			}
			st, err := config.Index(cmd.Context(), s, progress)
			line.clear()
			if errors.Is(err, docs.ErrNoFolder) || errors.Is(err, docs.ErrNoDocuments) {
				return inputError(err)
			} else if err != nil {
				return err
			}
			if asJSON {
				enc := json.NewEncoder(printableWriter{W: cmd.OutOrStdout(), JSON: true})
				enc.SetIndent("", "  ")
				return enc.Encode(st)
			}
			out := printableWriter{W: cmd.OutOrStdout(), JSON: false} // a file's name is anyone's
			printIndexStats(out, st, s.Model.Embeddings, verbose)
			return nil
		},
	}
	load.AddFlagsFor(cmd.Flags(), "corpus", "index", "embeddings")
	cmd.Flags().StringVar(&configFile, "config", "", "YAML configuration `FILE`")
	cmd.Flags().BoolVarP(&verbose, "verbose", "v", false, "list every skipped file with its reason, files of other formats too")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the summary as JSON: the counts and every skipped file with its reason")
	return cmd
}

// printIndexStats writes what index did: a line of counts, then each
// skipped document with its reason; files of formats the index does not
// read are counted by reason (by extension), or listed with verbose.
func printIndexStats(out io.Writer, st docs.Stats, embeddings string, verbose bool) {
	fmt.Fprintf(out, "indexed %s into %s: %d files scanned, %d added, %d updated, %d removed, %d unchanged, %d skipped; %d passages",
		st.Dir, st.IndexPath, st.Scanned, st.Added, st.Updated, st.Removed, st.Unchanged, st.Skipped, st.Passages)
	if embeddings != "" {
		fmt.Fprintf(out, ", %d embedded with %s", st.Embedded, embeddings)
	}
	fmt.Fprintln(out)
	var reasons []string // of unsupported files, in order of first sight
	counts := map[string]int{}
	for _, sk := range st.Skips {
		if sk.Unsupported && !verbose {
			if counts[sk.Reason] == 0 {
				reasons = append(reasons, sk.Reason)
			}
			counts[sk.Reason]++
			continue
		}
		fmt.Fprintf(out, "  skipped %s: %s\n", sk.Path, sk.Reason)
	}
	for _, r := range reasons {
		fmt.Fprintf(out, "  skipped %d %s: %s (--verbose lists them)\n", counts[r], plural(counts[r], "file", "files"), r)
	}
}

// progressLine is the progress line of index on a terminal: one line,
// redrawn in place at most every 100ms, cleared when indexing ends.
type progressLine struct {
	w     io.Writer
	width int
	now   func() time.Time
	last  time.Time
	drawn bool
}

// show draws the counts so far (docs.Options.Progress).
func (l *progressLine) show(st docs.Stats) {
	if t := l.now(); !l.drawn || t.Sub(l.last) >= 100*time.Millisecond {
		l.last, l.drawn = t, true
		text := fmt.Sprintf("indexing: %d files: %d read, %d unchanged, %d skipped; %d passages",
			st.Scanned, st.Added+st.Updated, st.Unchanged, st.Skipped, st.Passages)
		if st.Embedded > 0 {
			text += fmt.Sprintf(", %d embedded", st.Embedded)
		}
		if len(text) > l.width-1 {
			text = text[:l.width-1] // ASCII only
		}
		fmt.Fprint(l.w, "\r\x1b[K"+text)
	}
}

// clear removes the line, if one was drawn; a nil line does nothing.
func (l *progressLine) clear() {
	if l != nil && l.drawn {
		fmt.Fprint(l.w, "\r\x1b[K")
	}
}

// plural is one for n = 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
