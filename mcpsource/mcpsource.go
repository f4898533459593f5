package mcpsource

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/deepresearch/deepresearch/clock"
)

// ChannelPrefix starts the channel of an MCP server's results: "mcp:NAME".
const ChannelPrefix = "mcp:"

// Server says how to reach one MCP server and which of its tools to use.
// Exactly one of Command, URL and Transport is set.
type Server struct {
	// Command is the program and its arguments of a server spoken to over
	// stdio, as a child process. The program is found on the PATH of this
	// process (os/exec); the child's environment is Env alone.
	Command []string
	// Env is the child's whole environment (nil: an empty one).
	Env map[string]string
	// Dir is the child's working directory ("": this process's).
	Dir string
	// URL is the endpoint of a server spoken to over streamable HTTP.
	URL string
	// Transport connects to a server in any other way (an in-process
	// server over mcp.NewInMemoryTransports); for embedders and tests.
	Transport mcp.Transport
	// Tools maps the server's tools; its zero value detects them.
	Tools Mapping
	// Timeout bounds each call to this server (0: Options.Timeout).
	Timeout time.Duration
}

// Mapping names the tools a Source calls and their arguments. Empty
// fields are detected from the tools' input schemas (Detect).
type Mapping struct {
	// SearchTool finds documents for a query.
	SearchTool string
	// QueryArg is the search tool's argument that takes the query. Empty
	// with SearchTool set and SearchArgs given: the tool takes no query
	// (it lists), and Search ranks what it lists.
	QueryArg string
	// LimitArg is the search tool's argument that takes the most results
	// ("": none, or detected).
	LimitArg string
	// SearchArgs are fixed arguments of every search call, as text;
	// each is converted to the type the tool's schema gives it (number,
	// integer, boolean), so settings can hold them.
	SearchArgs map[string]string
	// ReadTool opens a document by its locator ("": detected; none found:
	// documents are resources read with resources/read, or what the
	// search returned).
	ReadTool string
	// URLArg is the read tool's argument that takes the locator.
	URLArg string
}

// Options tune a Source. Zero fields take the documented defaults.
type Options struct {
	// Timeout bounds each call to the server, connecting included, on
	// Clock. Default 60s.
	Timeout time.Duration
	// MaxText caps the text kept of one tool result or resource, in bytes;
	// the rest is cut at a rune and marked. Default 1 MiB.
	MaxText int
	// MaxListed caps the documents Search reads of a listing (a search
	// tool that takes no query, or returns locators without text).
	// Default 50.
	MaxListed int
	// Clock times Timeout. Nil means the real clock.
	Clock clock.Clock
	// Progress, when set, receives the server's progress notifications of
	// every call (Search and Fetch ask for them). It is called from the
	// session's goroutine and must not block.
	Progress func(Progress)
}

// Progress is one progress notification of a tool call.
type Progress struct {
	Server, Tool string
	// Progress and Total are the server's numbers (Total 0: unknown).
	Progress, Total float64
	// Message is the server's, cleaned and bounded.
	Message string
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = 60 * time.Second
	}
	if o.MaxText <= 0 {
		o.MaxText = 1 << 20
	}
	if o.MaxListed <= 0 {
		o.MaxListed = 50
	}
	o.Clock = clock.Or(o.Clock)
	return o
}

// Source is one MCP server as a search.Backend. It is safe for concurrent
// use; Close ends it.
type Source struct {
	name string
	srv  Server
	opts Options

	mu     sync.Mutex // guards what follows, and connecting
	sess   *mcp.ClientSession
	tools  tools
	stderr *tail
	cmd    *exec.Cmd // the child process of a stdio server, once started
	closed bool
	docs   map[string]cachedDoc // documents read, by locator
	known  map[string]bool      // locators searches returned

	calls atomic.Int64
	live  sync.Map // progress token → tool name
}

// maxCached caps the documents a Source keeps from its searches.
const maxCached = 512

