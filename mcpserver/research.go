package mcpserver

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/runstore"
)

// clarifier asks a request's clarifying questions without running it.
type clarifier interface {
	Clarify(ctx context.Context, req deepresearch.Request) ([]events.Clarification, error)
}

// runResearch runs the request through the library and returns the
// report rendered as markdown. When the run failed after its research,
// the result is a tool error that carries what renders of the run (the
// library's guarantee: the agents' findings when the writer failed).
//
// Clarifying questions are asked first: by elicitation when the client
// supports it (a multi-round-trip input request: the call comes back with
// the answers), else returned as the result (the caller calls again with
// "answers"). With Options.Runs, the run is one of the Runs' (see
// startRun); a call that comes back with a review of its plan goes on
// with that run (reviewed).
func (t *tools) runResearch(ctx context.Context, req *mcp.CallToolRequest, in deepresearch.Request) (*mcp.CallToolResult, Report, error) {
	if in.Estimate {
		return t.estimate(ctx, in)
	}
	if t.runs != nil {
		if st, ok := t.reviewState(req); ok {
			return t.reviewed(ctx, req, st, in.Question)
		}
	}
	c, ok := t.research.(clarifier)
	if t.runs != nil {
		c, ok = t.runs, true
	}
	if ok && len(in.Answers) == 0 {
		if res, asked := elicited(req); asked != nil {
			in.Answers = answered(asked, res)
			in.Clarify = deepresearch.ClarifyNever
		} else {
			qs, err := c.Clarify(ctx, in)
			if err != nil {
				return nil, Report{}, err
			}
			if len(qs) > 0 && req != nil && req.Session != nil && elicits(req.Session) {
				state, _ := json.Marshal(qs)
				return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"clarify": elicitParams(qs)}, RequestState: string(state)}, Report{}, nil
			}
			if len(qs) > 0 {
				var b strings.Builder
				b.WriteString("Before researching this, please answer (call research again with the same question and \"answers\": [{\"question\", \"answer\"}]):\n")
				for i, q := range qs {
					fmt.Fprintf(&b, "\n%d. %s", i+1, q.Question)
					if q.Assumption != "" {
						fmt.Fprintf(&b, " (otherwise: %s)", q.Assumption)
					}
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}},
					Report{References: []Reference{}, Questions: qs}, nil
			}
			in.Clarify = deepresearch.ClarifyNever // asked above: none
		}
	}
	if t.runs != nil {
		return t.startRun(ctx, req, in)
	}
	run, err := t.research.Start(ctx, in, deepresearch.RunOptions{})
	if err != nil {
		return researchResult(nil, "", err)
	}
	rep, err := run.Wait()
	return researchResult(rep, "", err)
}

// estimator is a research backend that estimates a run
// (deepresearch.Researcher.Estimate, deepresearch.Runs.Estimate).
type estimator interface {
	Estimate(ctx context.Context, req deepresearch.Request) (*deepresearch.Estimate, error)
}

// estimate answers a call with "estimate": true: what the run would
// spend, as a markdown table and as Report.Estimate; nothing is
// researched.
func (t *tools) estimate(ctx context.Context, in deepresearch.Request) (*mcp.CallToolResult, Report, error) {
	e, ok := t.research.(estimator)
	if t.runs != nil {
		e, ok = t.runs, true
	}
	if !ok {
		return nil, Report{}, deepresearch.ErrNoEstimate
	}
	est, err := e.Estimate(ctx, in)
	if err != nil {
		return nil, Report{}, err
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: est.Markdown()}}},
		Report{References: []Reference{}, Estimate: est}, nil
}

// startRun starts in as a run of Options.Runs — refused beyond its
// MaxRuns, under its time limit — and follows it to its end. Its
// clarifying questions were asked before (runResearch). Its plan is put to
// review only when the client can be asked (canAsk): the call then comes
// back with the form (reviewed), and meanwhile the run waits as the Runs
// says (RunsOptions.ReviewTimeout).
func (t *tools) startRun(ctx context.Context, req *mcp.CallToolRequest, in deepresearch.Request) (*mcp.CallToolResult, Report, error) {
	in.Clarify = deepresearch.ClarifyNever
	if !canAsk(req) {
		in.Review = deepresearch.ReviewNever // nobody could review it
	}
	id, err := t.runs.Start(ctx, in)
	if err != nil {
		return nil, Report{}, err
	}
	return t.follow(ctx, req, in.Question, id, 0)
}

