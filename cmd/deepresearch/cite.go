package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/deepresearch/deepresearch/cite"
	"github.com/deepresearch/deepresearch/source"
)

// citeRequest is the input of `deepresearch cite`.
type citeRequest struct {
	Mode    string                   `json:"mode"`
	Style   string                   `json:"style"`
	Mapping map[string]source.Source `json:"mapping"`
	Chunks  []string                 `json:"chunks"`
	Text    *string                  `json:"text"`
}

type citationOut struct {
	Number int    `json:"number"`
	ID     string `json:"id"`
	URL    string `json:"url,omitempty"`
	Title  string `json:"title,omitempty"`
}

type citeResponse struct {
	Text           string        `json:"text"`
	Citations      []citationOut `json:"citations"`
	Unknown        []int         `json:"unknown"`
	UnknownURLs    []string      `json:"unknown_urls,omitempty"`
	UnknownMarkers []string      `json:"unknown_markers,omitempty"`
}

func newCiteCmd() *cobra.Command {
	var stream bool
	cmd := &cobra.Command{
		Use:   "cite",
		Short: "Run the streaming citation processor over JSON from stdin",
		Long: `cite reads one JSON object on stdin:

  {"mode": "keep|link|remove|renumber", "style": "markdown|plain|footnote|html",
   "mapping": {"1": {"id": "…", "url": "…", "title": "…"}},
   "chunks": ["Text [", "1", "] here."]}

("text": "…" may stand instead of "chunks") and writes

  {"text": "…", "citations": [{"number": 1, "id": "…", "url": "…"}], "unknown": [99]}

with citations in order of first citation. In link and renumber modes the
numbers are renumbered 1..K by first citation; keep mode leaves markers as
written; [ref: URL] markers resolve through the canonical URL, and unresolved
ones are listed under "unknown_urls". Brackets of citation-like numbers in no
understood form (such as "[3-1]") are listed under "unknown_markers" and, in
the modes that change numbers, dropped. Mapping keys are citation numbers
from 0 to 999999. The input must be valid UTF-8 and at most 16 MiB (use
--stream for longer texts: each of its lines may hold 16 MiB).

With --stream, stdin is newline-delimited JSON: the first line is the object
above (without chunks), each further line {"chunk": "…"}. Output is
newline-delimited too, written as it happens:
  {"type": "text", "text": "…"}
  {"type": "citation", "number": 1, "id": "…", "url": "…"}   (before the text that uses it)
  {"type": "unknown", "number": 99}                            (or "url", or "marker")
  {"type": "done", "citations": […], "unknown": […]}           (last; absent if the input was bad)

Bad input exits with status 2 and says what and where on stderr.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if stream {
				return citeStream(cmd.InOrStdin(), cmd.OutOrStdout())
			}
			return citeOnce(cmd.InOrStdin(), cmd.OutOrStdout())
		},
	}
	cmd.Flags().BoolVar(&stream, "stream", false, "read and write newline-delimited JSON, one chunk at a time")
	return cmd
}

// citeOptions validates a request and builds the citation processor's
// options.
func citeOptions(name string, req *citeRequest) (cite.Options, error) {
	var opts cite.Options
	mode, err := cite.ParseMode(req.Mode)
	if err != nil {
		return opts, fmt.Errorf("%s: field \"mode\": %w", name, err)
	}
	var style cite.Style
	if err := style.UnmarshalText([]byte(req.Style)); err != nil {
		return opts, fmt.Errorf("%s: field \"style\": %w", name, err)
	}
	nums, err := parseMapping(name+": field \"mapping\"", req.Mapping)
	if err != nil {
		return opts, err
	}
	return cite.Options{Mode: mode, Style: style, Sources: nums}, nil
}

// parseMapping turns a JSON mapping's string keys into citation numbers,
// rejecting keys that are not whole numbers from 0 to
// cite.MaxNumber (the largest a marker can hold) or that
// repeat one.
func parseMapping(where string, m map[string]source.Source) (map[int]source.Source, error) {
	keys := slices.Sorted(maps.Keys(m))
	out := make(map[int]source.Source, len(m))
	for _, k := range keys {
		n, err := strconv.Atoi(strings.TrimSpace(k))
		if err != nil || n < 0 || n > cite.MaxNumber {
			return nil, fmt.Errorf("%s: key %q is not a citation number (want a whole number from 0 to %d: markers hold at most six digits)", where, k, cite.MaxNumber)
		}
		if _, dup := out[n]; dup {
			return nil, fmt.Errorf("%s: key %q repeats number %d", where, k, n)
		}
		out[n] = m[k]
	}
	return out, nil
}

func citationsOut(cs []cite.Citation) []citationOut {
	out := make([]citationOut, 0, len(cs))
	for _, c := range cs {
		out = append(out, citationOut{Number: c.Display, ID: c.Source.ID, URL: c.Source.URL, Title: c.Source.Title})
	}
	return out
}

func unknownsOut(us []cite.Unresolved) ([]int, []string, []string) {
	nums := []int{}
	var urls, markers []string
	for _, u := range us {
		switch {
		case u.Marker != "":
			markers = append(markers, u.Marker)
		case u.URL != "":
			urls = append(urls, u.URL)
		default:
			nums = append(nums, u.Number)
		}
	}
	return nums, urls, markers
}

func citeOnce(stdin io.Reader, stdout io.Writer) error {
	data, err := readInput(stdin, "deepresearch cite (use --stream for longer texts)")
	if err != nil {
		return err
	}
	var req citeRequest
	if err := decodeStrict("stdin", data, &req); err != nil {
		return inputError(err)
	}
	if req.Text != nil && req.Chunks != nil {
		return inputError(fmt.Errorf("stdin: give \"chunks\" or \"text\", not both"))
	}
	opts, err := citeOptions("stdin", &req)
	if err != nil {
		return inputError(err)
	}
	var sb strings.Builder
	p, err := cite.NewCiter(&sb, opts)
	if err != nil {
		return inputError(fmt.Errorf("stdin: field \"mapping\": %w", err))
	}
	if req.Text != nil {
		req.Chunks = []string{*req.Text}
	}
	for _, c := range req.Chunks {
		p.WriteString(c)
	}
	if err := p.Close(); err != nil {
		return err
	}
	resp := citeResponse{Text: sb.String(), Citations: citationsOut(p.Cited())}
	resp.Unknown, resp.UnknownURLs, resp.UnknownMarkers = unknownsOut(p.Unresolved())
	return writeJSON(stdout, resp)
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// streamEvent is one line of `cite --stream` output.
type streamEvent struct {
	Type      string        `json:"type"`
	Text      string        `json:"text,omitempty"`
	Number    *int          `json:"number,omitempty"`
	ID        string        `json:"id,omitempty"`
	URL       string        `json:"url,omitempty"`
	Title     string        `json:"title,omitempty"`
	Marker    string        `json:"marker,omitempty"`
	Citations []citationOut `json:"citations,omitempty"`
	Unknown   []int         `json:"unknown,omitempty"`
	UnknownU  []string      `json:"unknown_urls,omitempty"`
}

// doneEvent is the last line of `cite --stream` output: its lists are
// always present, empty rather than absent.
type doneEvent struct {
	Type           string        `json:"type"`
	Citations      []citationOut `json:"citations"`
	Unknown        []int         `json:"unknown"`
	UnknownURLs    []string      `json:"unknown_urls,omitempty"`
	UnknownMarkers []string      `json:"unknown_markers,omitempty"`
}

// lineWriter turns the processor's text output into "text" lines.
type lineWriter struct{ enc *json.Encoder }

func (w lineWriter) Write(p []byte) (int, error) {
	if err := w.enc.Encode(streamEvent{Type: "text", Text: string(p)}); err != nil {
		return 0, err
	}
	return len(p), nil
}

func citeStream(stdin io.Reader, stdout io.Writer) error {
	in := bufio.NewScanner(stdin)
	in.Buffer(make([]byte, 64<<10), maxInput+1)
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)

	line := 0
	var p *cite.Citer
	var surrogates surrogateJoiner
	for in.Scan() {
		line++
		data := in.Bytes()
		if len(strings.TrimSpace(string(data))) == 0 {
			continue
		}
		name := "stdin line " + strconv.Itoa(line)
		if err := checkUTF8(name, data); err != nil {
			return inputError(err)
		}
		if p == nil {
			var req citeRequest
			if err := decodeStrict(name, data, &req); err != nil {
				return inputError(err)
			}
			if req.Text != nil && req.Chunks != nil {
				return inputError(fmt.Errorf("%s: give \"chunks\" or \"text\", not both", name))
			}
			opts, err := citeOptions(name, &req)
			if err != nil {
				return inputError(err)
			}
			opts.OnCitation = func(c cite.Citation) {
				enc.Encode(streamEvent{Type: "citation", Number: &c.Display, ID: c.Source.ID, URL: c.Source.URL, Title: c.Source.Title})
			}
			opts.OnUnresolved = func(u cite.Unresolved) {
				ev := streamEvent{Type: "unknown", URL: u.URL, Marker: u.Marker}
				if u.URL == "" && u.Marker == "" {
					ev.Number = &u.Number // 0 is a number
				}
				enc.Encode(ev)
			}
			if p, err = cite.NewCiter(lineWriter{enc}, opts); err != nil {
				return inputError(fmt.Errorf("%s: field \"mapping\": %w", name, err))
			}
			if req.Text != nil {
				req.Chunks = append(req.Chunks, *req.Text)
			}
			for _, c := range req.Chunks {
				p.WriteString(c)
			}
			continue
		}
		var chunk struct {
			Chunk json.RawMessage `json:"chunk"`
		}
		if err := decodeStrict(name, data, &chunk); err != nil {
			if bytes.HasPrefix(bytes.TrimSpace(data), []byte(`"`)) {
				chunk.Chunk = bytes.TrimSpace(data) // a bare string
			} else {
				return inputError(err)
			}
		}
		text, err := surrogates.decode(name, chunk.Chunk)
		if err != nil {
			return inputError(err)
		}
		if _, err := p.WriteString(text); err != nil {
			return err
		}
		if err := out.Flush(); err != nil {
			return err
		}
	}
	if err := in.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return inputError(fmt.Errorf("stdin line %d: longer than %d MiB, the limit of a line", line+1, maxInput>>20))
		}
		return inputError(fmt.Errorf("stdin line %d: %w", line+1, err))
	}
	if p == nil {
		return inputError(fmt.Errorf("stdin: empty input: want a JSON object on the first line"))
	}
	if rest := surrogates.flush(); rest != "" {
		if _, err := p.WriteString(rest); err != nil {
			return err
		}
	}
	if err := p.Close(); err != nil {
		return err
	}
	done := doneEvent{Type: "done", Citations: citationsOut(p.Cited())}
	done.Unknown, done.UnknownURLs, done.UnknownMarkers = unknownsOut(p.Unresolved())
	return enc.Encode(done)
}
