package provider

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/tmc/langchaingo/llms"
)

// ToolFallback lets models that cannot call tools still use them, through
// a plain-text protocol: the tools are described in a system prompt
// section (ToolPrompt), the model answers with a JSON object naming a tool
// and its arguments, and the reply is read back (ParseToolCalls) into
// ordinary llms.ToolCalls. To the caller a fallback turn looks like a
// native one.
//
// Calls without tools pass through untouched. With Always false, tools are
// first sent natively; a provider that rejects them (ErrToolsUnsupported)
// switches this ToolFallback to text for good, and a native reply that
// called no tool but whose text is a JSON call of an offered tool (local
// models often answer so) is read as that call. With Always true every
// tool turn uses text.
//
// ToolFallback is safe for concurrent use.
type ToolFallback struct {
	llms.Model
	Always bool

	text atomic.Bool // set once the provider rejected native tools
}

// Unwrap returns the wrapped model, so that what names it (Model's
// Provider and Name) can be found through the wrapper.
func (f *ToolFallback) Unwrap() llms.Model { return f.Model }

// GenerateContent implements llms.Model as documented on ToolFallback.
func (f *ToolFallback) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	var o llms.CallOptions
	for _, opt := range opts {
		opt(&o)
	}
	if len(o.Tools) == 0 {
		return f.Model.GenerateContent(ctx, msgs, opts...)
	}
	if !f.Always && !f.text.Load() {
		resp, err := f.Model.GenerateContent(ctx, msgs, opts...)
		if !errors.Is(err, ErrToolsUnsupported) {
			if err == nil {
				readTextCalls(resp, o.Tools)
			}
			return resp, err
		}
		f.text.Store(true)
	}
	return f.viaText(ctx, msgs, o, opts)
}

// UsingText reports whether tool turns now go through the text protocol.
func (f *ToolFallback) UsingText() bool { return f.Always || f.text.Load() }

func (f *ToolFallback) viaText(ctx context.Context, msgs []llms.MessageContent, o llms.CallOptions, opts []llms.CallOption) (*llms.ContentResponse, error) {
	prompt := ToolPrompt(o.Tools)
	conv := make([]llms.MessageContent, 0, len(msgs)+1)
	placed := false
	for _, m := range msgs {
		switch m.Role {
		case llms.ChatMessageTypeSystem:
			if !placed {
				// One text part: some local servers take only a string
				// as a system message's content.
				var texts []string
				for _, p := range m.Parts {
					if t, ok := p.(llms.TextContent); ok {
						texts = append(texts, t.Text)
					}
				}
				m = llms.TextParts(m.Role, strings.Join(append(texts, prompt), "\n\n"))
				placed = true
			}
			conv = append(conv, m)
		case llms.ChatMessageTypeAI:
			conv = append(conv, llms.MessageContent{Role: m.Role, Parts: textOfCalls(m.Parts)})
		case llms.ChatMessageTypeTool:
			conv = append(conv, llms.MessageContent{Role: llms.ChatMessageTypeHuman, Parts: textOfResults(m.Parts)})
		default:
			conv = append(conv, m)
		}
	}
	if !placed {
		conv = append([]llms.MessageContent{llms.TextParts(llms.ChatMessageTypeSystem, prompt)}, conv...)
	}
	opts = append(opts, llms.WithTools(nil), llms.WithToolChoice(nil), llms.WithStreamingFunc(nil))
	resp, err := f.Model.GenerateContent(ctx, conv, opts...)
	if err != nil {
		return nil, err
	}
	readTextCalls(resp, o.Tools)
	if o.StreamingFunc != nil && len(resp.Choices) > 0 && len(resp.Choices[0].ToolCalls) == 0 && resp.Choices[0].Content != "" {
		if err := o.StreamingFunc(ctx, []byte(resp.Choices[0].Content)); err != nil {
			return nil, err
		}
	}
	return resp, nil
}

