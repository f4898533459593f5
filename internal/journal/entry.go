package journal

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf8"
)

// Version is the newest journal format this package writes. Decode reads
// it and every version from OldestVersion; any other version is refused
// with a *VersionError. Encode writes each entry in the oldest version that
// holds it, so that a program that reads only version 1 still reads a
// journal that needs nothing newer, and refuses by name one that does.
//
// Version 1: one JSON object per entry, fields as Entry's tags; model keys
// as ModelKey computes them (domain "deepresearch/journal/model/1").
//
// Version 2: version 1, plus text entries (KindText: a long text kept once
// per run, whole or in parts: see InlineText and TextPart) and the
// document and page entries that refer to one (DocumentRecord.TextKey,
// PageRecord.TextKey). Only those entries are written in version 2.
const Version = 2

// OldestVersion is the oldest journal format Decode reads.
const OldestVersion = 1

// Kind says what an entry records.
type Kind string

// The kinds of entries.
const (
	KindHeader   Kind = "header"   // opens a journal (Header)
	KindModel    Kind = "model"    // a model call (ModelRecord)
	KindSearch   Kind = "search"   // a search (SearchRecord)
	KindDocument Kind = "document" // a search backend's document fetch (DocumentRecord)
	KindPage     Kind = "page"     // a web page fetch (PageRecord)
	KindAsked    Kind = "asked"    // a question first put to a person (PersonRecord, no answer)
	KindAnswer   Kind = "answer"   // a person's answer to it (PersonRecord)
	KindText     Kind = "text"     // a long text, kept once per run (TextRecord; version 2)
)

// Entry is one record of a journal: the header, one completed call, a
// question put to a person and its answer (Ask), or a long text that
// document and page entries refer to.
// Exactly one of Header, Model, Search, Document, Page, Person and Text is set, matching
// Kind — except that a call which failed has only Error (a streamed model
// call that failed may keep the chunks it delivered, in Model).
type Entry struct {
	// Version is the format version the entry was written in; Encode sets
	// it.
	Version int  `json:"v"`
	Kind    Kind `json:"kind"`
	// Scope is the part of the run the call belongs to ("researcher/t2");
	// see the package documentation.
	Scope string `json:"scope,omitempty"`
	// Key is the hex SHA-256 of the call's canonical request (ModelKey,
	// SearchKey, DocumentKey, PageKey).
	Key string `json:"key,omitempty"`
	// N is which occurrence of the request in its scope this was, from 0.
	N int `json:"n,omitempty"`
	// Time is when the call completed.
	Time time.Time `json:"time"`

	Header   *Header         `json:"header,omitempty"`
	Model    *ModelRecord    `json:"model,omitempty"`
	Search   *SearchRecord   `json:"search,omitempty"`
	Document *DocumentRecord `json:"document,omitempty"`
	Page     *PageRecord     `json:"page,omitempty"`
	Person   *PersonRecord   `json:"person,omitempty"`
	Text     *TextRecord     `json:"text,omitempty"`
	Error    *ErrorRecord    `json:"error,omitempty"`
}

// Header opens a journal.
type Header struct {
	// Program names the program and version that wrote the journal.
	Program string `json:"program"`
	// Manifest is what the run's owner needs to run it again (the request
	// and the settings that shape it), as JSON the owner defines. It never
	// holds a key.
	Manifest json.RawMessage `json:"manifest,omitempty"`
}

// ModelRecord is a model call's outcome.
type ModelRecord struct {
	// Chunks are the pieces the call streamed to the caller, in order.
	Chunks []Chunk `json:"chunks,omitempty"`
	// Response is the call's response; nil when it failed (or when the
	// model returned none).
	Response *Response `json:"response,omitempty"`
}

// Chunk is one streamed piece of a model call.
type Chunk struct {
	Text String `json:"t,omitempty"`
	// Reasoning, with ReasoningFunc, is a piece handed to the caller's
	// StreamingReasoningFunc (with Text) rather than its StreamingFunc.
	Reasoning     String `json:"r,omitempty"`
	ReasoningFunc bool   `json:"rf,omitempty"`
}

// Response mirrors llms.ContentResponse.
type Response struct {
	Choices []*Choice `json:"choices"`
}

// Choice mirrors llms.ContentChoice.
type Choice struct {
	Content    String        `json:"content,omitempty"`
	StopReason String        `json:"stop_reason,omitempty"`
	Reasoning  String        `json:"reasoning,omitempty"`
	ToolCalls  []ToolCall    `json:"tool_calls,omitempty"`
	FuncCall   *FunctionCall `json:"func_call,omitempty"`
	// Info is the provider's GenerationInfo (usage among it). Its JSON
	// form keeps the Go type of each number: see encodeInfo.
	Info map[string]any `json:"-"`
}

