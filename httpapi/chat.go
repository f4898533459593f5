package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/openaiwire"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/runstore"
)

// chatRequest is the part of an OpenAI chat completions request the server
// reads; other members (temperature, tools, …) are accepted and ignored.
type chatRequest struct {
	Model    string       `json:"model"`
	Messages chatMessages `json:"messages"`
	Stream   bool         `json:"stream"`
}

// chatMessages decodes the messages one by one, so an error names the
// element it is in: "messages[2].role", not "messages.role".
type chatMessages []chatMessage

func (ms *chatMessages) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err // not an array: the decoder names "messages"
	}
	out := make(chatMessages, len(raw))
	for i, r := range raw {
		if err := json.Unmarshal(r, &out[i]); err != nil {
			return &elementError{Path: fmt.Sprintf("messages[%d]", i), Err: err}
		}
	}
	*ms = out
	return nil
}

// elementError is a JSON type error inside element Path of an array.
type elementError struct {
	Path string
	Err  error
}

func (e *elementError) Error() string { return e.Path + ": " + e.Err.Error() }
func (e *elementError) Unwrap() error { return e.Err }

type chatMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

// text returns a message's text (see openaiwire.ContentText).
func (m chatMessage) text() (string, error) { return openaiwire.ContentText(m.Content) }

type chatUsage = openaiwire.Usage

type chatDelta struct {
	Role    string  `json:"role,omitempty"`
	Content *string `json:"content,omitempty"`
}

type chunkChoice struct {
	Index        int       `json:"index"`
	Delta        chatDelta `json:"delta"`
	FinishReason *string   `json:"finish_reason"`
	Logprobs     any       `json:"logprobs"`
}

// chatChunk is one chat.completion.chunk. DeepResearch carries a run event
// (progress) in a member OpenAI clients ignore.
type chatChunk struct {
	ID           string          `json:"id"`
	Object       string          `json:"object"`
	Created      int64           `json:"created"`
	Model        string          `json:"model"`
	Choices      []chunkChoice   `json:"choices"`
	Usage        *chatUsage      `json:"usage,omitempty"`
	DeepResearch json.RawMessage `json:"deepresearch_event,omitempty"`
}

// chatResult is the deepresearch member of a completion: the run and the
// sources its report cites.
type chatResult struct {
	RunID      string             `json:"run_id"`
	Status     runstore.Status    `json:"status"`
	References []render.Reference `json:"references"`
}

