package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/extractive"
	"github.com/deepresearch/deepresearch/internal/runpack"
)

// spy is an OpenAI-compatible model double that notes the system prompt
// of every chat completion it answers.
type spy struct {
	*httptest.Server
	mu      sync.Mutex
	prompts []string
}

func newSpy(t *testing.T) *spy {
	t.Helper()
	model := deepresearchtest.NewOpenAIServer(extractive.New(extractive.Options{}), deepresearchtest.OpenAIOptions{})
	t.Cleanup(model.Close)
	s := &spy{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/chat/completions" {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var req struct {
				Messages []struct {
					Role    string          `json:"role"`
					Content json.RawMessage `json:"content"`
				} `json:"messages"`
			}
			json.Unmarshal(body, &req)
			var system string
			if len(req.Messages) > 0 {
				json.Unmarshal(req.Messages[0].Content, &system)
			}
			s.mu.Lock()
			s.prompts = append(s.prompts, system)
			s.mu.Unlock()
		}
		model.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(s.Close)
	return s
}

func (s *spy) calls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.prompts...)
}

var runID = regexp.MustCompile(`"id": "([0-9a-f]+)"`)

// TestReplayStoredRuns records ten runs through the OpenAI client and
// replays each offline (the model gone) with --check: byte for byte the
// stored report. One is exported and replayed from the file with a fresh
// store, as on another machine; one replays with the writer live, which
// calls the model for the writer only.
func TestReplayStoredRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ten researches")
	}
	index := isolate(t)
	// The runs are recorded with a key: no pack of them may hold it.
	const key = "sk-replay-test-key-9f3c"
	t.Setenv("OPENAI_API_KEY", key)
	model := newSpy(t)
	store := filepath.Join(t.TempDir(), "runs.db")
	provider := []string{"--provider", "openai", "--model", "extractive", "--base-url", model.URL + "/v1", "--index", index, "--corpus", corpus}
	questions := []string{
		"How were transatlantic telegraph cables laid and repaired?",
		"How are undersea cables repaired at sea?",
		"What limits the capacity of a submarine cable?",
		"Which ships laid the first transatlantic cable?",
		"How are cable faults located?",
		"What is a cable repeater?",
		"How is a submarine cable protected near the shore?",
		"What does the glossary say about splicing?",
		"How do operators plan cable maintenance?",
		"What engineering problems did early cables have?",
	}
	reports := map[string]string{}
	for _, q := range questions {
		r := cli(t, "", append([]string{"run", "--store", store, "--progress", "never", q}, provider...)...)
		if r.code != 0 {
			t.Fatalf("run %q: %s", q, r.stderr)
		}
		reports[q] = r.stdout
	}
	r := cli(t, "", "runs", "--json", "--store", store)
	var ids []string
	for _, m := range runID.FindAllStringSubmatch(r.stdout, -1) {
		ids = append(ids, m[1])
	}
	if len(ids) != len(questions) {
		t.Fatalf("%d runs stored: %s", len(ids), r.stdout)
	}
	recorded := len(model.calls())
	model.Close() // offline from here

	for _, id := range ids {
		r := cli(t, "", "replay", "--store", store, "--check", id)
		show := cli(t, "", "show", "--store", store, id)
		if r.code != 0 || r.stdout != show.stdout || r.stdout == "" {
			t.Errorf("replay %s: exit %d, %s\nreplayed:\n%s\nstored:\n%s", id, r.code, r.stderr, r.stdout, show.stdout)
		}
		if !strings.Contains(r.stderr, "made live: 0") && !strings.Contains(r.stderr, "; 0 made live") {
			t.Errorf("replay %s: %s", id, r.stderr)
		}
	}

	// Exported, and replayed elsewhere: another home, no store of its own.
	pack := filepath.Join(t.TempDir(), "run.tar.zst")
	if r := cli(t, "", "export", "--store", store, "-o", pack, ids[0]); r.code != 0 {
		t.Fatalf("export: %s", r.stderr)
	}
	show := cli(t, "", "show", "--store", store, ids[0])
	isolate(t)
	r = cli(t, "", "replay", "--check", pack)
	if r.code != 0 || r.stdout != show.stdout {
		t.Errorf("replay of the exported run: exit %d, %s\n%s", r.code, r.stderr, r.stdout)
	}
	// What the pack holds, unpacked: its compressed bytes may hold any
	// three letters by chance.
	f, err := os.Open(pack)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	p, err := runpack.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range slices.Concat([][]byte{p.Manifest.Run, p.Report}, p.Journal, p.Events) {
		if bytes.Contains(b, []byte(key)) {
			t.Fatalf("the export holds the API key: %.200s", b)
		}
	}

	// The writer live, against a model again.
	live := newSpy(t)
	r = cli(t, "", "replay", "--store", store, "--live", "writer", "--provider", "openai", "--model", "extractive",
		"--base-url", live.URL+"/v1", "--index", index, ids[1])
	calls := live.calls()
	if r.code != 0 || len(calls) == 0 {
		t.Fatalf("replay --live writer: exit %d, %d calls: %s", r.code, len(calls), r.stderr)
	}
	for _, p := range calls {
		if !strings.HasPrefix(p, "You are the writer of a deep-research system.") {
			t.Errorf("replay --live writer called the model for another stage: %.60q", p)
		}
	}
	if recorded == 0 {
		t.Error("no call recorded")
	}
	wantBadInput(t, cli(t, "", "replay", "--store", store, "--live", "typist", ids[1]), "typist")
	wantBadInput(t, cli(t, "", "replay", "--store", store, "nope"), `no run "nope"`)
}

