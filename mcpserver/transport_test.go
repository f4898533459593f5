package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// rawClient speaks JSON-RPC lines to a server on a StdioTransport.
type rawClient struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
}

func serveRaw(t *testing.T, maxFrame int) *rawClient {
	t.Helper()
	return serveRawWith(t, Options{}, maxFrame, `{}`)
}

// serveRawWith is serveRaw of New(opts), for a client whose capabilities
// are caps (JSON) and whose protocol is 2025-06-18, before multi-round-trip
// requests (the SDK asks a call's input requests on its behalf, once).
func serveRawWith(t *testing.T, opts Options, maxFrame int, caps string) *rawClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &rawClient{t: t, in: inW, out: bufio.NewReader(outR), done: make(chan error, 1)}
	go func() {
		err := New(opts).Run(context.Background(), &StdioTransport{Reader: inR, Writer: outW, MaxFrame: maxFrame})
		outW.Close()
		c.done <- err
	}()
	t.Cleanup(func() {
		inW.Close()
		go io.Copy(io.Discard, outR)
		<-c.done
	})
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":` + caps + `,"clientInfo":{"name":"raw","version":"0"}}}`)
	if r := c.reply(); r.Error != nil {
		t.Fatalf("initialize: %+v", r.Error)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return c
}

func (c *rawClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatalf("the server stopped reading: %v", err)
	}
}

type reply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *jsonrpc.Error  `json:"error"`
}

// serverRequest is a request the server sends the client.
type serverRequest struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Message string `json:"message"`
	} `json:"params"`
}

// elicitation reads the server's next message, which must be an
// elicitation request, and returns it.
func (c *rawClient) elicitation() serverRequest {
	c.t.Helper()
	line, err := c.out.ReadString('\n')
	if err != nil {
		c.t.Fatal(err)
	}
	var ask serverRequest
	if json.Unmarshal([]byte(line), &ask); ask.Method != "elicitation/create" {
		c.t.Fatalf("not asked a form: %s", line)
	}
	return ask
}

func (c *rawClient) reply() reply {
	c.t.Helper()
	line, err := c.out.ReadString('\n')
	if err != nil {
		c.t.Fatalf("no answer: the server is gone (%v)", err)
	}
	var r reply
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		c.t.Fatalf("answer %q is not JSON: %v", line, err)
	}
	return r
}