// choiceJSON is Choice's JSON form.
type choiceJSON struct {
	Content    String          `json:"content,omitempty"`
	StopReason String          `json:"stop_reason,omitempty"`
	Reasoning  String          `json:"reasoning,omitempty"`
	ToolCalls  []ToolCall      `json:"tool_calls,omitempty"`
	FuncCall   *FunctionCall   `json:"func_call,omitempty"`
	Info       json.RawMessage `json:"info,omitempty"`
}

// MarshalJSON implements json.Marshaler.
func (c Choice) MarshalJSON() ([]byte, error) {
	info, err := encodeInfo(c.Info)
	if err != nil {
		return nil, err
	}
	return marshal(choiceJSON{c.Content, c.StopReason, c.Reasoning, c.ToolCalls, c.FuncCall, info})
}

// UnmarshalJSON implements json.Unmarshaler.
func (c *Choice) UnmarshalJSON(b []byte) error {
	var w choiceJSON
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	info, err := decodeInfo(w.Info)
	if err != nil {
		return err
	}
	*c = Choice{w.Content, w.StopReason, w.Reasoning, w.ToolCalls, w.FuncCall, info}
	return nil
}

// ToolCall mirrors llms.ToolCall.
type ToolCall struct {
	ID       String        `json:"id,omitempty"`
	Type     String        `json:"type,omitempty"`
	Function *FunctionCall `json:"function,omitempty"`
}

// FunctionCall mirrors llms.FunctionCall.
type FunctionCall struct {
	Name      String `json:"name"`
	Arguments String `json:"arguments"`
}

// SearchRecord is a search's outcome.
type SearchRecord struct {
	Query   String   `json:"query"`
	Limit   int      `json:"limit"`
	Results []Result `json:"results"`
}

// Result mirrors search.Result.
type Result struct {
	DocID    String   `json:"doc_id,omitempty"`
	URL      String   `json:"url,omitempty"`
	Title    String   `json:"title,omitempty"`
	Location String   `json:"location,omitempty"`
	Locator  *Locator `json:"locator,omitempty"`
	Snippet  String   `json:"snippet,omitempty"`
	Score    Float    `json:"score"`
	Channel  String   `json:"channel,omitempty"`
	// Published and Modified are the result's dates (ISO 8601); optional
	// fields added within version 1, absent from older entries.
	Published String `json:"published,omitempty"`
	Modified  String `json:"modified,omitempty"`
	// Author is who wrote it (optional, added within version 1 like the
	// dates).
	Author String `json:"author,omitempty"`
}

// Locator mirrors source.Location: where in its document a result is.
type Locator struct {
	Kind  String `json:"kind"`
	Value String `json:"value"`
	Part  String `json:"part,omitempty"`
}

// DocumentRecord is a search backend's document fetch.
type DocumentRecord struct {
	DocID String `json:"doc_id"`
	URL   String `json:"url,omitempty"`
	Title String `json:"title,omitempty"`
	Text  String `json:"text,omitempty"`
	// Published and Modified are the document's dates (optional, as in
	// Result).
	Published String `json:"published,omitempty"`
	Modified  String `json:"modified,omitempty"`
	Author    String `json:"author,omitempty"`
	// Channel is the channel of the backend that holds the document
	// (optional, as in Result).
	Channel String `json:"channel,omitempty"`
	// TextPage, when set, says Text is that of the page entry it names:
	// the page the fetch read, recorded just before (so the text is kept
	// once).
	TextPage *Ref `json:"text_page,omitempty"`
	// TextKey, when set, says Text is that of the run's text entry with
	// this key (a text longer than InlineText; version 2).
	TextKey string `json:"text_key,omitempty"`
}

// Ref names an entry by its scope, kind, key and occurrence.
type Ref struct {
	Scope string `json:"scope,omitempty"`
	Kind  Kind   `json:"kind"`
	Key   string `json:"key"`
	N     int    `json:"n,omitempty"`
}

// PageRecord mirrors fetch.Page: the URL asked for and the one read after
// redirects, the text, the body's hash and length, and when it was read.
type PageRecord struct {
	URL         String    `json:"url"`
	FinalURL    String    `json:"final_url"`
	Title       String    `json:"title,omitempty"`
	Text        String    `json:"text"`
	ContentType String    `json:"content_type,omitempty"`
	FetchedAt   time.Time `json:"fetched_at"`
	SHA256      string    `json:"sha256,omitempty"`
	Bytes       int       `json:"bytes"`
	// Published and Modified are the page's dates as its metadata states
	// them (optional, as in Result).
	Published String `json:"published,omitempty"`
	Modified  String `json:"modified,omitempty"`
	// Author is who wrote it (optional, added within version 1 like the
	// dates).
	Author String `json:"author,omitempty"`
	// TextKey, when set, says Text is that of the run's text entry with
	// this key (a text longer than InlineText; version 2).
	TextKey string `json:"text_key,omitempty"`
}

