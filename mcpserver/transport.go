package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultMaxFrame is the most bytes of one message StdioTransport reads.
const DefaultMaxFrame = 16 << 20

// StdioTransport is MCP's stdio transport — one JSON-RPC 2.0 message per
// line — that survives what a client sends: the SDK's own ends the session
// on the first line it cannot decode, and every citation index with it.
// Each line is checked before the SDK sees it: a line that is not JSON is
// answered with a -32700 parse error, one that is not a JSON-RPC 2.0
// request or response (a bare value, a batch, an id that is an object, a
// "jsonrpc" other than "2.0", a line longer than MaxFrame) with -32600
// invalid request, and the session goes on. A request id that is a number
// the SDK would round (1.5) is answered as it was sent.
//
// Connect starts one goroutine that reads Reader; it ends when Reader
// does (EOF or an error) or, after the Read in progress returns, when the
// connection is closed. Reader and Writer are not closed. When Reader
// ends, the session ends once every request read before has been answered
// (or cancelled by the client): a client that writes its requests and
// closes its end gets every answer.
type StdioTransport struct {
	Reader io.Reader
	Writer io.Writer
	// MaxFrame is the most bytes of one line; 0 is DefaultMaxFrame.
	MaxFrame int
}

// Connect implements mcp.Transport.
func (t *StdioTransport) Connect(context.Context) (mcp.Connection, error) {
	max := t.MaxFrame
	if max <= 0 {
		max = DefaultMaxFrame
	}
	c := &frameConn{w: t.Writer, lines: make(chan frame), closed: make(chan struct{}), aliases: map[string]json.RawMessage{},
		pending: map[string]bool{}, answered: make(chan struct{}, 1)}
	go c.readLines(bufio.NewReaderSize(t.Reader, 64<<10), max)
	return c, nil
}

// frame is one line read, or why reading stopped.
type frame struct {
	line     []byte
	tooLarge bool
	err      error
}

// frameConn is the mcp.Connection of a StdioTransport.
type frameConn struct {
	w       io.Writer
	wmu     sync.Mutex // one line at a time
	lines   chan frame
	closed  chan struct{}
	once    sync.Once
	amu     sync.Mutex
	aliases map[string]json.RawMessage // string ids given to the SDK → the ids sent
	next    int

	pmu      sync.Mutex
	pending  map[string]bool // the ids (as the SDK has them) of requests read and not answered
	answered chan struct{}   // signalled when one is answered or cancelled
}

// readLines sends r's lines to Read until r ends or the connection is
// closed. A line longer than max is read to its end and sent as tooLarge.
func (c *frameConn) readLines(r *bufio.Reader, max int) {
	for {
		var line []byte
		tooLarge := false
		for {
			part, err := r.ReadSlice('\n')
			if !tooLarge {
				if len(line)+len(part) > max+1 { // +1: the newline
					tooLarge, line = true, nil
				} else {
					line = append(line, part...)
				}
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				if len(line) > 0 || tooLarge {
					break // the last line, without its newline
				}
				c.send(frame{err: err})
				return
			}
			break
		}
		if !c.send(frame{line: line, tooLarge: tooLarge}) {
			return
		}
	}
}

func (c *frameConn) send(f frame) bool {
	select {
	case c.lines <- f:
		return true
	case <-c.closed:
		return false
	}
}

// Read returns the next message that is a JSON-RPC 2.0 request or
// response, answering the lines before it that are not.
func (c *frameConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var f frame
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case f = <-c.lines:
		}
		if f.err != nil {
			// What was read before the end is answered first.
			if err := c.drain(ctx); err != nil {
				return nil, err
			}
			return nil, f.err
		}
		if f.tooLarge {
			c.reject(nil, jsonrpc.CodeInvalidRequest, "the message is longer than the most this server reads of one line")
			continue
		}
		line := bytes.TrimSpace(f.line)
		if len(line) == 0 {
			continue
		}
		msg, bad := c.check(line)
		if bad != nil {
			c.reject(bad.id, bad.code, bad.msg)
			continue
		}
		c.track(msg)
		return msg, nil
	}
}

// idKey is the key of a request id in pending.
func idKey(id jsonrpc.ID) string { return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()) }

// track notes a request read (it awaits its answer), and a client's
// cancellation of one (it gets none).
func (c *frameConn) track(msg jsonrpc.Message) {
	r, ok := msg.(*jsonrpc.Request)
	if !ok {
		return
	}
	if r.IsCall() {
		c.pmu.Lock()
		c.pending[idKey(r.ID)] = true
		c.pmu.Unlock()
		return
	}
	if r.Method != "notifications/cancelled" {
		return
	}
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(r.Params, &p) != nil {
		return
	}
	id, err := jsonrpc.MakeID(p.RequestID) // a number as the SDK holds it (int64)
	if err != nil {
		return
	}
	c.done(idKey(id))
}

// done forgets the request whose id has key: answered or cancelled.
func (c *frameConn) done(key string) {
	c.pmu.Lock()
	delete(c.pending, key)
	c.pmu.Unlock()
	select {
	case c.answered <- struct{}{}:
	default:
	}
}

