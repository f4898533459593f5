package websearch

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/deepresearch/deepresearch/search"
	"github.com/deepresearch/deepresearch/source"
)

// ChannelChroma is the Result.Channel of a Chroma collection's results.
const ChannelChroma = source.ChannelChroma

// Chroma's defaults and the variables ChromaConfig falls back to.
const (
	DefaultChromaURL      = "http://localhost:8000"
	DefaultChromaTenant   = "default_tenant"
	DefaultChromaDatabase = "default_database"
	EnvChromaURL          = "CHROMA_URL"
	EnvChromaKey          = "CHROMA_API_KEY"
)

// ChromaConfig names existing Chroma collections of one server: Collection,
// then Collections (see Names). Empty fields take the defaults: URL
// $CHROMA_URL else DefaultChromaURL, Tenant and Database Chroma's own,
// Token $CHROMA_API_KEY (sent as x-chroma-token).
type ChromaConfig struct {
	URL, Collection, Tenant, Database, Token string
	// Collections are more collections, queried with Collection (Build
	// makes a backend of each).
	Collections []string
}

// Names are the collections cc names, Collection then Collections, each
// once, trimmed, in order.
func (cc ChromaConfig) Names() []string {
	var out []string
	for _, n := range append([]string{cc.Collection}, cc.Collections...) {
		if n = strings.TrimSpace(n); n != "" && !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// QueryEmbedder makes a query's vector with the model the collection's
// vectors were made with; vector.Embedder and langchaingo's
// embeddings.Embedder implement it.
type QueryEmbedder interface {
	EmbedQuery(ctx context.Context, text string) ([]float32, error)
}

// Chroma is an existing Chroma collection as a search.Backend. It speaks
// Chroma's HTTP API, v2 (Chroma 0.6 and later; 1.x answers v1 with 410
// Gone): the collection is found by name (GET
// /api/v2/tenants/{tenant}/databases/{database}/collections/{name}), then
// queried by its id with the query's vector (POST …/collections/{id}/query)
// and read (POST …/get). A server without v2 (older than 0.6) is spoken to
// on v1's paths (/api/v1/collections/{name}?tenant=&database=, …/{id}/query,
// …/{id}/get).
//
// A record's metadata "source" (the file the record came from, as seed
// 003's knowledge base has it: "techmart_catalog.csv") names its document
// and "row_index" (the 0-based data row) its row: the result's DocID and
// Title are "chroma:COLLECTION/SOURCE" and its Locator the row as a
// spreadsheet shows it (row_index 0 is row 2, the header being row 1), the
// same row the local corpus cites for that CSV file. Fetch of that DocID
// reads every record of the source, one line per row ("row 2: …"). A
// record without a source is a document of its own,
// "chroma:COLLECTION#ID". It is safe for concurrent use.
type Chroma struct {
	cc     ChromaConfig
	base   string
	emb    QueryEmbedder
	caller caller

	mu  sync.Mutex
	id  string // the collection's id, once found
	api string // "/api/v2/tenants/T/databases/D/collections" or "/api/v1/collections"
}

// NewChroma returns the backend of the collection cc.Collection (its
// Collections are Build's), whose queries
// are embedded by emb; cfg gives the HTTP client, retries and clock. It
// makes no call.
func NewChroma(cc ChromaConfig, emb QueryEmbedder, cfg Config) (*Chroma, error) {
	cfg = cfg.withDefaults()
	cc.URL = cmp.Or(cc.URL, DefaultChromaURL)
	cc.Tenant = cmp.Or(cc.Tenant, DefaultChromaTenant)
	cc.Database = cmp.Or(cc.Database, DefaultChromaDatabase)
	switch {
	case strings.TrimSpace(cc.Collection) == "":
		return nil, &Error{Provider: ChannelChroma, Op: "config", Err: fmt.Errorf("no collection named (search.chroma_collections)")}
	case emb == nil:
		return nil, &Error{Provider: ChannelChroma, Op: "config", Err: fmt.Errorf("no embedding model for the queries (model.embeddings)")}
	}
	base, err := baseURL(ChannelChroma, EnvChromaURL, cc.URL)
	if err != nil {
		return nil, err
	}
	c := &Chroma{cc: cc, base: base, emb: emb}
	c.caller = caller{provider: ChannelChroma, envVar: EnvChromaKey, cfg: &cfg}
	return c, nil
}

// Name returns "chroma".
func (c *Chroma) Name() string { return ChannelChroma }

type chromaCollection struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// collection returns the collection's id and the API path it is reached
// under, finding them the first time.
func (c *Chroma) collection(ctx context.Context) (id, api string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.id != "" {
		return c.id, c.api, nil
	}
	v2 := "/api/v2/tenants/" + url.PathEscape(c.cc.Tenant) + "/databases/" + url.PathEscape(c.cc.Database) + "/collections"
	var col chromaCollection
	err = c.get(ctx, c.base+v2+"/"+url.PathEscape(c.cc.Collection), &col)
	api = v2
	var e *Error
	if errors.As(err, &e) && e.Status == http.StatusNotFound {
		// A server older than v2, or a collection that does not exist.
		q := url.Values{"tenant": {c.cc.Tenant}, "database": {c.cc.Database}}
		if c.get(ctx, c.base+"/api/v1/collections/"+url.PathEscape(c.cc.Collection)+"?"+q.Encode(), &col) == nil {
			err, api = nil, "/api/v1/collections"
		}
	}
	if err != nil {
		if errors.As(err, &e) {
			e.Op = "find collection " + strconv.Quote(c.cc.Collection)
		}
		return "", "", err
	}
	if col.ID == "" {
		return "", "", &Error{Provider: ChannelChroma, Op: "find collection " + strconv.Quote(c.cc.Collection), Err: ErrMalformed, Detail: "the collection has no id"}
	}
	c.id, c.api = col.ID, api
	return c.id, c.api, nil
}

func (c *Chroma) get(ctx context.Context, u string, out any) error {
	return c.caller.call(ctx, func(ctx context.Context) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
		if err == nil {
			c.headers(req)
		}
		return req, err
	}, out)
}

func (c *Chroma) post(ctx context.Context, u string, body, out any) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	return c.caller.call(ctx, func(ctx context.Context) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(data))
		if err == nil {
			c.headers(req)
			req.Header.Set("Content-Type", "application/json")
		}
		return req, err
	}, out)
}

