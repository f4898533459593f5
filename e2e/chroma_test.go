//go:build unix

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/search"
)

// EnvChroma names the folder where npm installed the Chroma server
// (npm install --prefix DIR chromadb@3.0.0
// chromadb-js-bindings-linux-x64-gnu@0.1.3: a Chroma 1.0 server, whose
// later bindings need a newer glibc than Debian 12's); .ci/run sets it.
const EnvChroma = "E2E_CHROMA"

// TestRealChroma runs seed 003's three examples through the real binary
// against a real Chroma server (not our double): the catalog and the FAQ
// loaded with vectors of the embeddings double (deepresearchtest.TechMart),
// the web a SearXNG double. A question over the knowledge base cites both
// collections (internal_kb), one over the web cites pages (web_urls), and
// one over both cites each (mixed); sources, collections_used,
// source_types, citation_format and formatted_citations are seed 003's,
// in the JSON and the YAML report.
func TestRealChroma(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end suites are not short")
	}
	chroma := chromaCommand(t)
	base := startChroma(t, chroma)
	concepts := deepresearchtest.NewConcepts(deepresearchtest.TechMartSynonyms)
	for name, recs := range deepresearchtest.TechMart(concepts) {
		loadCollection(t, base, name, recs)
	}
	emb := deepresearchtest.NewOpenAIServer(deepresearchtest.Model(0), deepresearchtest.OpenAIOptions{Embedder: concepts})
	defer emb.Close()
	bin := buildBinary(t)

	type want struct {
		collections, types []string
		format             string
		formatted          []string // by source, with WEB for the web server's URL
	}
	best := search.Document{DocID: "best", Title: "Best Gaming Laptops 2024",
		Text: "The best gaming laptops of 2024 pair a fast graphics card with a high refresh rate screen."}
	review := search.Document{DocID: "review", Title: "Gaming Laptop Reviews",
		Text: "Our gaming laptop reviews test graphics performance: most gaming laptops keep a high frame rate."}
	external := search.Document{DocID: "air", Title: "External Review",
		Text: "External review of the TechBook Air: its battery lasts fourteen hours."}
	for _, tc := range []struct {
		name, question string
		providers      string
		collections    string
		web            []search.Document
		want           want
	}{
		{"knowledge base", "How much does the TechBook Air cost, and can I return a laptop?", "[chroma]", "[catalog, faq]", nil, want{
			[]string{"catalog", "faq"}, []string{"chromadb", "chromadb"}, "internal_kb", []string{"Product Catalog", "FAQ"}}},
		{"web", "Which gaming laptops are best, according to gaming laptop reviews?", "[searxng]", "[catalog, faq]", []search.Document{best, review}, want{
			[]string{"web_search"}, []string{"web", "web"}, "web_urls",
			[]string{"[Gaming Laptop Reviews](WEB/pages/review)", "[Best Gaming Laptops 2024](WEB/pages/best)"}}},
		{"mixed", "What is the price of the TechBook Air, and how long does its battery last?", "[chroma, searxng]", "[catalog]", []search.Document{external}, want{
			[]string{"web_search", "catalog"}, []string{"web", "chromadb"}, "mixed",
			[]string{"[External Review](WEB/pages/air)", "Product Catalog"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			web, err := deepresearchtest.NewWebServer(tc.web...)
			if err != nil {
				t.Fatal(err)
			}
			defer web.Close()
			dir := t.TempDir()
			cfg := fmt.Sprintf("model:\n  embeddings: openai:concepts\nresearch:\n  max_cycles: 1\nsearch:\n  providers: %s\n"+
				"  chroma_url: %s\n  chroma_collections: %s\nfetch:\n  allow: [%s]\n",
				tc.providers, base, tc.collections, strings.TrimPrefix(web.URL, "http://"))
			if err := os.WriteFile(filepath.Join(dir, "deepresearch.yaml"), []byte(cfg), 0o644); err != nil {
				t.Fatal(err)
			}
			run := func(format string) []byte {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				cmd := exec.CommandContext(ctx, bin, "run", "--format", format, tc.question)
				cmd.Dir = dir
				cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+emb.URL+"/v1", "OPENAI_API_KEY=", "SEARXNG_URL="+web.URL,
					"XDG_CACHE_HOME="+filepath.Join(dir, "cache"), "XDG_DATA_HOME="+filepath.Join(dir, "data"),
					"XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "CHROMA_URL=", "CHROMA_API_KEY=")
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("deepresearch run --format %s: %v\n%s", format, err, tail(stderr.String(), 4000))
				}
				return out
			}
			var doc struct {
				Text       string `json:"text"`
				References []struct {
					URL     string `json:"url"`
					Channel string `json:"channel"`
				} `json:"references"`
				render.Provenance
			}
			out := run("json")
			if err := json.Unmarshal(out, &doc); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
			got := want{doc.CollectionsUsed, doc.SourceTypes, doc.CitationFormat, doc.FormattedCitations}
			w := tc.want
			for i, f := range w.formatted {
				w.formatted[i] = strings.ReplaceAll(f, "WEB", web.URL)
			}
			if !reflect.DeepEqual(got, w) {
				t.Errorf("collections_used, source_types, citation_format, formatted_citations:\n got %q\nwant %q\n%s", got, w, doc.Text)
			}
			for _, f := range w.formatted {
				if kb := map[string]string{"Product Catalog": "According to our product catalog, ", "FAQ": "According to our FAQ, "}[f]; kb != "" && !strings.Contains(doc.Text, kb) {
					t.Errorf("the answer does not name the knowledge base (%q):\n%s", kb, doc.Text)
				}
			}
			var sources []string // seed 003's sources: the file of each record, the URL of each page
			for _, f := range w.formatted {
				switch {
				case f == "Product Catalog":
					sources = append(sources, "techmart_catalog.csv")
				case f == "FAQ":
					sources = append(sources, "techmart_faq.csv")
				default:
					sources = append(sources, f[strings.Index(f, "](")+2:len(f)-1])
				}
			}
			if !reflect.DeepEqual(doc.Sources, sources) {
				t.Errorf("sources %q, want %q", doc.Sources, sources)
			}
			if y := string(run("yaml")); !strings.Contains(y, "\ncitation_format: "+w.format+"\n") || !strings.Contains(y, "\nsources:\n  - "+sources[0]+"\n") {
				t.Errorf("the YAML report has not seed 003's fields:\n%s", y)
			}
		})
	}
}

