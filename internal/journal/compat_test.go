package journal_test

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/journal"
	"github.com/deepresearch/deepresearch/internal/provider"
)

// writeFixtures writes the journals of testdata/v<Version>/ that do not
// exist yet. Journals of a version, once written, are never rewritten:
// they are what later programs must still read.
var writeFixtures = flag.Bool("write-fixtures", false, "write missing journal fixtures of the current format version")

// trafficCase is one model call answered by a provider's recorded
// traffic (internal/provider/testdata): the journal it makes is a
// checkpoint-compatibility fixture.
type trafficCase struct {
	name     string
	provider string
	file     string // under internal/provider/testdata
	status   int
	stream   bool
	tools    bool
}

var traffic = []trafficCase{
	{"openai_text_stream", provider.OpenAI, "openai_text.sse", 200, true, false},
	{"openai_tools_interleaved", provider.OpenAI, "openai_tools_interleaved.sse", 200, true, true},
	{"openai_text_json", provider.OpenAI, "openai_text.json", 200, false, false},
	{"openai_toolcall_json", provider.OpenAI, "openai_text_toolcall.json", 200, false, true},
	{"openai_error_400", provider.OpenAI, "openai_400.json", 400, false, false},
	{"anthropic_text_stream", provider.Anthropic, "anthropic_text.sse", 200, true, false},
	{"anthropic_tools", provider.Anthropic, "anthropic_tools.json", 200, false, true},
	{"gemini_stream", provider.GoogleAI, "gemini_stream.sse", 200, true, false},
	{"gemini_functioncall", provider.GoogleAI, "gemini_functioncall.json", 200, false, true},
}

