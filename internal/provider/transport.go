package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/deepresearch/deepresearch/clock"
	"github.com/deepresearch/deepresearch/internal/retry"
)

// maxErrorBody bounds how much of an error reply is read.
const maxErrorBody = 64 << 10

// maxReplyBody bounds a non-streamed reply that is checked before
// langchaingo reads it.
const maxReplyBody = 32 << 20

// callState carries what the transport learned during one GenerateContent
// call back to the model wrapper: langchaingo flattens HTTP errors to
// strings (and its openai client replaces transport errors with "network
// error"), so the typed error travels beside it, in the request context.
type callState struct {
	mu  sync.Mutex
	err error
}

type stateKey struct{}

func withState(ctx context.Context, st *callState) context.Context {
	return context.WithValue(ctx, stateKey{}, st)
}

func (st *callState) record(err error) {
	if st == nil {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	st.err = err
}

func (st *callState) get() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.err
}

// transport sits under langchaingo's clients. It fixes the requests
// (temperature, Anthropic turns, keys), turns error replies into *Error
// with status and Retry-After, and checks streamed replies: an OpenAI
// stream must end in [DONE] and an Anthropic one in message_stop, every
// event must be JSON, and OpenAI tool-call deltas are assembled by index.
type transport struct {
	base         http.RoundTripper
	ep           endpoint
	keepZeroTemp bool
	clock        clock.Clock // reads Retry-After dates
}

func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	st, _ := req.Context().Value(stateKey{}).(*callState)
	req = req.Clone(req.Context())
	switch t.ep.provider {
	case OpenAI, Ollama:
		if t.ep.apiKey == "" {
			req.Header.Del("Authorization")
		}
	case GoogleAI:
		// With its own HTTP client the genai client adds no key.
		req.Header.Set("x-goog-api-key", t.ep.apiKey)
	}
	hadTools := false
	if req.Body != nil && req.Body != http.NoBody && req.Method == http.MethodPost {
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
		body, hadTools = t.rewrite(body)
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.ContentLength = int64(len(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		st.record(&Error{Provider: t.ep.provider, Err: err})
		return nil, err
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		e := t.statusError(resp, hadTools)
		resp.Body.Close()
		st.record(e)
		return nil, e
	}
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	switch {
	case ct == "text/event-stream" && (t.ep.provider == OpenAI || t.ep.provider == Ollama || t.ep.provider == Anthropic):
		resp.Body = &sseReader{src: resp.Body, buf: newLineReader(resp.Body), provider: t.ep.provider, st: st}
	case ct == "application/json" && !strings.Contains(req.URL.Path, "streamGenerateContent"):
		body, err := io.ReadAll(io.LimitReader(resp.Body, maxReplyBody))
		resp.Body.Close()
		if err != nil {
			e := &Error{Provider: t.ep.provider, Kind: ErrTruncated, Err: err}
			st.record(e)
			return nil, e
		}
		if !json.Valid(body) {
			e := &Error{Provider: t.ep.provider, Kind: ErrMalformed, Message: "reply is not JSON: " + clip(string(body), 80)}
			st.record(e)
			return nil, e
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
	}
	return resp, nil
}

// rewrite fixes a request body: langchaingo sends temperature 0 when the
// caller set none (dropped, so the provider's default applies), and its
// anthropic adapter sends one turn per message part (merged back into one
// turn per role). It reports whether the request offered tools.
func (t *transport) rewrite(body []byte) ([]byte, bool) {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return body, false
	}
	tools := len(m["tools"]) > 0 && string(m["tools"]) != "null" && string(m["tools"]) != "[]"
	changed := false
	if t.ep.provider != GoogleAI && !t.keepZeroTemp {
		if v, ok := m["temperature"]; ok {
			if f, err := strconv.ParseFloat(string(v), 64); err == nil && f == 0 {
				delete(m, "temperature")
				changed = true
			}
		}
	}
	if t.ep.provider == Anthropic {
		if merged, ok := mergeTurns(m["messages"]); ok {
			m["messages"] = merged
			changed = true
		}
	}
	if !changed {
		return body, tools
	}
	out, err := json.Marshal(m)
	if err != nil {
		return body, tools
	}
	return out, tools
}

// mergeTurns joins consecutive Anthropic messages of one role into one
// message whose content is their blocks in order; the API wants roles to
// alternate, and tool results for one turn in one user message.
func mergeTurns(raw json.RawMessage) (json.RawMessage, bool) {
	var msgs []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &msgs) != nil || len(msgs) < 2 {
		return nil, false
	}
	type turn struct {
		Role    string            `json:"role"`
		Content []json.RawMessage `json:"content"`
	}
	var out []turn
	merged := false
	for _, msg := range msgs {
		var blocks []json.RawMessage
		if json.Unmarshal(msg.Content, &blocks) != nil {
			var s string
			if json.Unmarshal(msg.Content, &s) != nil {
				return nil, false
			}
			b, _ := json.Marshal(map[string]string{"type": "text", "text": s})
			blocks = []json.RawMessage{b}
		}
		if n := len(out); n > 0 && out[n-1].Role == msg.Role {
			out[n-1].Content = append(out[n-1].Content, blocks...)
			merged = true
			continue
		}
		out = append(out, turn{msg.Role, blocks})
	}
	if !merged {
		return nil, false
	}
	b, err := json.Marshal(out)
	return b, err == nil
}