// TestMalformedFramesKeepServing (issue 18, #7): each frame that is not a
// JSON-RPC 2.0 message is answered with -32700 or -32600 and the server
// goes on serving: the index made before them is still there after.
func TestMalformedFramesKeepServing(t *testing.T) {
	c := serveRaw(t, 4096)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"citation_create","arguments":{}}}`)
	if r := c.reply(); r.Error != nil || !strings.Contains(string(r.Result), "idx-1") {
		t.Fatalf("citation_create: %s %+v", r.Result, r.Error)
	}
	for _, tc := range []struct {
		name, frame string
		code        int64
		id          string
	}{
		{"not JSON", `hello`, jsonrpc.CodeParseError, "null"},
		{"cut short", `{"jsonrpc":"2.0","id":3,"method":"ping"`, jsonrpc.CodeParseError, "null"},
		{"trailing data", `{"jsonrpc":"2.0","id":3,"method":"ping"} {}`, jsonrpc.CodeParseError, "null"},
		{"invalid UTF-8 outside strings", "\xff\xfe", jsonrpc.CodeParseError, "null"},
		{"a bare number", `42`, jsonrpc.CodeInvalidRequest, "null"},
		{"a string", `"ping"`, jsonrpc.CodeInvalidRequest, "null"},
		{"null", `null`, jsonrpc.CodeInvalidRequest, "null"},
		{"a batch", `[{"jsonrpc":"2.0","id":4,"method":"ping"}]`, jsonrpc.CodeInvalidRequest, "null"},
		{"an empty batch", `[]`, jsonrpc.CodeInvalidRequest, "null"},
		{"an empty object", `{}`, jsonrpc.CodeInvalidRequest, "null"},
		{"an object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`, jsonrpc.CodeInvalidRequest, "null"},
		{"a boolean id", `{"jsonrpc":"2.0","id":true,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "null"},
		{"version 1.0", `{"jsonrpc":"1.0","id":5,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "5"},
		{"no version", `{"id":6,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "6"},
		{"a numeric version", `{"jsonrpc":2.0,"id":7,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "7"},
		{"the version twice", `{"jsonrpc":"2.0","jsonrpc":"1.0","id":8,"method":"ping"}`, jsonrpc.CodeInvalidRequest, "null"},
		{"a numeric method", `{"jsonrpc":"2.0","id":9,"method":7}`, jsonrpc.CodeInvalidRequest, "9"},
		{"scalar params", `{"jsonrpc":"2.0","id":10,"method":"ping","params":5}`, jsonrpc.CodeInvalidRequest, "10"},
		{"a response without id", `{"jsonrpc":"2.0","result":{}}`, jsonrpc.CodeInvalidRequest, "null"},
		{"a malformed error", `{"jsonrpc":"2.0","id":11,"error":{"code":"x"}}`, jsonrpc.CodeInvalidRequest, "11"},
		{"too long", `{"jsonrpc":"2.0","id":12,"method":"ping","params":{"x":"` + strings.Repeat("a", 5000) + `"}}`, jsonrpc.CodeInvalidRequest, "null"},
		{"an unknown method", `{"jsonrpc":"2.0","id":13,"method":"nope"}`, jsonrpc.CodeMethodNotFound, "13"},
	} {
		c.send(tc.frame)
		r := c.reply()
		if r.Error == nil || r.Error.Code != tc.code || string(r.ID) != tc.id {
			t.Errorf("%s: answered id %s %+v, want id %s and code %d", tc.name, r.ID, r.Error, tc.id, tc.code)
		}
	}
	// Still serving, with the index made before.
	c.send(`{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"citation_add","arguments":{"index_id":"idx-1","url":"https://a.example/"}}}`)
	if r := c.reply(); string(r.ID) != "1.5" || r.Error != nil || !strings.Contains(string(r.Result), `"citation_number":1`) {
		t.Fatalf("after the bad frames: id %s, %s %+v", r.ID, r.Result, r.Error)
	}
	for _, id := range []string{"1e3", "-0.25", "12345678901234567890", `"s"`, "7"} {
		c.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`)
		if r := c.reply(); string(r.ID) != id || r.Error != nil {
			t.Errorf("ping with id %s answered with id %s %+v", id, r.ID, r.Error)
		}
	}
}

// FuzzFrame: any line is either a message the SDK decodes or refused with
// -32700 or -32600; nothing in between ends a session.
func FuzzFrame(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":1.5,"method":"ping","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"result":{}}`, `{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"x"}}`,
		`[{"jsonrpc":"2.0"}]`, `{"jsonrpc":"2.0","id":{},"method":"x"}`, `{"JSONRPC":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1,"method":"ping","method":"x"}`, `42`, `x`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		c := &frameConn{aliases: map[string]json.RawMessage{}}
		msg, bad := c.check(line)
		switch {
		case bad != nil:
			if bad.code != jsonrpc.CodeParseError && bad.code != jsonrpc.CodeInvalidRequest {
				t.Fatalf("%q refused with code %d", line, bad.code)
			}
			if bad.id != nil && !json.Valid(bad.id) {
				t.Fatalf("%q answered with id %q", line, bad.id)
			}
		case msg == nil:
			t.Fatalf("%q: neither a message nor refused", line)
		default:
			if _, err := jsonrpc.EncodeMessage(msg); err != nil {
				t.Fatalf("%q decoded to a message that does not encode: %v", line, err)
			}
		}
	})
}

// TestTransportDrainsBeforeEOF (issue 29): at the end of its input, the
// connection reports EOF only once each request read has been answered,
// or cancelled by the client.
func TestTransportDrainsBeforeEOF(t *testing.T) {
	in := `{"jsonrpc":"2.0","id":7,"method":"tools/list"}` + "\n" +
		`{"jsonrpc":"2.0","id":"s","method":"ping"}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"s"}}` + "\n" +
		`{"jsonrpc":"2.0","id":8,"method":"ping"}` + "\n" +
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":8}}` + "\n"
	var out bytes.Buffer
	conn, err := (&StdioTransport{Reader: strings.NewReader(in), Writer: &out}).Connect(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var reqs []*jsonrpc.Request
	for range 5 {
		msg, err := conn.Read(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		reqs = append(reqs, msg.(*jsonrpc.Request))
	}
	eof := make(chan error, 1)
	go func() {
		_, err := conn.Read(t.Context())
		eof <- err
	}()
	select {
	case err := <-eof:
		t.Fatalf("Read returned %v with request 7 unanswered", err)
	case <-time.After(50 * time.Millisecond): // a chance to return early; passing does not depend on it
	}
	if err := conn.Write(t.Context(), &jsonrpc.Response{ID: reqs[0].ID, Result: json.RawMessage(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if err := <-eof; err != io.EOF {
		t.Errorf("Read after every request was answered or cancelled: %v, want EOF", err)
	}
}