func (c *Chroma) headers(req *http.Request) {
	req.Header.Set("Accept", "application/json")
	if c.cc.Token != "" {
		req.Header.Set("X-Chroma-Token", c.cc.Token)
	}
}

// chromaQuery is the body of …/query: one query vector.
type chromaQuery struct {
	QueryEmbeddings [][]float32 `json:"query_embeddings"`
	NResults        int         `json:"n_results"`
	Include         []string    `json:"include"`
}

// chromaQueryResponse is …/query's answer: one list per query vector.
type chromaQueryResponse struct {
	IDs       [][]string         `json:"ids"`
	Documents [][]*string        `json:"documents"`
	Metadatas [][]map[string]any `json:"metadatas"`
	Distances [][]*float64       `json:"distances"`
	Include   []string           `json:"include"`
}

// chromaGet is the body of …/get.
type chromaGet struct {
	IDs     []string       `json:"ids,omitempty"`
	Where   map[string]any `json:"where,omitempty"`
	Limit   int            `json:"limit,omitempty"`
	Include []string       `json:"include"`
}

type chromaGetResponse struct {
	IDs       []string         `json:"ids"`
	Documents []*string        `json:"documents"`
	Metadatas []map[string]any `json:"metadatas"`
}

// chromaFetchLimit bounds the records Fetch reads of one source.
const chromaFetchLimit = 5000

// Search embeds query and returns the collection's nearest records, at
// most limit, nearest first; Score is minus the distance.
func (c *Chroma) Search(ctx context.Context, query string, limit int) ([]search.Result, error) {
	if limit <= 0 || strings.TrimSpace(query) == "" {
		return nil, nil
	}
	v, err := c.emb.EmbedQuery(ctx, query)
	if err != nil {
		return nil, &Error{Provider: ChannelChroma, Op: "embed the query", Err: err}
	}
	id, api, err := c.collection(ctx)
	if err != nil {
		return nil, err
	}
	var resp chromaQueryResponse
	err = c.post(ctx, c.base+api+"/"+url.PathEscape(id)+"/query",
		chromaQuery{QueryEmbeddings: [][]float32{v}, NResults: limit, Include: []string{"documents", "metadatas", "distances"}}, &resp)
	if err != nil {
		return nil, err
	}
	if len(resp.IDs) == 0 {
		return nil, nil
	}
	var out []search.Result
	for i, rid := range resp.IDs[0] {
		r := c.result(rid, at(resp.Documents, i), atMeta(resp.Metadatas, i))
		if d := at(resp.Distances, i); d != nil && !math.IsNaN(*d) {
			r.Score = -*d
		}
		out = append(out, r)
		if len(out) == limit {
			break
		}
	}
	return out, nil
}