// readTextCalls turns a reply that called no tool but whose text is a JSON
// call of an offered tool into a reply with that ToolCall.
func readTextCalls(resp *llms.ContentResponse, tools []llms.Tool) {
	if resp == nil || len(resp.Choices) == 0 {
		return
	}
	c := resp.Choices[0]
	if len(c.ToolCalls) > 0 {
		return
	}
	calls, rest := ParseToolCalls(c.Content, tools)
	if len(calls) == 0 {
		return
	}
	c.ToolCalls = calls
	c.Content = rest
	if c.StopReason == "" || c.StopReason == "stop" {
		c.StopReason = "tool_calls"
	}
}

// ToolPrompt describes tools for a model that cannot call them natively,
// and says how to call one: a JSON object in a fenced block.
func ToolPrompt(tools []llms.Tool) string {
	var b strings.Builder
	b.WriteString("## Tools\n\nYou can use the tools below. To use one, reply with only a JSON object in a ```json fenced block, and nothing else:\n\n")
	b.WriteString("```json\n{\"tool\": \"TOOL_NAME\", \"arguments\": {\"ARGUMENT\": \"VALUE\"}}\n```\n\n")
	b.WriteString("To use several tools at once, reply with a JSON array of such objects. The result of each tool comes back in the next message. When you need no tool, answer in plain text without any JSON object.\n\nAvailable tools:\n")
	for _, t := range tools {
		if t.Function == nil {
			continue
		}
		fmt.Fprintf(&b, "\n### %s\n%s\n", t.Function.Name, strings.TrimSpace(t.Function.Description))
		if t.Function.Parameters != nil {
			if p, err := json.Marshal(t.Function.Parameters); err == nil {
				fmt.Fprintf(&b, "Arguments (JSON Schema): %s\n", p)
			}
		}
	}
	return b.String()
}

// ParseToolCalls reads tool calls out of a model's plain-text reply,
// leniently: a JSON object or array of objects, fenced (```json or ```) or
// bare amid prose; the name under "tool", "name" or "function" (a string,
// or an object with "name" and "arguments"), the arguments under
// "arguments", "args", "parameters" or "input", as an object or as a
// string holding one. Only calls of the named tools count. It returns the
// calls, with IDs "call_text_N", and the text with their JSON removed.
func ParseToolCalls(text string, tools []llms.Tool) ([]llms.ToolCall, string) {
	known := map[string]bool{}
	for _, t := range tools {
		if t.Function != nil {
			known[t.Function.Name] = true
		}
	}
	var calls []llms.ToolCall
	rest := text
	for _, span := range jsonSpans(text) {
		var found []llms.ToolCall
		for _, raw := range objects(text[span[0]:span[1]]) {
			if c, ok := toolCallOf(raw, known); ok {
				found = append(found, c)
			}
		}
		if len(found) > 0 {
			calls = append(calls, found...)
			rest = strings.Replace(rest, text[span[2]:span[3]], "", 1)
		}
	}
	for i := range calls {
		calls[i].ID = fmt.Sprintf("call_text_%d", i+1)
	}
	return calls, strings.TrimSpace(rest)
}

// jsonSpans finds candidate JSON values in text: the bodies of fenced
// blocks, then, outside them, each top-level {…} or […] that parses. Each
// span is [jsonStart, jsonEnd, removeStart, removeEnd].
func jsonSpans(text string) [][4]int {
	var spans [][4]int
	covered := make([]bool, len(text)+1)
	for i := 0; ; {
		j := strings.Index(text[i:], "```")
		if j < 0 {
			break
		}
		open := i + j
		nl := strings.IndexByte(text[open:], '\n')
		if nl < 0 {
			break
		}
		body := open + nl + 1
		k := strings.Index(text[body:], "```")
		if k < 0 {
			break
		}
		end := body + k
		spans = append(spans, [4]int{body, end, open, end + 3})
		for p := open; p < end+3; p++ {
			covered[p] = true
		}
		i = end + 3
	}
	for i := 0; i < len(text); i++ {
		if covered[i] || (text[i] != '{' && text[i] != '[') {
			continue
		}
		dec := json.NewDecoder(strings.NewReader(text[i:]))
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			continue
		}
		end := i + int(dec.InputOffset())
		spans = append(spans, [4]int{i, end, i, end})
		i = end - 1
	}
	return spans
}