// statusError reads a provider's error reply into an *Error.
func (t *transport) statusError(resp *http.Response, hadTools bool) *Error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	e := &Error{Provider: t.ep.provider, Status: resp.StatusCode}
	e.Type, e.Message = errorBody(body)
	if d, ok := retry.ParseRetryAfter(resp.Header.Get("Retry-After"), t.clock.Now()); ok {
		e.Wait = d
	} else if ms, err := strconv.ParseFloat(resp.Header.Get("Retry-After-Ms"), 64); err == nil && ms >= 0 {
		e.Wait = time.Duration(ms * float64(time.Millisecond))
	}
	lower := strings.ToLower(e.Message + " " + e.Type)
	switch code := resp.StatusCode; {
	case code == http.StatusUnauthorized || code == http.StatusForbidden,
		code == http.StatusBadRequest && strings.Contains(lower, "api key"):
		e.Kind, e.Var = ErrBadKey, t.ep.keyVar
	case code == http.StatusTooManyRequests && strings.Contains(lower, "insufficient_quota"):
		e.Kind = ErrBadRequest // out of credit: waiting will not help
	case code == http.StatusTooManyRequests:
		e.Kind = ErrRateLimited
	case code >= 500 || code == http.StatusRequestTimeout:
		e.Kind = ErrUnavailable
	case hadTools && mentionsTools(lower):
		e.Kind = ErrToolsUnsupported
	default:
		e.Kind = ErrBadRequest
	}
	return e
}

// mentionsTools reports whether an error message blames the tools offered:
// Ollama's "does not support tools", vLLM's "--enable-auto-tool-choice",
// llama.cpp's "tools param requires --jinja", OpenRouter's "No endpoints
// found that support tool use".
func mentionsTools(msg string) bool {
	for _, s := range []string{"tool", "function call", "function_call", "functions"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// errorBody reads the error type and message from the formats providers
// use: OpenAI {"error":{"message","type","code"}}, Anthropic
// {"type":"error","error":{"type","message"}}, Gemini
// {"error":{"code","message","status"}}, and {"error":"text"}.
func errorBody(body []byte) (typ, msg string) {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &v) != nil {
		return "", clip(string(body), 300)
	}
	var s string
	if json.Unmarshal(v.Error, &s) == nil {
		return "", clip(s, 300)
	}
	var o struct {
		Message string          `json:"message"`
		Type    string          `json:"type"`
		Status  string          `json:"status"`
		Code    json.RawMessage `json:"code"`
	}
	if json.Unmarshal(v.Error, &o) == nil {
		typ = firstNonBlank(o.Type, o.Status)
		if typ == "" {
			var code string
			if json.Unmarshal(o.Code, &code) == nil {
				typ = code
			}
		}
		return clip(typ, 60), clip(firstNonBlank(o.Message, v.Message), 300)
	}
	return "", clip(v.Message, 300)
}

// clip makes provider text safe to show in an error: control characters
// become spaces, runs of space collapse, and it is cut at n runes.
func clip(s string, n int) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if unicode.IsControl(r) || unicode.IsSpace(r) {
			if !space && b.Len() > 0 {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		if n == 0 {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
		n--
	}
	return strings.TrimSpace(b.String())
}

// streamError reads an error event inside a stream (OpenRouter's
// {"error":{...}} chunk, Anthropic's "error" event) into an *Error;
// overloaded and server errors are retried, rejected requests are not.
func streamError(provider string, data []byte) *Error {
	typ, msg := errorBody(data)
	if typ == "" && msg == "" {
		var v struct {
			Type  string `json:"type"`
			Error struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"error"`
		}
		_ = json.Unmarshal(data, &v)
		typ, msg = v.Error.Type, v.Error.Message
	}
	e := &Error{Provider: provider, Type: typ, Message: msg, Kind: ErrUnavailable}
	switch t := strings.ToLower(typ); {
	case strings.Contains(t, "rate_limit"):
		e.Kind = ErrRateLimited
	case strings.Contains(t, "invalid_request"), strings.Contains(t, "authentication"), strings.Contains(t, "permission"):
		e.Kind = ErrBadRequest
	}
	return e
}

var errNotJSON = errors.New("event data is not JSON")

func malformed(provider string, data []byte) *Error {
	return &Error{Provider: provider, Kind: ErrMalformed, Message: "stream event: " + clip(string(data), 80), Err: errNotJSON}
}

func truncated(provider string, err error) *Error {
	return &Error{Provider: provider, Kind: ErrTruncated, Err: err}
}