// at returns lists[0][i], or nil.
func at[T any](lists [][]*T, i int) *T {
	if len(lists) == 0 || i >= len(lists[0]) {
		return nil
	}
	return lists[0][i]
}

func atMeta(lists [][]map[string]any, i int) map[string]any {
	if len(lists) == 0 || i >= len(lists[0]) {
		return nil
	}
	return lists[0][i]
}

// result maps one record.
func (c *Chroma) result(id string, doc *string, meta map[string]any) search.Result {
	r := search.Result{Channel: ChannelChroma}
	if doc != nil {
		r.Snippet = cleanSnippet(*doc)
	}
	src, _ := meta["source"].(string)
	src = oneLine(src)
	if src == "" {
		r.DocID = "chroma:" + c.cc.Collection + "#" + id
	} else {
		r.DocID = "chroma:" + c.cc.Collection + "/" + src
		if row, ok := rowOf(meta); ok {
			r.Locator = source.Location{Kind: source.LocRow, Value: strconv.Itoa(row)}
			r.Location = r.Locator.String()
		}
	}
	r.Title = r.DocID
	return r
}

// rowOf reads metadata row_index (a 0-based data row) as the row a
// spreadsheet shows: row_index + 2.
func rowOf(meta map[string]any) (int, bool) {
	switch v := meta["row_index"].(type) {
	case float64:
		if v >= 0 && v == math.Trunc(v) && v < 1e9 {
			return int(v) + 2, true
		}
	case string:
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			return n + 2, true
		}
	}
	return 0, false
}

// Fetch reads a document: every record of a source, one line per row in
// row order ("row 2: …"), or one record.
func (c *Chroma) Fetch(ctx context.Context, docID string) (search.Document, error) {
	prefix := "chroma:" + c.cc.Collection
	rest, ok := strings.CutPrefix(docID, prefix)
	if !ok || len(rest) < 2 || (rest[0] != '/' && rest[0] != '#') {
		return search.Document{}, fmt.Errorf("websearch: chroma: %q is not a record of collection %q: %w", docID, c.cc.Collection, search.ErrNotFound)
	}
	id, api, err := c.collection(ctx)
	if err != nil {
		return search.Document{}, err
	}
	body := chromaGet{Include: []string{"documents", "metadatas"}}
	if rest[0] == '#' {
		body.IDs = []string{rest[1:]}
	} else {
		body.Where, body.Limit = map[string]any{"source": rest[1:]}, chromaFetchLimit
	}
	var resp chromaGetResponse
	if err := c.post(ctx, c.base+api+"/"+url.PathEscape(id)+"/get", body, &resp); err != nil {
		return search.Document{}, err
	}
	if len(resp.IDs) == 0 {
		return search.Document{}, fmt.Errorf("websearch: chroma: %q: no records: %w", docID, search.ErrNotFound)
	}
	type line struct {
		row  int
		text string
	}
	var lines []line
	for i := range resp.IDs {
		var text string
		if i < len(resp.Documents) && resp.Documents[i] != nil {
			text = cleanSnippet(*resp.Documents[i])
		}
		var meta map[string]any
		if i < len(resp.Metadatas) {
			meta = resp.Metadatas[i]
		}
		row, ok := rowOf(meta)
		if !ok {
			row = math.MaxInt
		}
		lines = append(lines, line{row, text})
	}
	slices.SortStableFunc(lines, func(a, b line) int { return cmp.Compare(a.row, b.row) })
	var b strings.Builder
	for _, l := range lines {
		if l.row != math.MaxInt {
			fmt.Fprintf(&b, "%s: ", source.Location{Kind: source.LocRow, Value: strconv.Itoa(l.row)})
		}
		b.WriteString(l.text)
		b.WriteByte('\n')
	}
	return search.Document{DocID: docID, Title: docID, Text: b.String()}, nil
}

// Check finds the collection: `deepresearch doctor`'s call.
func (c *Chroma) Check(ctx context.Context) error {
	_, _, err := c.collection(ctx)
	return err
}