// objects returns the JSON objects in s: s itself, or the objects of an
// array, or those under "tool_calls".
func objects(s string) []json.RawMessage {
	s = strings.TrimSpace(s)
	var arr []json.RawMessage
	if json.Unmarshal([]byte(s), &arr) == nil {
		return arr
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(s), &obj) != nil {
		return nil
	}
	if tc, ok := obj["tool_calls"]; ok && json.Unmarshal(tc, &arr) == nil {
		return arr
	}
	return []json.RawMessage{json.RawMessage(s)}
}

func toolCallOf(raw json.RawMessage, known map[string]bool) (llms.ToolCall, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return llms.ToolCall{}, false
	}
	var name string
	var args json.RawMessage
	for _, k := range []string{"tool", "name", "function", "tool_name"} {
		v, ok := obj[k]
		if !ok {
			continue
		}
		if json.Unmarshal(v, &name) == nil {
			break
		}
		var fn map[string]json.RawMessage // {"function": {"name", "arguments"}}
		if json.Unmarshal(v, &fn) == nil {
			_ = json.Unmarshal(fn["name"], &name)
			args = fn["arguments"]
			break
		}
	}
	if !known[name] {
		return llms.ToolCall{}, false
	}
	for _, k := range []string{"arguments", "args", "parameters", "input"} {
		if args != nil {
			break
		}
		args = obj[k]
	}
	var s string
	if json.Unmarshal(args, &s) == nil {
		args = json.RawMessage(s) // arguments sent as a string of JSON
	}
	var a map[string]any
	if len(args) == 0 || json.Unmarshal(args, &a) != nil || a == nil {
		args = json.RawMessage("{}")
	}
	return llms.ToolCall{Type: "function", FunctionCall: &llms.FunctionCall{Name: name, Arguments: string(args)}}, true
}

// textOfCalls writes an assistant turn's tool calls as the JSON the text
// protocol asks for, so the model sees its own earlier calls.
func textOfCalls(parts []llms.ContentPart) []llms.ContentPart {
	var b strings.Builder
	type call struct {
		Tool      string `json:"tool"`
		Arguments any    `json:"arguments"`
	}
	var calls []call
	for _, p := range parts {
		switch p := p.(type) {
		case llms.TextContent:
			b.WriteString(p.Text)
		case llms.ToolCall:
			if p.FunctionCall != nil {
				var args any = json.RawMessage(p.FunctionCall.Arguments)
				if !json.Valid([]byte(p.FunctionCall.Arguments)) {
					args = map[string]any{}
				}
				calls = append(calls, call{p.FunctionCall.Name, args})
			}
		}
	}
	if len(calls) > 0 {
		var v any = calls
		if len(calls) == 1 {
			v = calls[0]
		}
		js, _ := json.Marshal(v)
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("```json\n" + string(js) + "\n```")
	}
	return []llms.ContentPart{llms.TextContent{Text: b.String()}}
}

// textOfResults writes tool results as a user turn.
func textOfResults(parts []llms.ContentPart) []llms.ContentPart {
	var b strings.Builder
	for _, p := range parts {
		if r, ok := p.(llms.ToolCallResponse); ok {
			if b.Len() > 0 {
				b.WriteString("\n\n")
			}
			fmt.Fprintf(&b, "Result of tool %s:\n%s", r.Name, r.Content)
		}
	}
	return []llms.ContentPart{llms.TextContent{Text: b.String()}}
}