// follow reads run id's events after after until the run ends, and
// returns its report; or, when the run puts a plan to review, returns the
// review form (of the plan for question) for the client to answer in the
// call's next round (when
// this call cannot ask, the plan is accepted as proposed, as a run with
// nobody to review it accepts it). A call the client cancels cancels its
// run.
func (t *tools) follow(ctx context.Context, req *mcp.CallToolRequest, question, id string, after uint64) (*mcp.CallToolResult, Report, error) {
	for e, err := range t.runs.Follow(ctx, id, after) {
		if err != nil {
			if ctx.Err() != nil {
				// The client gave up on the call: nobody waits for the
				// run, which ends with it, freeing its slot.
				t.runs.Cancel(ctx, id, errors.New("the MCP client canceled the research call")) //nolint:errcheck // ctx is done: it waits for nothing
				return nil, Report{}, context.Cause(ctx)
			}
			return nil, Report{}, err
		}
		if events.Type(e.Type) != events.PlanReviewRequested {
			continue
		}
		var ev events.Event
		if err := json.Unmarshal(e.JSON, &ev); err != nil {
			return nil, Report{}, fmt.Errorf("research: run %s, event %d: %w", id, e.Seq, err)
		}
		plan, _ := ev.Data.(events.PlanReviewData)
		if canAsk(req) {
			state, err := json.Marshal(t.sign(reviewState{Run: id, After: e.Seq}))
			if err != nil {
				return nil, Report{}, err
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"review": reviewParams(question, plan)}, RequestState: string(state)}, Report{}, nil
		}
		if err := t.runs.Review(ctx, id, deepresearch.PlanReview{}); err != nil && !late(err) {
			return nil, Report{}, err
		}
	}
	return t.ended(ctx, id)
}

// reviewed gives the run of a call's review state the client's review
// (an accepted form that says reject rejects the plan; anything else
// accepts it) and follows the run on. A review that comes too late — the
// review time ran out, or the run ended — changes nothing: the run's end
// says what happened.
func (t *tools) reviewed(ctx context.Context, req *mcp.CallToolRequest, st reviewState, question string) (*mcp.CallToolResult, Report, error) {
	res, _ := req.Params.InputResponses["review"].(*mcp.ElicitResult)
	rv := deepresearch.PlanReview{Reject: res != nil && res.Action == "accept" && res.Content["action"] == "reject"}
	if err := t.runs.Review(ctx, st.Run, rv); err != nil && !late(err) {
		return nil, Report{}, err
	}
	return t.follow(ctx, req, question, st.Run, st.After)
}

// late reports whether err is a review the run no longer waits for.
func late(err error) bool {
	return errors.Is(err, deepresearch.ErrNotWaiting) || errors.Is(err, deepresearch.ErrAnswered) || errors.Is(err, deepresearch.ErrRunStopped)
}

// ended returns the result of run id, which has ended: its stored report
// and, when it did not finish, why.
func (t *tools) ended(ctx context.Context, id string) (*mcp.CallToolResult, Report, error) {
	run, err := t.runs.Get(ctx, id)
	if err != nil {
		return nil, Report{}, err
	}
	var runErr error
	if run.Status != runstore.Finished {
		runErr = errors.New(run.Error)
		if run.Error == "" {
			runErr = fmt.Errorf("the run ended %s", run.Status)
		}
	}
	rep, err := t.runs.Report(ctx, id)
	switch {
	case errors.Is(err, runstore.ErrNotFound) && runErr == nil:
		return nil, Report{}, fmt.Errorf("research: run %s finished without a report", id)
	case err != nil && !errors.Is(err, runstore.ErrNotFound):
		return nil, Report{}, err
	}
	return researchResult(rep, id, runErr)
}

// askIn is the ask tool's input.
type askIn struct {
	RunID    string `json:"run_id" jsonschema:"the finished run whose report the question follows up (research's run_id)"`
	Question string `json:"question" jsonschema:"the follow-up question"`
}

// ask asks a follow-up question of a stored run (Runs.Ask) and follows
// the follow-up to its end, as research follows its run: a call the
// client cancels cancels it.
func (t *tools) ask(ctx context.Context, req *mcp.CallToolRequest, in askIn) (*mcp.CallToolResult, Report, error) {
	id, err := t.runs.Ask(ctx, in.RunID, in.Question)
	if err != nil {
		return nil, Report{}, err
	}
	return t.follow(ctx, req, in.Question, id, 0)
}

// researchResult is the research tool's result of a run that returned rep
// and err; id is the run's in the store that keeps it ("" for none).
func researchResult(rep *deepresearch.Report, id string, err error) (*mcp.CallToolResult, Report, error) {
	var md []byte
	var refs []render.Reference
	if rep != nil {
		var rerr error
		if md, rerr = rep.Render(render.Markdown); rerr == nil {
			refs, rerr = rep.Cited()
		}
		if rerr != nil {
			md = nil
			if err == nil {
				err = rerr
			}
		}
	}
	if md == nil {
		if errors.Is(err, context.Canceled) {
			return nil, Report{}, err
		}
		return nil, Report{}, fmt.Errorf("research: %w", err)
	}
	out := Report{RunID: id, Markdown: string(md), References: []Reference{}, Provenance: render.ProvenanceOf(refs), Complete: rep.Complete()}
	for _, ref := range refs {
		r := Reference{Number: ref.Number, Title: ref.Title, URL: ref.URL, Label: ref.Label()}
		locs := ref.Locations
		if len(locs) == 0 && !ref.Location.IsZero() {
			locs = append(locs[:0:0], ref.Location)
		}
		for _, l := range locs {
			r.Locations = append(r.Locations, l.String())
		}
		out.References = append(out.References, r)
	}
	if err == nil {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out.Markdown}}}, out, nil
	}
	out.Error = err.Error()
	what := "the report was written, but not verified"
	if !out.Complete {
		what = "the agents' merged findings follow instead of a report"
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{
		&mcp.TextContent{Text: "research failed: " + out.Error + "; " + what + ".\n\n" + out.Markdown},
	}}, out, nil
}

