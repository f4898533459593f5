// Package openaiwire reads the parts of OpenAI's chat-completions wire
// format that both sides of it in this module need: the server's
// OpenAI-compatible endpoint and the test kit's OpenAI-compatible model
// server.
package openaiwire

import (
	"encoding/json"
	"errors"
	"strings"
)

// ErrContent reports a message content that is neither a string nor an
// array of content parts.
var ErrContent = errors.New("a message's content must be a string or an array of content parts")

// ContentText returns a message's text: its content is a string, null, or
// an array of parts of which the "text" parts count (joined by newlines).
func ContentText(content json.RawMessage) (string, error) {
	if len(content) == 0 || string(content) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(content, &s); err == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(content, &parts); err != nil {
		return "", ErrContent
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}

// Usage is a response's token usage.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	TotalTokens      int `json:"total_tokens"`
}