// TestReplayBadPack (issue 29): a pack whose journal cannot be replayed —
// a malformed entry, no header — is bad input (exit 2), and the error
// names the file and the entry, not an empty run.
func TestReplayBadPack(t *testing.T) {
	isolate(t)
	dir := t.TempDir()
	search := []byte(`{"v":1,"kind":"search","key":"k","time":"2026-11-03T10:00:01Z","search":{"query":"q","limit":5,"results":[]}}`)
	bad := filepath.Join(dir, "bad.tar.zst")
	writePack(t, bad, runpack.Pack{Manifest: runpack.Manifest{Run: json.RawMessage(`{"id":"0123456789abcdef"}`)},
		Journal: [][]byte{search, search, search, []byte(`{"v":1,"kind":`)}})
	r := cli(t, "", "replay", bad)
	if r.code != 2 || !strings.Contains(r.stderr, "bad.tar.zst") || !strings.Contains(r.stderr, "entry 4") || strings.Contains(r.stderr, "run ,") {
		t.Errorf("replay of a pack with a malformed entry: exit %d, %q", r.code, r.stderr)
	}
	empty := filepath.Join(dir, "empty.tar.zst")
	writePack(t, empty, runpack.Pack{Manifest: runpack.Manifest{Run: json.RawMessage(`{}`)}})
	wantBadInput(t, cli(t, "", "replay", empty), "empty.tar.zst", "no header")
}

func writePack(t *testing.T, path string, p runpack.Pack) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := runpack.Write(f, p); err != nil {
		t.Fatal(err)
	}
}

// TestLiveStage: --live takes the words it always took (the roles of the
// stages' models, and verify) and the stages' own; any other word passes
// through for Replay to refuse by name.
func TestLiveStage(t *testing.T) {
	for name, want := range map[string]events.Stage{
		"planner": events.StagePlan, "researcher": events.StageResearch, "writer": events.StageReport,
		"verify": events.StageVerify, "plan": events.StagePlan, "report": events.StageReport, "typist": "typist",
	} {
		if got := liveStage(name); got != want {
			t.Errorf("--live %s: stage %q, want %q", name, got, want)
		}
	}
}