func (s *Server) postChat(w http.ResponseWriter, r *http.Request) {
	var cr chatRequest
	if err := s.decodeJSON(w, r, &cr, false); err != nil {
		s.fail(w, err)
		return
	}
	if cr.Model != "" && cr.Model != ModelID {
		s.fail(w, &requestError{http.StatusNotFound, typeInvalid, fmt.Sprintf("the model %q does not exist; this server has %q", cr.Model, ModelID)})
		return
	}
	req, err := chatRequestOf(cr.Messages)
	if err != nil {
		s.fail(w, err)
		return
	}
	// A question after an answer that was a run's report follows that
	// run up (chatFollowUp); any other is a run of its own.
	id, followUp := s.chatFollowUp(r, cr.Messages)
	// A question that needs clarifying is answered with the questions;
	// the next user message answers them (chatRequestOf reads it back).
	if len(req.Answers) == 0 && !followUp {
		qs, err := s.runs.Clarify(r.Context(), req)
		if err != nil {
			s.fail(w, err)
			return
		}
		if len(qs) > 0 {
			s.chatReply(w, cr.Stream, clarifyingReply(qs))
			return
		}
	}
	// Asked above, or answered: a chat run does not wait, for answers or
	// for a plan review its client has no way to post.
	req.Clarify, req.Review = deepresearch.ClarifyNever, deepresearch.ReviewNever
	if followUp {
		id, err = s.runs.Ask(r.Context(), id, req.Question)
	} else {
		id, err = s.start(r.Context(), req)
	}
	if err != nil {
		s.fail(w, err)
		return
	}
	cid, created := "chatcmpl-"+id, s.cfg.Clock.Now().Unix()
	if !cr.Stream {
		if err := s.follow(r, s.storeEvents(id, 0), func(runstore.Event) error { return nil }, noop, noop); err != nil {
			if r.Context().Err() != nil {
				// The client went away. Without a stream it was never
				// told the run's ID, so none can come back for the
				// answer: the run ends with it, freeing its slot.
				s.runs.Cancel(r.Context(), id, errors.New("the chat client went away before its answer")) //nolint:errcheck // r's context is done: it waits for nothing
			}
			return
		}
		content, res, u, err := s.chatAnswer(r, id, "")
		if err != nil {
			s.fail(w, err)
			return
		}
		stop := "stop"
		writeJSON(w, http.StatusOK, map[string]any{
			"id": cid, "object": "chat.completion", "created": created, "model": ModelID,
			"choices": []map[string]any{{
				"index": 0, "message": map[string]any{"role": "assistant", "content": content},
				"finish_reason": stop, "logprobs": nil,
			}},
			"usage":        u,
			"deepresearch": res,
		})
		return
	}

	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	h.Set("X-Deepresearch-Run", id)
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	send := func(c chatChunk) error {
		c.ID, c.Object, c.Created, c.Model = cid, "chat.completion.chunk", created, ModelID
		if c.Choices == nil {
			c.Choices = []chunkChoice{{}}
		}
		b, err := json.Marshal(c)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "data: %s\n\n", b)
		return err
	}
	if send(chatChunk{Choices: []chunkChoice{{Delta: chatDelta{Role: "assistant", Content: ptr("")}}}}) != nil {
		return
	}
	rc.Flush()
	var streamed strings.Builder
	err = s.follow(r, s.storeEvents(id, 0), func(e runstore.Event) error {
		switch events.Type(e.Type) {
		case events.ReportDelta:
			var ev events.Event
			if err := json.Unmarshal(e.JSON, &ev); err != nil {
				return err
			}
			d, _ := ev.Data.(events.ReportDeltaData)
			streamed.WriteString(d.Text)
			return send(chatChunk{Choices: []chunkChoice{{Delta: chatDelta{Content: ptr(d.Text)}}}})
		case events.AgentDelta:
			return nil // the agents' drafts: too many, and not the answer
		}
		return send(chatChunk{DeepResearch: e.JSON})
	}, func() error { _, err := fmt.Fprint(w, ": heartbeat\n\n"); return err }, rc.Flush)
	if err != nil {
		return
	}
	rest, _, u, err := s.chatAnswer(r, id, streamed.String())
	if err != nil {
		var re *requestError
		msg := err.Error()
		if errors.As(err, &re) {
			msg = re.msg
		}
		b, _ := json.Marshal(map[string]apiError{"error": {Message: msg, Type: typeServer}})
		fmt.Fprintf(w, "data: %s\n\ndata: [DONE]\n\n", b)
		rc.Flush()
		return
	}
	if rest != "" {
		send(chatChunk{Choices: []chunkChoice{{Delta: chatDelta{Content: ptr(rest)}}}})
	}
	send(chatChunk{Choices: []chunkChoice{{FinishReason: ptr("stop")}}, Usage: &u})
	fmt.Fprint(w, "data: [DONE]\n\n")
	rc.Flush()
}

