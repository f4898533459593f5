package journal

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 3, 10, 0, 0, 123456789, time.UTC)

func TestEncodeRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		e    Entry
	}{
		{"header", Entry{Kind: KindHeader, Time: t0, Header: &Header{Program: "deepresearch test", Manifest: json.RawMessage(`{"question":"q"}`)}}},
		{"streamed model call", Entry{Kind: KindModel, Scope: "writer", Key: "k1", Time: t0, Model: &ModelRecord{
			Chunks: []Chunk{{Text: "Hel"}, {Text: "lo [1]"}, {Text: "", Reasoning: "think", ReasoningFunc: true}},
			Response: &Response{Choices: []*Choice{{Content: "Hello [1]", StopReason: "stop",
				Info: map[string]any{"PromptTokens": 12, "CompletionTokens": int64(3), "Cached": float32(0.5),
					"UsageEstimated": true, "Model": "gpt", "Nested": map[string]any{"a": 1.5}, "Nil": nil}}}}}}},
		{"tool calls", Entry{Kind: KindModel, Scope: "researcher/t1", Key: "k2", N: 3, Time: t0, Model: &ModelRecord{
			Response: &Response{Choices: []*Choice{{StopReason: "tool_calls", ToolCalls: []ToolCall{
				{ID: "call_1", Type: "function", Function: &FunctionCall{Name: "search", Arguments: `{"query":"<b>&</b>"}`}},
			}, FuncCall: &FunctionCall{Name: "search", Arguments: "{}"}}, nil}}}}},
		{"nil response", Entry{Kind: KindModel, Key: "k3", Time: t0, Model: &ModelRecord{}}},
		{"failed stream keeps its chunks", Entry{Kind: KindModel, Key: "k4", Time: t0,
			Model: &ModelRecord{Chunks: []Chunk{{Text: "par"}}}, Error: &ErrorRecord{Message: "stream cut", Deadline: true}}},
		{"invalid UTF-8", Entry{Kind: KindModel, Key: "k5", Time: t0, Model: &ModelRecord{
			Chunks:   []Chunk{{Text: "\xe2\x82"}, {Text: "\xac"}},
			Response: &Response{Choices: []*Choice{{Content: "\xe2\x82\xac \xff"}}}}}},
		{"search", Entry{Kind: KindSearch, Scope: "researcher/t2", Key: "k6", Time: t0, Search: &SearchRecord{
			Query: "go memory model", Limit: 5, Results: []Result{
				{DocID: "d1", URL: "https://go.dev/ref/mem", Title: "The Go Memory Model", Location: "§ Intro", Snippet: "Happens before…", Score: 1.25, Channel: "web",
					Locator: &Locator{Kind: "section", Value: "Intro", Part: "Sheet 1"}},
				{DocID: "d2", Score: Float(math.Inf(-1))}, {DocID: "d3", Score: Float(math.NaN())}}}}},
		{"empty search", Entry{Kind: KindSearch, Key: "k7", Time: t0, Search: &SearchRecord{Query: "x", Limit: 5, Results: []Result{}}}},
		{"search error", Entry{Kind: KindSearch, Key: "k8", Time: t0, Error: &ErrorRecord{Message: "searxng: 503", NotFound: true}}},
		{"document", Entry{Kind: KindDocument, Key: "k9", Time: t0, Document: &DocumentRecord{DocID: "d1", URL: "u", Title: "T",
			TextPage: &Ref{Scope: "researcher/t1", Kind: KindPage, Key: "p", N: 1}}}},
		{"page", Entry{Kind: KindPage, Key: "k10", Time: t0, Page: &PageRecord{URL: "http://a/x", FinalURL: "https://a/x", Title: "X",
			Text: "body\u2028line", ContentType: "text/html", FetchedAt: t0, SHA256: "ab", Bytes: 42}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Encode(tc.e)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(b), "\n") {
				t.Errorf("an encoded entry spans lines: %s", b)
			}
			got, err := Decode(b)
			if err != nil {
				t.Fatalf("decode %s: %v", b, err)
			}
			again, err := Encode(got)
			if err != nil || string(again) != string(b) {
				t.Errorf("re-encoding differs:\n%s\n%s (%v)", again, b, err)
			}
			want := tc.e
			want.Version = want.version()
			if !equalEntries(got, want) {
				t.Errorf("round trip changed the entry\n got %#v\nwant %#v\njson %s", got, want, b)
			}
		})
	}
}