// serveFixture answers every request with a provider fixture.
func serveFixture(t *testing.T, c trafficCase) *httptest.Server {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "provider", "testdata", c.file))
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ct := "application/json"
		if filepath.Ext(c.file) == ".sse" {
			ct = "text/event-stream"
		}
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(c.status)
		w.Write(data)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func providerModel(t *testing.T, c trafficCase, url string) llms.Model {
	t.Helper()
	cfg := provider.Config{Provider: c.provider, Tools: provider.ToolsNative}
	env := map[string]string{}
	switch c.provider {
	case provider.OpenAI:
		cfg.Name, env["OPENAI_API_KEY"], env["OPENAI_BASE_URL"] = "gpt-4.1-mini", "sk-test", url+"/v1"
	case provider.Anthropic:
		env["ANTHROPIC_API_KEY"], env["ANTHROPIC_BASE_URL"] = "sk-ant-test", url+"/v1"
	case provider.GoogleAI:
		cfg.BaseURL, env["GEMINI_API_KEY"] = url, "gm-test"
	}
	m, err := provider.New(context.Background(), cfg, func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// request is the call every traffic case makes (a research turn, with
// tools when the case has them).
func (c trafficCase) call(ctx context.Context, m llms.Model) ([]string, *llms.ContentResponse, error) {
	var opts []llms.CallOption
	if c.tools {
		opts = append(opts, llms.WithTools([]llms.Tool{searchTool}))
	}
	return call(journal.WithScope(ctx, "researcher/t1"), m, researchTurn(), c.stream, opts...)
}

func fixturePath(name string) string {
	return filepath.Join("testdata", fmt.Sprintf("v%d", journal.Version), name+".jsonl")
}

// TestRecordFixtures records each traffic case, and writes the journal
// as a fixture under -write-fixtures where there is none.
func TestRecordFixtures(t *testing.T) {
	for _, c := range traffic {
		t.Run(c.name, func(t *testing.T) {
			srv := serveFixture(t, c)
			log := &journal.MemLog{}
			j, _ := journal.New("fixture", nil, journal.Options{Log: log, Clock: clock()})
			ctx := journal.NewContext(context.Background(), j)
			if err := j.WriteHeader(ctx, journal.Header{Program: "deepresearch journal fixtures"}); err != nil {
				t.Fatal(err)
			}
			_, _, err := c.call(ctx, journal.Model{Model: providerModel(t, c, srv.URL)})
			if (err != nil) != (c.status != 200) {
				t.Fatalf("call: %v", err)
			}
			raw, _ := log.Entries(ctx, "fixture")
			if len(raw) != 2 {
				t.Fatalf("%d entries, want the header and the call", len(raw))
			}
			path := fixturePath(c.name)
			if _, err := os.Stat(path); err == nil || !*writeFixtures {
				return
			}
			os.MkdirAll(filepath.Dir(path), 0o755)
			if err := os.WriteFile(path, append(bytes.Join(raw, []byte("\n")), '\n'), 0o644); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestReplayFixtures is the checkpoint-compatibility test: every journal
// kept in testdata/v*/ — written by this or an earlier format version —
// is either replayed, answering its call as the provider did, or refused
// by name. A change to the format or the keys that breaks a kept journal
// fails here.
func TestReplayFixtures(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("testdata", "v*"))
	if len(dirs) == 0 {
		t.Fatal("no journal fixtures in testdata/v*/")
	}
	byName := map[string]trafficCase{}
	for _, c := range traffic {
		byName[c.name] = c
	}
	replayed := 0
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		for _, f := range files {
			name := filepath.Base(f[:len(f)-len(".jsonl")])
			t.Run(filepath.Base(dir)+"/"+name, func(t *testing.T) {
				data, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				raw := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
				j, err := journal.New("fixture", raw, journal.Options{Offline: true})
				if errors.Is(err, journal.ErrVersion) {
					var verr *journal.VersionError
					if !errors.As(err, &verr) || verr.Version == journal.Version {
						t.Fatalf("refused without naming the version: %v", err)
					}
					return // refused by name: an old format this program no longer reads
				}
				if err != nil {
					t.Fatal(err)
				}
				if j.Header() == nil {
					t.Error("the journal has no header")
				}
				c, ok := byName[name]
				if !ok {
					t.Fatalf("no traffic case %q replays this journal", name)
				}
				ctx := journal.NewContext(context.Background(), j)
				chunks, resp, err := c.call(ctx, journal.Model{})
				if errors.Is(err, journal.ErrNotJournaled) {
					t.Fatalf("the journal no longer answers its call (were the keys changed?): %v", err)
				}
				// The provider, live, on the same traffic.
				liveChunks, liveResp, liveErr := c.call(context.Background(), providerModel(t, c, serveFixture(t, c).URL))
				if (err == nil) != (liveErr == nil) || !reflect.DeepEqual(chunks, liveChunks) || !sameResponse(resp, liveResp) {
					t.Errorf("replayed %q %+v %v\nlive     %q %+v %v", chunks, choice(resp), err, liveChunks, choice(liveResp), liveErr)
				}
				replayed++
			})
		}
	}
	if replayed == 0 {
		t.Error("no fixture of the current version replayed")
	}
}

func choice(r *llms.ContentResponse) any {
	if r == nil || len(r.Choices) == 0 {
		return nil
	}
	return *r.Choices[0]
}

// TestRefuseFutureJournal: a journal from a newer program is refused by
// name before anything is replayed.
func TestRefuseFutureJournal(t *testing.T) {
	raw := [][]byte{
		[]byte(`{"v":1,"kind":"header","time":"2026-11-03T10:00:00Z","header":{"program":"deepresearch"}}`),
		[]byte(`{"v":3,"kind":"model","scope":"planner","key":"00","time":"2026-11-03T10:00:01Z","model":{"answer":"in a shape v2 cannot read"}}`),
	}
	_, err := journal.New("future", raw, journal.Options{Offline: true})
	if !errors.Is(err, journal.ErrVersion) || err.Error() != "journal: run future, entry 2: journal: format version 3 was written by a newer program; this one reads versions 1 to 2" {
		t.Errorf("err = %v", err)
	}
}