// chatAnswer returns the ended run's answer: its markdown report with the
// reference list (or the agents' findings when the writer failed), less
// the prefix already streamed.
func (s *Server) chatAnswer(r *http.Request, id, streamed string) (string, chatResult, chatUsage, error) {
	run, err := s.runs.Get(r.Context(), id)
	if err != nil {
		return "", chatResult{}, chatUsage{}, err
	}
	u := chatUsage{PromptTokens: run.Usage.PromptTokens, CompletionTokens: run.Usage.CompletionTokens,
		TotalTokens: run.Usage.PromptTokens + run.Usage.CompletionTokens}
	res := chatResult{RunID: id, Status: run.Status, References: []render.Reference{}}
	rep, _ := s.runs.Report(r.Context(), id)
	if rep == nil {
		msg := fmt.Sprintf("the research run %s %s without a report", id, run.Status)
		if run.Error != "" {
			msg += ": " + run.Error
		}
		return "", res, u, &requestError{http.StatusInternalServerError, typeServer, msg}
	}
	md, err := rep.Render(render.Markdown)
	if err != nil {
		return "", res, u, err
	}
	res.References = append(res.References, rep.References...)
	content := string(md)
	if rest, ok := strings.CutPrefix(content, streamed); ok {
		content = rest
	} else if streamed != "" {
		content = "\n\n" + content // the streamed text was not the report's start: give the whole report
	}
	return content, res, u, nil
}

// chatFollowUp finds the run a conversation's last user message follows
// up: when the message before it is the assistant's, and is the report of
// a stored run of the user message before that (Runs.Answered: the answer
// this endpoint gave, or a follow-up's), it returns that run's ID.
func (s *Server) chatFollowUp(r *http.Request, msgs []chatMessage) (string, bool) {
	last := len(msgs) - 1
	for last >= 0 && msgs[last].Role != "user" {
		last--
	}
	if last < 2 || msgs[last-1].Role != "assistant" {
		return "", false
	}
	answer, err := msgs[last-1].text()
	if err != nil || strings.HasPrefix(answer, clarifyLead) {
		return "", false
	}
	for i := last - 2; i >= 0; i-- {
		if msgs[i].Role != "user" {
			continue
		}
		asked, err := msgs[i].text()
		if err != nil {
			return "", false
		}
		run, err := s.runs.Answered(r.Context(), asked, answer)
		if err != nil {
			return "", false
		}
		return run.ID, true
	}
	return "", false
}

// clarifyLead starts a reply that asks clarifying questions; the next
// turn's history carries it, and chatRequestOf knows it by it.
const clarifyLead = "Before I research this, a few questions (answer in one message; anything left unanswered, I will assume as stated):"

func clarifyingReply(qs []events.Clarification) string {
	var b strings.Builder
	b.WriteString(clarifyLead + "\n")
	for i, q := range qs {
		fmt.Fprintf(&b, "\n%d. %s", i+1, q.Question)
		if q.Assumption != "" {
			fmt.Fprintf(&b, " (otherwise: %s)", q.Assumption)
		}
	}
	return b.String()
}

// chatRequestOf reads the request of a conversation: the last user
// message is the question, unless the assistant's message before it asked
// clarifying questions: then the user message before those is the
// question, and the last one answers them.
func chatRequestOf(msgs []chatMessage) (deepresearch.Request, error) {
	last := -1
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			last = i
			break
		}
	}
	text := func(i int) (string, error) {
		t, err := msgs[i].text()
		if err != nil {
			return "", badRequest("messages[%d]: %v", i, err)
		}
		return t, nil
	}
	if last < 0 {
		return deepresearch.Request{}, badRequest("\"messages\" has no user message with text: the last user message is the question")
	}
	answer, err := text(last)
	if err != nil {
		return deepresearch.Request{}, err
	}
	if strings.TrimSpace(answer) == "" {
		return deepresearch.Request{}, badRequest("\"messages\" has no user message with text: the last user message is the question")
	}
	if last >= 2 && msgs[last-1].Role == "assistant" {
		asked, err := text(last - 1)
		if err == nil && strings.HasPrefix(asked, clarifyLead) {
			for i := last - 2; i >= 0; i-- {
				if msgs[i].Role != "user" {
					continue
				}
				q, err := text(i)
				if err != nil {
					return deepresearch.Request{}, err
				}
				return deepresearch.Request{Question: q, Answers: chatAnswers(strings.TrimPrefix(asked, clarifyLead), answer)}, nil
			}
		}
	}
	return deepresearch.Request{Question: answer}, nil
}