// equalEntries compares entries, NaN scores included.
func equalEntries(a, b Entry) bool {
	if a.Search != nil && b.Search != nil && len(a.Search.Results) == len(b.Search.Results) {
		for i := range a.Search.Results {
			x, y := float64(a.Search.Results[i].Score), float64(b.Search.Results[i].Score)
			if math.IsNaN(x) && math.IsNaN(y) {
				a.Search.Results[i].Score, b.Search.Results[i].Score = 0, 0
			}
		}
	}
	return reflect.DeepEqual(a, b)
}

func TestDecodeRefuses(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    error
		message string
	}{
		{"newer version", `{"v":3,"kind":"model","key":"k","model":{}}`, ErrVersion, "format version 3 was written by a newer program; this one reads versions 1 to 2"},
		{"no version", `{"kind":"model","key":"k","model":{}}`, ErrVersion, "names no format version"},
		{"older version", `{"v":-1,"kind":"model"}`, ErrVersion, "format version -1 is no longer read"},
		{"not JSON", `{"v":1,`, ErrCorrupt, "corrupt"},
		{"unknown kind", `{"v":1,"kind":"telepathy","key":"k"}`, ErrCorrupt, `unknown entry kind "telepathy"`},
		{"kind without its record", `{"v":1,"kind":"search","key":"k","page":{"url":"u","final_url":"u","text":"","fetched_at":"2026-01-01T00:00:00Z","bytes":0}}`, ErrCorrupt, "wrong records"},
		{"no key", `{"v":1,"kind":"search","search":{"query":"q","limit":1,"results":[]}}`, ErrCorrupt, "no key"},
		{"bad base64", `{"v":1,"kind":"search","key":"k","search":{"query":{"base64":"%%"},"limit":1,"results":[]}}`, ErrCorrupt, "base64"},
		{"bad float", `{"v":1,"kind":"search","key":"k","search":{"query":"q","limit":1,"results":[{"score":"lots"}]}}`, ErrCorrupt, "float"},
		{"text entry in version 1", `{"v":1,"kind":"text","key":"k","time":"2026-01-01T00:00:00Z","text":{"text":"x"}}`, ErrCorrupt, "only version 2 has"},
		{"document refers to a text in version 1", `{"v":1,"kind":"document","key":"k","document":{"doc_id":"d","text_key":"t"}}`, ErrCorrupt, "only version 2 has"},
		{"text entry under another key", `{"v":2,"kind":"text","key":"k","time":"2026-01-01T00:00:00Z","text":{"text":"x"}}`, ErrCorrupt, "not the hash of its text"},
		{"text entry with a scope", `{"v":2,"kind":"text","scope":"researcher/t1","key":"k","text":{"text":"x"}}`, ErrCorrupt, "wrong records"},
		{"document with a text and a text key", `{"v":2,"kind":"document","key":"k","document":{"doc_id":"d","text":"x","text_key":"t"}}`, ErrCorrupt, "holds a text too"},
		{"bad info kind", `{"v":1,"kind":"model","key":"k","model":{"response":{"choices":[{"info":{"values":{"n":"x"},"kinds":{"n":"int"}}}]}}}`, ErrCorrupt, "generation info"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode([]byte(tc.in))
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.message) {
				t.Errorf("Decode(%s) = %v; want %v saying %q", tc.in, err, tc.want, tc.message)
			}
		})
	}
	if _, err := Decode([]byte(`{"v":3}`)); !errors.As(err, new(*VersionError)) {
		t.Errorf("a newer version is not a *VersionError: %v", err)
	}
}

func TestEncodeRefusesMismatchedRecords(t *testing.T) {
	for _, e := range []Entry{
		{Kind: KindModel, Key: "k"},
		{Kind: KindModel, Key: "k", Search: &SearchRecord{}},
		{Kind: KindHeader},
		{Kind: KindPage, Page: &PageRecord{}},
		{Kind: "other", Key: "k"},
	} {
		if b, err := Encode(e); err == nil {
			t.Errorf("Encode(%+v) = %s, want an error", e, b)
		}
	}
}

func TestGenerationInfoKeepsTypes(t *testing.T) {
	info := map[string]any{"PromptTokens": 7, "InputTokens": int32(8), "Big": int64(1) << 53, "U": uint64(9),
		"F": 0.25, "S": "x", "B": false, "Chan": make(chan int)}
	b, err := encodeInfo(info)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeInfo(b)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"PromptTokens": 7, "InputTokens": int32(8), "Big": int64(1) << 53, "U": uint64(9),
		"F": 0.25, "S": "x", "B": false, "Chan": got["Chan"]}
	if s, ok := got["Chan"].(string); !ok || !strings.HasPrefix(s, "0x") {
		t.Errorf("a value JSON cannot hold should be kept as its fmt form, got %#v", got["Chan"])
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("info\n got %#v\nwant %#v", got, want)
	}
}
