package provider

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strings"
)

// maxLine bounds one line of a streamed reply.
const maxLine = 8 << 20

var errLineTooLong = errors.New("stream line too long")

type lineReader struct{ br *bufio.Reader }

func newLineReader(r io.Reader) *lineReader { return &lineReader{bufio.NewReaderSize(r, 64<<10)} }

// line returns the next line with its newline, or the unterminated tail
// and the read error.
func (l *lineReader) line() (string, error) {
	var b strings.Builder
	for {
		chunk, err := l.br.ReadSlice('\n')
		b.Write(chunk)
		if b.Len() > maxLine {
			return "", errLineTooLong
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return b.String(), err
	}
}

// sseReader checks a server-sent event stream as langchaingo reads it and
// rewrites what langchaingo would get wrong:
//
//   - a stream that ends before its end marker ([DONE] for OpenAI,
//     message_stop for Anthropic) is ErrTruncated, not a short success;
//   - an event whose data is not JSON is ErrMalformed, not skipped;
//   - an error event becomes an *Error;
//   - OpenAI tool-call deltas are held back and assembled by their index,
//     then given to langchaingo as whole calls, one delta each, just before
//     the chunk that carries the finish reason. langchaingo v0.1.14 appends
//     every argument fragment to the last call it saw, so parallel calls
//     whose deltas interleave would be spliced together.
type sseReader struct {
	src      io.ReadCloser
	buf      *lineReader
	provider string
	st       *callState

	out  bytes.Buffer
	err  error
	done bool

	calls   map[int]*toolDelta
	last    int  // index of the call the last index-less delta belonged to
	pending bool // calls are held that langchaingo has not been given
}

type toolDelta struct {
	Index    int    `json:"index"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function struct {
		Name      string `json:"name,omitempty"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

func (r *sseReader) Read(p []byte) (int, error) {
	for r.out.Len() == 0 && r.err == nil {
		r.step()
	}
	if r.out.Len() > 0 {
		return r.out.Read(p)
	}
	return 0, r.err
}

func (r *sseReader) Close() error { return r.src.Close() }

func (r *sseReader) fail(e *Error) {
	r.st.record(e)
	r.err = e
}

func (r *sseReader) step() {
	line, err := r.buf.line()
	if line != "" && !r.done {
		r.process(line)
	} else if line != "" {
		r.out.WriteString(line)
	}
	switch {
	case r.err != nil:
	case err == io.EOF && r.done:
		r.err = io.EOF
	case err == io.EOF:
		r.fail(truncated(r.provider, io.ErrUnexpectedEOF))
	case err != nil:
		r.fail(truncated(r.provider, err))
	}
}

func (r *sseReader) process(line string) {
	text := strings.TrimRight(line, "\r\n")
	data, ok := strings.CutPrefix(text, "data:")
	if !ok {
		r.out.WriteString(line)
		return
	}
	data = strings.TrimSpace(data)
	if r.provider != Anthropic && data == "[DONE]" {
		r.flushCalls(true)
		r.out.WriteString(line)
		r.done = true
		return
	}
	if !json.Valid([]byte(data)) {
		r.fail(malformed(r.provider, []byte(data)))
		return
	}
	if r.provider == Anthropic {
		var ev struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal([]byte(data), &ev)
		switch ev.Type {
		case "error":
			r.fail(streamError(r.provider, []byte(data)))
			return
		case "message_stop":
			r.done = true
		}
		r.out.WriteString(line)
		return
	}
	r.openAIChunk(line, []byte(data))
}

// openAIChunk passes one chat.completion.chunk on, holding back its tool
// call deltas.
func (r *sseReader) openAIChunk(line string, data []byte) {
	var chunk map[string]json.RawMessage
	if json.Unmarshal(data, &chunk) != nil {
		// Valid JSON but not an object: langchaingo skips it.
		r.out.WriteString(line)
		return
	}
	if e, ok := chunk["error"]; ok && string(e) != "null" {
		r.fail(streamError(r.provider, data))
		return
	}
	var choices []map[string]json.RawMessage
	if json.Unmarshal(chunk["choices"], &choices) != nil || len(choices) == 0 {
		r.out.WriteString(line)
		return
	}
	c := choices[0]
	var delta map[string]json.RawMessage
	_ = json.Unmarshal(c["delta"], &delta)
	var deltas []toolDelta
	if json.Unmarshal(delta["tool_calls"], &deltas) == nil && len(deltas) > 0 {
		r.hold(delta["tool_calls"], deltas)
		delete(delta, "tool_calls")
		c["delta"], _ = json.Marshal(delta)
		choices[0] = c
		chunk["choices"], _ = json.Marshal(choices)
		b, _ := json.Marshal(chunk)
		line = "data: " + string(b) + "\n"
	}
	if fr := c["finish_reason"]; len(fr) > 0 && string(fr) != "null" {
		r.flushCalls(false)
	}
	r.out.WriteString(line)
}

// hold adds tool-call deltas to the calls being assembled.
func (r *sseReader) hold(raw json.RawMessage, deltas []toolDelta) {
	if r.calls == nil {
		r.calls = map[int]*toolDelta{}
	}
	// A delta without "index" (some servers omit it on the only call)
	// continues the call the previous delta belonged to.
	var present []struct {
		Index *int `json:"index"`
	}
	_ = json.Unmarshal(raw, &present)
	for i, d := range deltas {
		idx := r.last
		if i < len(present) && present[i].Index != nil {
			idx = *present[i].Index
		}
		r.last = idx
		c, ok := r.calls[idx]
		if !ok {
			c = &toolDelta{Index: idx}
			r.calls[idx] = c
		}
		if d.ID != "" {
			c.ID = d.ID
		}
		if d.Type != "" {
			c.Type = d.Type
		}
		c.Function.Name += d.Function.Name
		c.Function.Arguments += d.Function.Arguments
		r.pending = true
	}
}

// flushCalls gives langchaingo the assembled calls as one chunk, in index
// order, each with its type set so that langchaingo starts a new call for
// it. At [DONE] without a finish reason seen, the chunk carries one.
func (r *sseReader) flushCalls(final bool) {
	if !r.pending {
		return
	}
	r.pending = false
	idx := make([]int, 0, len(r.calls))
	for i := range r.calls {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	calls := make([]toolDelta, 0, len(idx))
	for _, i := range idx {
		c := *r.calls[i]
		if c.Type == "" {
			c.Type = "function"
		}
		if c.Function.Arguments == "" {
			c.Function.Arguments = "{}"
		}
		calls = append(calls, c)
	}
	clear(r.calls)
	choice := map[string]any{"index": 0, "delta": map[string]any{"tool_calls": calls}}
	if final {
		choice["finish_reason"] = "tool_calls"
	}
	b, _ := json.Marshal(map[string]any{"object": "chat.completion.chunk", "choices": []any{choice}})
	r.out.WriteString("data: " + string(b) + "\n\n")
}