// askedLine is a numbered question of a clarifying reply, its assumption
// after it ("1. Which ocean? (otherwise: the Atlantic)").
var askedLine = regexp.MustCompile(`^\s*(\d+)[.)]\s+(.+?)(?:\s+\(otherwise: .*\))?\s*$`)

// answerLine is a numbered line of a person's reply ("1. fibre", "2) the
// 2010s", "#1: fibre").
var answerLine = regexp.MustCompile(`^\s*#?(\d+)\s*[.):-]\s*(.*)$`)

// chatAnswers maps the one message that answers a clarifying reply's
// questions (asked, after clarifyLead) to each question: by number when
// the reply numbers its answers ("1. …", "2) …"), else line by line when
// it has one non-empty line a question, else the whole reply answers
// every question at once (one answer, to the questions together). A
// question left without an answer keeps its assumption.
func chatAnswers(asked, reply string) []deepresearch.Answer {
	var qs []string
	for _, line := range strings.Split(asked, "\n") {
		if m := askedLine.FindStringSubmatch(line); m != nil {
			qs = append(qs, strings.Join(strings.Fields(m[2]), " "))
		}
	}
	reply = strings.TrimSpace(reply)
	together := func() []deepresearch.Answer {
		q := strings.Join(strings.Fields(asked), " ")
		if len(qs) > 0 {
			q = strings.Join(qs, " ")
		}
		return []deepresearch.Answer{{Question: q, Answer: reply}}
	}
	if len(qs) == 0 || len(qs) > deepresearch.MaxClarifyingQuestions {
		return together()
	}
	var lines []string
	for _, line := range strings.Split(reply, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			lines = append(lines, line)
		}
	}
	byNumber := map[int]string{}
	for _, line := range lines {
		m := answerLine.FindStringSubmatch(line)
		if m == nil {
			byNumber = nil
			break
		}
		n, _ := strconv.Atoi(m[1])
		if n < 1 || n > len(qs) {
			return together() // numbered otherwise than the questions
		}
		byNumber[n] = strings.TrimSpace(byNumber[n] + " " + m[2])
	}
	var out []deepresearch.Answer
	switch {
	case len(byNumber) > 0:
		for i, q := range qs {
			if a := byNumber[i+1]; a != "" {
				out = append(out, deepresearch.Answer{Question: q, Answer: a})
			}
		}
	case len(qs) > 1 && len(lines) == len(qs):
		for i, q := range qs {
			out = append(out, deepresearch.Answer{Question: q, Answer: lines[i]})
		}
	default:
		return together()
	}
	return out
}

// chatReply answers a chat completion with content at once, streamed or
// not, without a run.
func (s *Server) chatReply(w http.ResponseWriter, stream bool, content string) {
	cid, created := "chatcmpl-"+deepresearch.NewRunID(), s.cfg.Clock.Now().Unix()
	if !stream {
		writeJSON(w, http.StatusOK, map[string]any{
			"id": cid, "object": "chat.completion", "created": created, "model": ModelID,
			"choices": []map[string]any{{
				"index": 0, "message": map[string]any{"role": "assistant", "content": content},
				"finish_reason": "stop", "logprobs": nil,
			}},
			"usage": chatUsage{},
		})
		return
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	for _, c := range []chatChunk{
		{Choices: []chunkChoice{{Delta: chatDelta{Role: "assistant", Content: ptr(content)}}}},
		{Choices: []chunkChoice{{FinishReason: ptr("stop")}}, Usage: &chatUsage{}},
	} {
		c.ID, c.Object, c.Created, c.Model = cid, "chat.completion.chunk", created, ModelID
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", b)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

func noop() error { return nil }

func ptr[T any](v T) *T { return &v }