// reviewState is the request state of a call that asked for a plan's
// review: the run and the plan.review_requested event, signed with the
// tools' key, so that a client names no run but those it was asked
// about.
type reviewState struct {
	Run   string `json:"run"`
	After uint64 `json:"after"`
	MAC   []byte `json:"mac"`
}

// mac is the signature of the state's run and event.
func (t *tools) mac(st reviewState) []byte {
	h := hmac.New(sha256.New, t.key)
	fmt.Fprintf(h, "review\n%q\n%d", st.Run, st.After)
	return h.Sum(nil)
}

func (t *tools) sign(st reviewState) reviewState {
	st.MAC = t.mac(st)
	return st
}

// reviewState returns the review state a retried call carries, when it
// carries one this server signed.
func (t *tools) reviewState(req *mcp.CallToolRequest) (reviewState, bool) {
	var st reviewState
	if req == nil || req.Params == nil || !strings.HasPrefix(req.Params.RequestState, "{") ||
		json.Unmarshal([]byte(req.Params.RequestState), &st) != nil || st.Run == "" {
		return st, false
	}
	return st, hmac.Equal(st.MAC, t.mac(st))
}

// multiRoundVersion is the first protocol version whose clients retry a
// call as often as it asks for input (MCP's multi-round-trip requests);
// the SDK retries a call of an older client's once, on its behalf.
const multiRoundVersion = "2026-07-28"

// canAsk reports whether the call may ask its client for a plan's review:
// the client takes elicitation, and will retry the call with its answer.
func canAsk(req *mcp.CallToolRequest) bool {
	if req == nil || req.Session == nil || !elicits(req.Session) {
		return false
	}
	p := req.Session.InitializeParams()
	return p.ProtocolVersion >= multiRoundVersion || req.Params == nil || req.Params.RequestState == ""
}

// reviewParams asks for the review of the plan proposed for question in
// one form: an action, accept or reject.
func reviewParams(question string, d events.PlanReviewData) *mcp.ElicitParams {
	var b strings.Builder
	fmt.Fprintf(&b, "The research plan for %q:\n", text(strings.TrimSpace(question), 500))
	for i, task := range d.Tasks {
		fmt.Fprintf(&b, "\n%d. %s: %s", i+1, task.Title, task.Question)
	}
	b.WriteString("\n\nAccept it to research it, or reject it to end the research.")
	return &mcp.ElicitParams{
		Message: b.String(),
		RequestedSchema: map[string]any{"type": "object", "required": []string{"action"}, "properties": map[string]any{
			"action": map[string]any{"type": "string", "title": "Review", "enum": []string{"accept", "reject"},
				"description": "accept: research the plan as proposed; reject: end the research"},
		}},
	}
}

// elicits reports whether the client of ss takes elicitation requests.
func elicits(ss *mcp.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil
}

// elicitParams asks the clarifying questions in one form, a string
// field a question ("q1", "q2", …).
func elicitParams(qs []events.Clarification) *mcp.ElicitParams {
	props := map[string]any{}
	for i, q := range qs {
		desc := q.Question
		if q.Assumption != "" {
			desc += " (otherwise: " + q.Assumption + ")"
		}
		props[fmt.Sprintf("q%d", i+1)] = map[string]any{"type": "string", "title": q.Question, "description": desc}
	}
	return &mcp.ElicitParams{
		Message:         "Before the research starts, a few questions about the question (leave one empty to keep its assumption).",
		RequestedSchema: map[string]any{"type": "object", "properties": props},
	}
}

// elicited returns the client's answer to the clarifying form of a
// retried call, and the questions it answers (from the request state);
// nil questions when the call answers none.
func elicited(req *mcp.CallToolRequest) (*mcp.ElicitResult, []events.Clarification) {
	if req == nil || req.Params == nil || req.Params.RequestState == "" {
		return nil, nil
	}
	res, _ := req.Params.InputResponses["clarify"].(*mcp.ElicitResult)
	var qs []events.Clarification
	if json.Unmarshal([]byte(req.Params.RequestState), &qs) != nil || len(qs) == 0 || len(qs) > deepresearch.MaxClarifyingQuestions {
		return nil, nil
	}
	return res, qs
}

// answered reads the form's answers: none when it was declined or
// cancelled (the run goes on the questions' assumptions).
func answered(qs []events.Clarification, res *mcp.ElicitResult) []deepresearch.Answer {
	var out []deepresearch.Answer
	if res == nil || res.Action != "accept" {
		return nil
	}
	for i, q := range qs {
		if v, ok := res.Content[fmt.Sprintf("q%d", i+1)].(string); ok && strings.TrimSpace(v) != "" {
			out = append(out, deepresearch.Answer{Question: q.Question, Answer: v})
		}
	}
	return out
}