// New returns the Source of the server named name (the NAME of
// "mcp:NAME"). It checks srv and connects nothing: the first Search or
// Fetch does.
func New(name string, srv Server, opts Options) (*Source, error) {
	if name == "" || strings.ContainsFunc(name, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return nil, fmt.Errorf("mcpsource: server name %q: %w", name, ErrConfig)
	}
	set := 0
	for _, ok := range []bool{len(srv.Command) > 0, srv.URL != "", srv.Transport != nil} {
		if ok {
			set++
		}
	}
	switch {
	case set != 1:
		return nil, fmt.Errorf("mcpsource: %s: give one of command, url: %w", name, ErrConfig)
	case len(srv.Command) > 0 && strings.TrimSpace(srv.Command[0]) == "":
		return nil, fmt.Errorf("mcpsource: %s: the command's program is empty: %w", name, ErrConfig)
	case srv.URL != "":
		u, err := url.Parse(srv.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("mcpsource: %s: url %q is not an http or https URL: %w", name, srv.URL, ErrConfig)
		}
	}
	if srv.Timeout > 0 {
		opts.Timeout = srv.Timeout
	}
	return &Source{name: name, srv: srv, opts: opts.withDefaults(), docs: map[string]cachedDoc{}, known: map[string]bool{}}, nil
}

// Name returns the server's name.
func (s *Source) Name() string { return s.name }

// Channel returns the channel of the server's results, "mcp:NAME".
func (s *Source) Channel() string { return ChannelPrefix + s.name }

// Tools connects when not connected and returns the tools the Source
// calls: the search and read tools and their arguments, as mapped.
func (s *Source) Tools(ctx context.Context) (Mapping, error) {
	t, err := s.session(ctx)
	if err != nil {
		return Mapping{}, err
	}
	return t.mapping, nil
}

// session returns the connected session's tools, connecting on first use.
func (s *Source) session(ctx context.Context) (tools, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return tools{}, fmt.Errorf("mcpsource: %s: %w", s.name, ErrClosed)
	}
	if s.sess != nil {
		return s.tools, nil
	}
	if err := context.Cause(ctx); err != nil {
		return tools{}, err
	}
	// The session outlives the call that opens it: it is bound to no
	// request's context, only bounded by the timeout while it connects.
	cctx, cancel := clock.WithTimeout(context.WithoutCancel(ctx), s.opts.Clock, s.opts.Timeout)
	defer cancel()
	stop := context.AfterFunc(ctx, cancel) // a caller that gives up stops the handshake
	defer stop()
	t, cmd, stderr := s.transport()
	client := mcp.NewClient(&mcp.Implementation{Name: "deepresearch", Version: "1"}, &mcp.ClientOptions{
		Capabilities:                &mcp.ClientCapabilities{},
		ProgressNotificationHandler: s.onProgress,
	})
	sess, err := client.Connect(cctx, t, nil)
	if err != nil {
		return tools{}, s.connectError(ctx, cctx, stderr, err)
	}
	list, err := listTools(cctx, sess)
	if err != nil {
		_ = sess.Close()
		return tools{}, s.connectError(ctx, cctx, stderr, fmt.Errorf("listing tools: %w", err))
	}
	init := sess.InitializeResult()
	resources := init != nil && init.Capabilities != nil && init.Capabilities.Resources != nil
	mapped, err := mapTools(list, s.srv.Tools, resources)
	if err != nil {
		_ = sess.Close()
		return tools{}, fmt.Errorf("mcpsource: %s: %w", s.name, err)
	}
	s.sess, s.tools, s.stderr, s.cmd = sess, mapped, stderr, cmd
	return mapped, nil
}

// listTools lists every tool of the server, page by page.
func listTools(ctx context.Context, sess *mcp.ClientSession) ([]*mcp.Tool, error) {
	var out []*mcp.Tool
	params := &mcp.ListToolsParams{}
	for range 100 { // a server that pages forever is cut off
		res, err := sess.ListTools(ctx, params)
		if err != nil {
			return nil, err
		}
		out = append(out, res.Tools...)
		if res.NextCursor == "" {
			return out, nil
		}
		params.Cursor = res.NextCursor
	}
	return out, nil
}

// transport builds the transport of s.srv, with the tail of a child's
// standard error.
func (s *Source) transport() (mcp.Transport, *exec.Cmd, *tail) {
	switch {
	case s.srv.Transport != nil:
		return s.srv.Transport, nil, nil
	case s.srv.URL != "":
		return &mcp.StreamableClientTransport{Endpoint: s.srv.URL, MaxRetries: -1}, nil, nil
	}
	cmd := exec.Command(s.srv.Command[0], s.srv.Command[1:]...)
	cmd.Env = []string{}
	for _, k := range slices.Sorted(maps.Keys(s.srv.Env)) {
		cmd.Env = append(cmd.Env, k+"="+s.srv.Env[k])
	}
	cmd.Dir = s.srv.Dir
	stderr := &tail{max: 2048}
	cmd.Stderr = stderr
	return &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, cmd, stderr
}