// chromaCommand is the Chroma server's command that npm installed in
// $E2E_CHROMA. Where it is not, the test is skipped with a
// message, except under CI, where .ci/run installs it and its absence
// fails the test.
func chromaCommand(t *testing.T) string {
	dir := os.Getenv(EnvChroma)
	why := ""
	if dir == "" {
		why = EnvChroma + " is not set"
	} else if _, err := exec.LookPath("node"); err != nil {
		why = "node is not installed"
	} else if _, err := os.Stat(filepath.Join(dir, "node_modules", ".bin", "chroma")); err != nil {
		why = fmt.Sprintf("%s=%s holds no Chroma server (%v)", EnvChroma, dir, err)
	}
	if why != "" {
		msg := why + "; run `npm install --prefix DIR chromadb@3.0.0 chromadb-js-bindings-linux-x64-gnu@0.1.3` and set " + EnvChroma + "=DIR (.ci/run does)"
		if os.Getenv("CI") != "" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	return filepath.Join(dir, "node_modules", ".bin", "chroma")
}

// startChroma runs the Chroma server on a free loopback port with a fresh
// database, until the test ends, and returns its URL once its heartbeat
// answers.
func startChroma(t *testing.T, chroma string) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	var out bytes.Buffer
	cmd := exec.Command(chroma, "run", "--path", t.TempDir(), "--host", "127.0.0.1", "--port", strconv.Itoa(port))
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // node and whatever it starts, stopped together
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
	})
	base := "http://127.0.0.1:" + strconv.Itoa(port)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/v2/heartbeat", nil)
		if res, err := http.DefaultClient.Do(req); err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return base
			}
		}
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("the Chroma server exited: %v\n%s", err, tail(out.String(), 4000))
		case <-ctx.Done():
			t.Fatalf("the Chroma server did not answer its heartbeat in a minute\n%s", tail(out.String(), 4000))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// loadCollection creates a collection of recs through Chroma's HTTP API.
func loadCollection(t *testing.T, base, name string, recs []deepresearchtest.ChromaRecord) {
	col := base + "/api/v2/tenants/default_tenant/databases/default_database/collections"
	var created struct {
		ID string `json:"id"`
	}
	post(t, col, map[string]any{"name": name}, &created)
	if created.ID == "" {
		t.Fatalf("collection %s: no id", name)
	}
	add := map[string]any{"ids": []string{}, "embeddings": [][]float32{}, "documents": []string{}, "metadatas": []map[string]any{}}
	for _, r := range recs {
		add["ids"] = append(add["ids"].([]string), r.ID)
		add["embeddings"] = append(add["embeddings"].([][]float32), r.Embedding)
		add["documents"] = append(add["documents"].([]string), r.Document)
		add["metadatas"] = append(add["metadatas"].([]map[string]any), r.Metadata)
	}
	post(t, col+"/"+created.ID+"/add", add, nil)
}

func post(t *testing.T, u string, body, out any) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.Post(u, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	data, _ := io.ReadAll(res.Body)
	if res.StatusCode/100 != 2 {
		t.Fatalf("POST %s: %s %s", u, res.Status, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("POST %s: %v: %s", u, err, data)
		}
	}
}

// buildBinary builds deepresearch into the test's temporary folder.
func buildBinary(t *testing.T) string {
	bin := filepath.Join(t.TempDir(), "deepresearch")
	cmd := exec.Command("go", "build", "-o", bin, "../cmd/deepresearch")
	if out, err := cmd.CombinedOutput(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) || len(out) > 0 {
			t.Fatalf("go build: %v\n%s", err, out)
		}
		t.Fatal(err)
	}
	return bin
}
