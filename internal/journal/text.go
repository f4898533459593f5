package journal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unicode/utf8"
)

// InlineText is the longest text a document or page entry holds itself.
// A longer one (a corpus file or a web page of hundreds of kilobytes or
// more) is kept once per run, in a text entry (KindText) keyed by its hash
// (TextKey), and every document and page entry of the run that read it
// refers to that entry: the agents that open one large document, the
// relevance judge that reads it whole and the follow-up that fetches it
// again add a few hundred bytes each to the journal, not the document.
// The text itself is bounded where it is read (a corpus file at 8 MiB, a
// web page at fetch.DefaultMaxBytes).
const InlineText = 64 << 10

const textDomain = "deepresearch/journal/text/1\n"

// TextPart is the most bytes of JSON one text entry's text takes: a
// longer text is kept in parts, entries N 0 to Parts-1 under the key of
// the whole, cut at character boundaries, so that each entry fits a log
// that bounds its messages (a JetStream subject: 1 MiB by default).
const TextPart = 256 << 10

// TextRecord is a long text, or a part of one, that document and page
// entries refer to by its key (version 2).
type TextRecord struct {
	Text String `json:"text"`
	// Parts is how many entries hold the text (the entry's N is which
	// part it holds); 0 when this entry holds it whole.
	Parts int `json:"parts,omitempty"`
}

// textParts cuts text into parts whose JSON form (String's) takes at most
// TextPart bytes each, each ending at a character boundary where the text
// is UTF-8.
func textParts(text string) []string {
	valid := utf8.ValidString(text)
	if valid && jsonStringLen(text) <= TextPart || !valid && len(text) <= TextPart/2 {
		return []string{text}
	}
	var parts []string
	for len(text) > 0 {
		end := 0
		if valid {
			for n := 2; end < len(text); end++ {
				if n += jsonWidth(text, end); n > TextPart {
					break
				}
			}
		} else {
			end = min(len(text), TextPart/2) // base64, within its object
		}
		if end < len(text) {
			for k := 0; k < utf8.UTFMax-1 && end > 1 && !utf8.RuneStart(text[end]); k++ {
				end--
			}
		}
		parts = append(parts, text[:end])
		text = text[end:]
	}
	return parts
}

// TextKey returns the key of a text entry holding text: the hex SHA-256 of
// the text, under its own domain.
func TextKey(text string) string {
	h := sha256.New()
	h.Write([]byte(textDomain))
	// Through a small buffer: a text of megabytes is not copied whole.
	buf := make([]byte, min(len(text), 32<<10))
	for len(text) > 0 {
		n := copy(buf, text)
		h.Write(buf[:n])
		text = text[n:]
	}
	return hex.EncodeToString(h.Sum(nil))
}

// textSlot is a text entry being appended, or appended: the calls that
// need it at once wait for one append.
type textSlot struct {
	done chan struct{} // closed when the append has ended
	err  error         // how it ended
}

// keepText makes sure the run's journal holds text in a text entry when
// it is longer than InlineText, and returns its key; "" when the text is
// short enough to be held by the entry that reads it. The text is
// appended once per run: an earlier attempt's, or this attempt's, entry
// is referred to again; calls that need the same text at once wait for
// one append, and share its outcome. A failed append is told to
// Hooks.AppendFailed (once) and returned, and a later call tries again.
func (j *Journal) keepText(ctx context.Context, scope, text string) (string, error) {
	if len(text) <= InlineText {
		return "", nil
	}
	key := TextKey(text)
	j.mu.Lock()
	if j.texts[key] {
		j.mu.Unlock()
		return key, nil
	}
	if s, ok := j.writing[key]; ok {
		j.mu.Unlock()
		<-s.done
		if s.err != nil {
			return "", s.err
		}
		return key, nil
	}
	s := &textSlot{done: make(chan struct{})}
	j.writing[key] = s
	j.mu.Unlock()

	if err := j.appendText(ctx, key, text); err != nil {
		s.err = &AppendError{Kind: KindText, Scope: scope, Err: err}
	}
	j.mu.Lock()
	delete(j.writing, key)
	if s.err == nil {
		j.texts[key] = true
	}
	j.mu.Unlock()
	close(s.done)
	if s.err != nil {
		if f := j.opts.Hooks.AppendFailed; f != nil {
			f(s.err)
		}
		return "", s.err
	}
	return key, nil
}