// connectError says why connecting failed: the caller's cancellation,
// the timeout, or the server's error with the tail of its standard error.
func (s *Source) connectError(ctx, cctx context.Context, stderr *tail, err error) error {
	if cause := context.Cause(ctx); cause != nil {
		return fmt.Errorf("mcpsource: %s: connecting: %w", s.name, cause)
	}
	if cctx.Err() != nil {
		return fmt.Errorf("mcpsource: %s: connecting: no answer within %s: %w", s.name, s.opts.Timeout, ErrTimeout)
	}
	where := "url " + s.srv.URL
	if len(s.srv.Command) > 0 {
		where = "command " + strings.Join(s.srv.Command, " ")
	}
	if t := stderr.String(); t != "" {
		return fmt.Errorf("mcpsource: %s: connecting (%s): %w; its standard error ends: %s", s.name, where, err, t)
	}
	return fmt.Errorf("mcpsource: %s: connecting (%s): %w", s.name, where, err)
}

// onProgress passes a progress notification of a call of s to the hook.
func (s *Source) onProgress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	if s.opts.Progress == nil || req == nil || req.Params == nil {
		return
	}
	tool, ok := s.live.Load(fmt.Sprint(req.Params.ProgressToken))
	if !ok {
		return
	}
	p := req.Params
	s.opts.Progress(Progress{Server: s.name, Tool: tool.(string), Progress: p.Progress, Total: p.Total,
		Message: cleanLine(p.Message, 200)})
}

// call calls tool with args under the timeout, asking for progress. A
// result marked isError becomes a *ToolError.
func (s *Source) call(ctx context.Context, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	sess, err := s.current()
	if err != nil {
		return nil, err
	}
	cctx, cancel := clock.WithTimeout(ctx, s.opts.Clock, s.opts.Timeout)
	defer cancel()
	token := fmt.Sprintf("deepresearch-%s-%d", s.name, s.calls.Add(1))
	s.live.Store(token, tool)
	defer s.live.Delete(token)
	params := &mcp.CallToolParams{Name: tool, Arguments: args}
	params.SetProgressToken(token)
	res, err := sess.CallTool(cctx, params)
	switch {
	case context.Cause(ctx) != nil:
		return nil, &ToolError{Server: s.name, Tool: tool, Err: context.Cause(ctx)}
	case cctx.Err() != nil:
		return nil, &ToolError{Server: s.name, Tool: tool, Err: fmt.Errorf("no answer within %s: %w", s.opts.Timeout, ErrTimeout)}
	case errors.Is(err, mcp.ErrConnectionClosed):
		// The server went away (a child that died): the next call
		// connects again.
		if t := s.drop(sess); t != "" {
			err = fmt.Errorf("%w; its standard error ends: %s", err, t)
		}
		return nil, &ToolError{Server: s.name, Tool: tool, Err: err}
	case err != nil:
		return nil, &ToolError{Server: s.name, Tool: tool, Err: err}
	case res.IsError:
		msg := cleanLine(resultText(res, 2000), 500)
		return nil, &ToolError{Server: s.name, Tool: tool, Message: cmp.Or(msg, "(no message)"), Err: ErrToolFailed}
	}
	return res, nil
}

// current returns the connected session: ErrClosed after Close, an
// error when the session has just ended (the next call connects again).
func (s *Source) current() (*mcp.ClientSession, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.closed:
		return nil, fmt.Errorf("mcpsource: %s: %w", s.name, ErrClosed)
	case s.sess == nil:
		return nil, fmt.Errorf("mcpsource: %s: the session ended; the next call connects again: %w", s.name, mcp.ErrConnectionClosed)
	}
	return s.sess, nil
}

// drop ends sess when it is still the Source's, so that the next call
// connects again, and returns the tail of the child's standard error.
func (s *Source) drop(sess *mcp.ClientSession) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sess != sess {
		return ""
	}
	_ = sess.Close() // reaps a child
	s.sess = nil
	return s.stderr.String()
}

// Close ends the session: a child process is asked to exit (its input
// closed), then terminated and killed if it does not, and reaped. Calls
// after Close fail with ErrClosed. Close is idempotent.
func (s *Source) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.sess == nil {
		return nil
	}
	err := s.sess.Close()
	s.sess = nil
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return nil // a server that exits non-zero on close has still ended
	}
	if err != nil {
		return fmt.Errorf("mcpsource: %s: closing: %w", s.name, err)
	}
	return nil
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = t.b[len(t.b)-t.max:]
	}
	return len(p), nil
}

// String is the tail as one clean line; "" for a nil tail.
func (t *tail) String() string {
	if t == nil {
		return ""
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	return cleanLine(string(t.b), t.max)
}