// PersonRecord is a person's part in a run (Ask): in a KindAsked entry,
// nothing (the entry's Time is when the question was first put); in a
// KindAnswer entry, the answer, as JSON its caller defines.
type PersonRecord struct {
	Answer json.RawMessage `json:"answer,omitempty"`
}

// ErrorRecord is how a call failed.
type ErrorRecord struct {
	Message String `json:"message"`
	// Deadline: the caller's deadline ended the call (an agent's time
	// limit); the replayed error matches context.DeadlineExceeded.
	Deadline bool `json:"deadline,omitempty"`
	// NotFound: the error matched search.ErrNotFound, and so does the
	// replayed one.
	NotFound bool `json:"not_found,omitempty"`
}

// String is a string that survives JSON whatever its bytes: valid UTF-8
// is written as a JSON string, anything else as {"base64": "…"}, so that
// text a provider or a page returned replays exactly.
type String string

// MarshalJSON implements json.Marshaler.
func (s String) MarshalJSON() ([]byte, error) {
	if utf8.ValidString(string(s)) {
		return marshal(string(s))
	}
	return marshal(map[string]string{"base64": base64.StdEncoding.EncodeToString([]byte(s))})
}

// UnmarshalJSON implements json.Unmarshaler.
func (s *String) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '{' {
		var w struct {
			Base64 *string `json:"base64"`
		}
		if err := json.Unmarshal(b, &w); err != nil {
			return err
		}
		if w.Base64 == nil {
			return errors.New(`journal: a string object needs "base64"`)
		}
		raw, err := base64.StdEncoding.DecodeString(*w.Base64)
		if err != nil {
			return fmt.Errorf("journal: base64 string: %w", err)
		}
		*s = String(raw)
		return nil
	}
	var str string
	if err := json.Unmarshal(b, &str); err != nil {
		return err
	}
	*s = String(str)
	return nil
}

// Float is a float64 that survives JSON: NaN and the infinities, which
// JSON numbers cannot hold, are written as the strings "NaN", "+Inf" and
// "-Inf".
type Float float64

// MarshalJSON implements json.Marshaler.
func (f Float) MarshalJSON() ([]byte, error) {
	switch v := float64(f); {
	case math.IsNaN(v):
		return []byte(`"NaN"`), nil
	case math.IsInf(v, 1):
		return []byte(`"+Inf"`), nil
	case math.IsInf(v, -1):
		return []byte(`"-Inf"`), nil
	}
	return json.Marshal(float64(f))
}

// UnmarshalJSON implements json.Unmarshaler.
func (f *Float) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(math.IsNaN(v) || math.IsInf(v, 0)) {
			return fmt.Errorf("journal: float %q: want a number, NaN, +Inf or -Inf", s)
		}
		*f = Float(v)
		return nil
	}
	var v float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = Float(v)
	return nil
}

// marshal is json.Marshal without HTML escaping (smaller, and the text is
// never put in a page from here).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// Encode returns e's JSON form, in the oldest format version that holds it
// (it sets e.Version; see Version). It refuses an entry whose records do
// not match its kind. A text entry is encoded in one pass into one buffer
// the size of its JSON form: its text may be megabytes.
func Encode(e Entry) ([]byte, error) {
	e.Version = e.version()
	if err := e.check(); err != nil {
		return nil, err
	}
	if e.Kind == KindText {
		if b, ok := encodeText(e); ok {
			return b, nil
		}
	}
	b, err := marshal(e)
	if err != nil {
		return nil, fmt.Errorf("journal: encode %s entry: %w", e.Kind, err)
	}
	return b, nil
}

