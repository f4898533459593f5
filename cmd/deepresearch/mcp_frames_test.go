package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// TestMCPSurvivesMalformedFrames (issue 18, #7): `deepresearch mcp` answers
// every frame that is not a JSON-RPC 2.0 message — a line that is not
// JSON, a bare number, a batch, an object id, version 1.0, a frame over
// 16 MiB — with -32700 or -32600 and keeps serving, its citation indexes
// intact; a request with id 1.5 is answered with id 1.5.
func TestMCPSurvivesMalformedFrames(t *testing.T) {
	isolate(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr syncBuffer
	code := make(chan int, 1)
	go func() {
		c := execute(context.Background(), []string{"mcp"}, inR, outW, &stderr)
		outW.Close()
		code <- c
	}()
	out := bufio.NewReader(outR)
	send := func(line string) {
		t.Helper()
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatalf("the server stopped reading: %v (stderr: %s)", err, stderr.String())
		}
	}
	type reply struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	read := func() reply {
		t.Helper()
		line, err := out.ReadString('\n')
		if err != nil {
			t.Fatalf("no answer, the server is gone: %v (stderr: %s)", err, stderr.String())
		}
		var r reply
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("answer %q: %v", line, err)
		}
		return r
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	read()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"citation_create","arguments":{}}}`)
	if r := read(); r.Error != nil || !strings.Contains(string(r.Result), "idx-1") {
		t.Fatalf("citation_create: %s", r.Result)
	}
	for _, tc := range []struct {
		name, frame string
		code        int
	}{
		{"not JSON", "not json at all", -32700},
		{"a bare number", "42", -32600},
		{"a batch", `[{"jsonrpc":"2.0","id":3,"method":"ping"}]`, -32600},
		{"an object id", `{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, -32600},
		{"version 1.0", `{"jsonrpc":"1.0","id":4,"method":"ping"}`, -32600},
		{"over 16 MiB", `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"x":"` + strings.Repeat("a", 16<<20) + `"}}`, -32600},
	} {
		send(tc.frame)
		if r := read(); r.Error == nil || r.Error.Code != tc.code {
			t.Errorf("%s: answered %s %+v, want code %d", tc.name, r.Result, r.Error, tc.code)
		}
	}
	send(`{"jsonrpc":"2.0","id":1.5,"method":"tools/call","params":{"name":"citation_add","arguments":{"index_id":"idx-1","url":"https://a.example/"}}}`)
	if r := read(); string(r.ID) != "1.5" || r.Error != nil || !strings.Contains(string(r.Result), `"citation_number":1`) {
		t.Errorf("after the bad frames: id %s %s", r.ID, r.Result)
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	if c := <-code; c != 0 {
		t.Errorf("exit status %d: %s", c, stderr.String())
	}
}