// appendText appends the text entries of text, whose key is key: one, or
// one a part (see TextPart), in order.
func (j *Journal) appendText(ctx context.Context, key, text string) error {
	parts := textParts(text)
	n := len(parts)
	if n == 1 {
		n = 0
	}
	for i, p := range parts {
		b, err := Encode(Entry{Kind: KindText, Key: key, N: i, Time: j.opts.Clock(), Text: &TextRecord{Text: String(p), Parts: n}})
		if err != nil {
			return err
		}
		if err := j.opts.Log.Append(context.WithoutCancel(ctx), j.run, b); err != nil {
			return err
		}
	}
	return nil
}

// textsOf joins the parts of the prior text entries, by key, into texts,
// and checks each joined text against its key. A text some of whose parts
// are missing (the process died while appending them) is left out: no
// entry refers to it, as it is appended after its text.
func textsOf(parts map[string][]*String, texts map[string]string) error {
	for key, ps := range parts {
		size := 0
		for _, p := range ps {
			if p == nil {
				size = -1
				break
			}
			size += len(*p)
		}
		if size < 0 {
			continue
		}
		var b strings.Builder
		b.Grow(size)
		for _, p := range ps {
			b.WriteString(string(*p))
		}
		if TextKey(b.String()) != key {
			return fmt.Errorf("%w: journal: the parts of a text entry (%.12s…) do not make the text of its key", ErrCorrupt, key)
		}
		texts[key] = b.String()
	}
	return nil
}

// text returns the text of the prior text entry with key.
func (j *Journal) text(key string) (string, error) {
	t, ok := j.priorTexts[key]
	if !ok {
		return "", fmt.Errorf("%w: journal: run %s: an entry refers to a text entry (%.12s…) the journal does not hold", ErrCorrupt, j.run, key)
	}
	return t, nil
}

// encodeText encodes a text entry (its records checked) as marshal would,
// into one buffer: false when its text is not valid UTF-8 (String writes it
// as base64), which marshal then encodes.
func encodeText(e Entry) ([]byte, bool) {
	text := string(e.Text.Text)
	if !utf8.ValidString(text) {
		return nil, false
	}
	t, err := e.Time.MarshalJSON()
	if err != nil {
		return nil, false
	}
	b := make([]byte, 0, jsonStringLen(text)+len(e.Key)+len(t)+64)
	b = fmt.Appendf(b, `{"v":%d,"kind":`, e.Version)
	b = appendJSONString(b, string(e.Kind))
	b = append(b, `,"key":`...)
	b = appendJSONString(b, e.Key)
	if e.N != 0 {
		b = fmt.Appendf(b, `,"n":%d`, e.N)
	}
	b = append(b, `,"time":`...)
	b = append(b, t...)
	b = append(b, `,"text":{"text":`...)
	b = appendJSONString(b, text)
	if e.Text.Parts != 0 {
		b = fmt.Appendf(b, `,"parts":%d`, e.Text.Parts)
	}
	b = append(b, "}}"...)
	return b, true
}

// jsonStringLen is the length of s, valid UTF-8, as appendJSONString
// writes it.
func jsonStringLen(s string) int {
	n := 2
	for i := range len(s) {
		n += jsonWidth(s, i)
	}
	return n
}

// jsonWidth is how many bytes appendJSONString writes for the byte s[i] of
// s, valid UTF-8 (for U+2028 and U+2029, six for the first of their three
// bytes, none for the others).
func jsonWidth(s string, i int) int {
	switch c := s[i]; {
	case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
		return 2
	case c < 0x20:
		return 6
	case c == 0xe2 && i+2 < len(s) && s[i+1] == 0x80 && (s[i+2] == 0xa8 || s[i+2] == 0xa9):
		return 6
	case c >= 0x80 && i >= 2 && s[i-2] == 0xe2 && s[i-1] == 0x80 && (c == 0xa8 || c == 0xa9),
		c == 0x80 && i >= 1 && i+1 < len(s) && s[i-1] == 0xe2 && (s[i+1] == 0xa8 || s[i+1] == 0xa9):
		return 0
	}
	return 1
}

// appendJSONString appends s, valid UTF-8, as encoding/json writes it with
// HTML escaping off: quotes, backslashes and control characters escaped,
// and U+2028 and U+2029, which JavaScript reads as line ends.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			start = i + size
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