// Decode reads an entry Encode wrote. An entry of a format version this
// package does not read is refused with a *VersionError (matching
// ErrVersion); a malformed one with an error matching ErrCorrupt.
func Decode(b []byte) (Entry, error) {
	var head struct {
		V *int `json:"v"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return Entry{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	switch {
	case head.V == nil:
		return Entry{}, &VersionError{Version: 0}
	case *head.V < OldestVersion || *head.V > Version:
		return Entry{}, &VersionError{Version: *head.V}
	}
	var e Entry
	if err := json.Unmarshal(b, &e); err != nil {
		return Entry{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if err := e.check(); err != nil {
		return Entry{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if e.Version < e.version() {
		return Entry{}, fmt.Errorf("%w: journal: a version %d entry holds what only version %d has", ErrCorrupt, e.Version, e.version())
	}
	if e.Kind == KindText && e.Text.Parts == 0 && e.Key != TextKey(string(e.Text.Text)) {
		return Entry{}, fmt.Errorf("%w: journal: a text entry's key is not the hash of its text", ErrCorrupt)
	}
	return e, nil
}

// version is the oldest format version that holds e.
func (e *Entry) version() int {
	switch {
	case e.Kind == KindText, e.Document != nil && e.Document.TextKey != "", e.Page != nil && e.Page.TextKey != "":
		return 2
	}
	return 1
}

// check reports an entry whose records do not match its kind.
func (e *Entry) check() error {
	set := 0
	for _, p := range []bool{e.Header != nil, e.Model != nil, e.Search != nil, e.Document != nil, e.Page != nil, e.Person != nil, e.Text != nil} {
		if p {
			set++
		}
	}
	var ok bool
	switch e.Kind {
	case KindHeader:
		ok = e.Header != nil && set == 1 && e.Error == nil
	case KindModel:
		// A failed streamed call may keep its chunks.
		ok = set == 1 && e.Model != nil || set == 0 && e.Error != nil
	case KindSearch:
		ok = set == 1 && e.Search != nil || set == 0 && e.Error != nil
	case KindDocument:
		ok = set == 1 && e.Document != nil || set == 0 && e.Error != nil
	case KindPage:
		ok = set == 1 && e.Page != nil || set == 0 && e.Error != nil
	case KindAsked, KindAnswer:
		ok = set == 1 && e.Person != nil && e.Error == nil
	case KindText:
		// A whole text (Parts 0) or part N of Parts.
		ok = set == 1 && e.Text != nil && e.Error == nil && e.Scope == "" &&
			(e.Text.Parts == 0 && e.N == 0 || e.Text.Parts >= 2 && e.N >= 0 && e.N < e.Text.Parts)
	default:
		return fmt.Errorf("journal: unknown entry kind %q", e.Kind)
	}
	if !ok {
		return fmt.Errorf("journal: a %s entry holds the wrong records", e.Kind)
	}
	if e.Kind != KindHeader && e.Key == "" {
		return fmt.Errorf("journal: a %s entry has no key", e.Kind)
	}
	if d := e.Document; d != nil && d.TextKey != "" && (d.Text != "" || d.TextPage != nil) {
		return errors.New("journal: a document entry refers to a text entry and holds a text too")
	}
	if p := e.Page; p != nil && p.TextKey != "" && p.Text != "" {
		return errors.New("journal: a page entry refers to a text entry and holds a text too")
	}
	return nil
}

// encodeInfo writes a choice's GenerationInfo as {"values": {...}, "kinds":
// {...}}: "kinds" names the Go type of every value that JSON would read
// back as another (an int read back as a float64), so that decodeInfo
// restores it. A value JSON cannot hold is written as its fmt form.
func encodeInfo(info map[string]any) (json.RawMessage, error) {
	if len(info) == 0 {
		return nil, nil
	}
	values := make(map[string]json.RawMessage, len(info))
	kinds := map[string]string{}
	for k, v := range info {
		switch v.(type) {
		case int:
			kinds[k] = "int"
		case int32:
			kinds[k] = "int32"
		case int64:
			kinds[k] = "int64"
		case uint32:
			kinds[k] = "uint32"
		case uint64:
			kinds[k] = "uint64"
		case float32:
			kinds[k] = "float32"
		}
		b, err := marshal(v)
		if err != nil {
			b, _ = marshal(fmt.Sprint(v))
			kinds[k] = "fmt"
		}
		values[k] = b
	}
	w := map[string]any{"values": values}
	if len(kinds) > 0 {
		w["kinds"] = kinds
	}
	return marshal(w)
}

// decodeInfo reads what encodeInfo wrote.
func decodeInfo(b json.RawMessage) (map[string]any, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var w struct {
		Values map[string]json.RawMessage `json:"values"`
		Kinds  map[string]string          `json:"kinds"`
	}
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("generation info: %w", err)
	}
	out := make(map[string]any, len(w.Values))
	for k, raw := range w.Values {
		var v any
		var err error
		switch w.Kinds[k] {
		case "int":
			v, err = decodeNumber[int](raw)
		case "int32":
			v, err = decodeNumber[int32](raw)
		case "int64":
			v, err = decodeNumber[int64](raw)
		case "uint32":
			v, err = decodeNumber[uint32](raw)
		case "uint64":
			v, err = decodeNumber[uint64](raw)
		case "float32":
			v, err = decodeNumber[float32](raw)
		default:
			err = json.Unmarshal(raw, &v)
		}
		if err != nil {
			return nil, fmt.Errorf("generation info %q: %w", k, err)
		}
		out[k] = v
	}
	return out, nil
}

func decodeNumber[T int | int32 | int64 | uint32 | uint64 | float32](raw json.RawMessage) (any, error) {
	var v T
	err := json.Unmarshal(raw, &v)
	return v, err
}