// drain waits until every request read has been answered or cancelled,
// the connection is closed, or ctx is done.
func (c *frameConn) drain(ctx context.Context) error {
	for {
		c.pmu.Lock()
		n := len(c.pending)
		c.pmu.Unlock()
		if n == 0 {
			return nil
		}
		select {
		case <-c.answered:
		case <-c.closed:
			return io.EOF
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// badFrame is why a line is refused, and the id to answer it with (nil:
// null, when none could be read).
type badFrame struct {
	id   json.RawMessage
	code int64
	msg  string
}

// check decodes line as a JSON-RPC 2.0 message, or says why it is not one.
// A numeric id that is not an integer the SDK carries exactly becomes a
// string alias, which Write turns back.
func (c *frameConn) check(line []byte) (jsonrpc.Message, *badFrame) {
	fields, bad := checkFrame(line)
	if bad != nil {
		return nil, bad
	}
	_, isRequest := fields["method"]
	if id, ok := fields["id"]; ok && isRequest && id[0] != '"' && id[0] != 'n' && !exactInt(id) {
		c.amu.Lock()
		c.next++
		alias := "deepresearch-id-" + strconv.Itoa(c.next)
		c.aliases[alias] = id
		c.amu.Unlock()
		fields["id"], _ = json.Marshal(alias)
		line, _ = json.Marshal(fields)
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		return nil, &badFrame{id: fields["id"], code: jsonrpc.CodeInvalidRequest, msg: "invalid request: " + err.Error()}
	}
	return msg, nil
}

// checkFrame returns the members of line when it is a JSON-RPC 2.0
// request, notification or response, as the SDK decodes them without
// failing: an object with "jsonrpc": "2.0", each member once, an id that
// is a string, a number or null; a request's method a string and its
// params an object or array; a response's id not null and its error an
// object with an integer code and a string message.
func checkFrame(line []byte) (map[string]json.RawMessage, *badFrame) {
	if !json.Valid(line) {
		return nil, &badFrame{code: jsonrpc.CodeParseError, msg: "parse error: the message is not JSON"}
	}
	switch line[0] {
	case '{':
	case '[':
		return nil, &badFrame{code: jsonrpc.CodeInvalidRequest, msg: "invalid request: batches are not supported (MCP 2025-06-18); send one message per line"}
	default:
		return nil, &badFrame{code: jsonrpc.CodeInvalidRequest, msg: "invalid request: a message is a JSON object"}
	}
	fields, err := members(line)
	if err != nil {
		return nil, &badFrame{code: jsonrpc.CodeInvalidRequest, msg: "invalid request: " + err.Error()}
	}
	invalid := func(format string, args ...any) (map[string]json.RawMessage, *badFrame) {
		b := &badFrame{code: jsonrpc.CodeInvalidRequest, msg: "invalid request: " + fmt.Sprintf(format, args...)}
		if id := fields["id"]; len(id) > 0 && (id[0] == '"' || id[0] == '-' || id[0] >= '0' && id[0] <= '9') {
			b.id = id
		}
		return nil, b
	}
	id, hasID := fields["id"]
	if hasID && !(id[0] == '"' || id[0] == 'n' || id[0] == '-' || id[0] >= '0' && id[0] <= '9') {
		return invalid("the id must be a string, a number or null")
	}
	if v := fields["jsonrpc"]; !bytes.Equal(v, []byte(`"2.0"`)) {
		return invalid(`"jsonrpc" must be "2.0"`)
	}
	if method, ok := fields["method"]; ok {
		if method[0] != '"' {
			return invalid(`"method" must be a string`)
		}
		if p, ok := fields["params"]; ok && p[0] != '{' && p[0] != '[' {
			return invalid(`"params" must be an object or an array`)
		}
		return fields, nil
	}
	// A response, to a request of the server's.
	if !hasID || id[0] == 'n' {
		return invalid(`a message without "method" is a response and needs an id`)
	}
	_, hasResult := fields["result"]
	errObj, hasError := fields["error"]
	if hasResult == hasError {
		return invalid(`a response has either "result" or "error"`)
	}
	if hasError {
		var e struct {
			Code    *int64  `json:"code"`
			Message *string `json:"message"`
		}
		if errObj[0] != '{' || json.Unmarshal(errObj, &e) != nil || e.Code == nil || e.Message == nil {
			return invalid(`"error" must be an object with an integer "code" and a string "message"`)
		}
	}
	return fields, nil
}

// members returns the members of the JSON object obj (valid JSON), each
// name exactly as written; a name given twice is an error.
func members(obj []byte) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // {
		return nil, err
	}
	out := map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("the member %q is given twice", name)
		}
		out[name] = v
	}
	return out, nil
}

// exactInt reports whether the JSON number n is an integer the SDK reads
// back exactly: written as one (no fraction or exponent) and within the
// range a float64 holds every integer of.
func exactInt(n json.RawMessage) bool {
	v, err := strconv.ParseInt(string(n), 10, 64)
	return err == nil && v >= -1<<53 && v <= 1<<53
}

// reject answers a line that is not a message with a JSON-RPC error.
func (c *frameConn) reject(id json.RawMessage, code int64, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		Version string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: msg}})
	c.writeLine(b)
}

// Write writes msg as one line, with the id its request was sent with.
func (c *frameConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	if r, ok := msg.(*jsonrpc.Response); ok {
		defer c.done(idKey(r.ID)) // once written
		if alias, ok := r.ID.Raw().(string); ok {
			c.amu.Lock()
			id, aliased := c.aliases[alias]
			delete(c.aliases, alias)
			c.amu.Unlock()
			if aliased {
				quoted, _ := json.Marshal(alias)
				b = bytes.Replace(b, append([]byte(`"id":`), quoted...), append([]byte(`"id":`), id...), 1)
			}
		}
	}
	return c.writeLine(b)
}

func (c *frameConn) writeLine(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	select {
	case <-c.closed:
		return errors.New("mcp: connection closed")
	default:
	}
	_, err := c.w.Write(append(b, '\n'))
	return err
}

// Close stops reading; it closes neither Reader nor Writer.
func (c *frameConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

// SessionID implements mcp.Connection: stdio has no session id.
func (c *frameConn) SessionID() string { return "" }
