package deepresearchtest

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
)

// ChromaRecord is one record of a Chroma collection: a document, its
// metadata (seed 003's knowledge base: {"source": "techmart_catalog.csv",
// "row_index": 0}) and its embedding.
type ChromaRecord struct {
	ID        string
	Document  string
	Metadata  map[string]any
	Embedding []float32
}

// ChromaOptions shape a ChromaServer.
type ChromaOptions struct {
	// Token, if set, must come in every request's x-chroma-token header
	// (else 401, as Chroma's token authentication answers).
	Token string
	// V1Only makes the server one older than Chroma 0.6: no v2 API
	// (404), collections under /api/v1/collections. By default the server
	// is a Chroma 1.x: v2 only, v1 answered 410 Gone.
	V1Only bool
}

// ChromaServer is a local server that speaks Chroma's HTTP API for the
// collections it holds, in the default tenant and database: getting a
// collection by name, querying it with query_embeddings (nearest by
// squared L2 distance, Chroma's default space; include documents,
// metadatas, distances) and getting records by ids or a metadata where
// ({"source": "x"} or {"source": {"$eq": "x"}}), with Chroma's request
// and response JSON and its {"error", "message"} errors. Close it when
// done.
type ChromaServer struct {
	*httptest.Server
	opts        ChromaOptions
	collections map[string]*chromaCollection // by name
	queries     atomic.Int64
}

type chromaCollection struct {
	id, name string
	records  []ChromaRecord
	dim      int
}

// NewChromaServer starts a server holding collections (name → records).
func NewChromaServer(collections map[string][]ChromaRecord, opts ChromaOptions) *ChromaServer {
	s := &ChromaServer{opts: opts, collections: map[string]*chromaCollection{}}
	for name, recs := range collections {
		sum := sha256.Sum256([]byte(name))
		c := &chromaCollection{id: uuidOf(sum[:16]), name: name, records: recs}
		if len(recs) > 0 {
			c.dim = len(recs[0].Embedding)
		}
		s.collections[name] = c
	}
	mux := http.NewServeMux()
	if opts.V1Only {
		mux.HandleFunc("GET /api/v1/collections/{name}", s.getCollection)
		mux.HandleFunc("POST /api/v1/collections/{id}/query", s.query)
		mux.HandleFunc("POST /api/v1/collections/{id}/get", s.get)
		mux.HandleFunc("/api/v2/", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"detail":"Not Found"}`)
		})
	} else {
		const col = "/api/v2/tenants/{tenant}/databases/{database}/collections/"
		mux.HandleFunc("GET /api/v2/heartbeat", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"nanosecond heartbeat":1700000000000000000}`)
		})
		mux.HandleFunc("GET "+col+"{name}", s.getCollection)
		mux.HandleFunc("POST "+col+"{id}/query", s.query)
		mux.HandleFunc("POST "+col+"{id}/get", s.get)
		mux.HandleFunc("/api/v1/", func(w http.ResponseWriter, _ *http.Request) {
			chromaError(w, http.StatusGone, "Unimplemented", "The v1 API is deprecated. Please use /v2 apis")
		})
	}
	s.Server = httptest.NewServer(s.auth(mux))
	return s
}

// uuidOf formats 16 bytes as a version-4 UUID.
func uuidOf(b []byte) string {
	b = slices.Clone(b)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// Queries returns the number of queries answered.
func (s *ChromaServer) Queries() int { return int(s.queries.Load()) }

func (s *ChromaServer) auth(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.opts.Token != "" && r.Header.Get("X-Chroma-Token") != s.opts.Token {
			chromaError(w, http.StatusUnauthorized, "AuthError", "Unauthorized")
			return
		}
		h.ServeHTTP(w, r)
	})
}

func chromaError(w http.ResponseWriter, status int, kind, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": kind, "message": msg})
}

func chromaJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func (s *ChromaServer) inDefault(r *http.Request) bool {
	t, d := r.PathValue("tenant"), r.PathValue("database")
	if s.opts.V1Only {
		t, d = r.URL.Query().Get("tenant"), r.URL.Query().Get("database")
		if t == "" && d == "" {
			return true
		}
	}
	return t == "default_tenant" && d == "default_database"
}

func (s *ChromaServer) getCollection(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	c, ok := s.collections[name]
	if !ok || !s.inDefault(r) {
		chromaError(w, http.StatusNotFound, "NotFoundError", fmt.Sprintf("Collection [%s] does not exist", name))
		return
	}
	chromaJSON(w, map[string]any{
		"id": c.id, "name": c.name, "metadata": nil, "dimension": c.dim,
		"configuration_json": map[string]any{"hnsw": map[string]any{"space": "l2", "ef_construction": 100, "ef_search": 100, "max_neighbors": 16}},
		"tenant":             "default_tenant", "database": "default_database", "log_position": 0, "version": 0,
	})
}

// byID finds a collection by the id in the path (Chroma wants a UUID).
func (s *ChromaServer) byID(w http.ResponseWriter, r *http.Request) (*chromaCollection, bool) {
	id := r.PathValue("id")
	if len(id) != 36 || strings.Count(id, "-") != 4 {
		chromaError(w, http.StatusBadRequest, "InvalidArgumentError", "Invalid collection ID")
		return nil, false
	}
	for _, c := range s.collections {
		if c.id == id && s.inDefault(r) {
			return c, true
		}
	}
	chromaError(w, http.StatusNotFound, "NotFoundError", fmt.Sprintf("Collection [%s] does not exist", id))
	return nil, false
}

func (s *ChromaServer) query(w http.ResponseWriter, r *http.Request) {
	c, ok := s.byID(w, r)
	if !ok {
		return
	}
	var req struct {
		QueryEmbeddings [][]float32 `json:"query_embeddings"`
		NResults        *int        `json:"n_results"`
		Include         []string    `json:"include"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.QueryEmbeddings == nil {
		chromaError(w, http.StatusBadRequest, "InvalidArgumentError", "Failed to deserialize the JSON body into the target type: missing field `query_embeddings`")
		return
	}
	n := 10
	if req.NResults != nil {
		n = *req.NResults
	}
	include := req.Include
	if include == nil {
		include = []string{"metadatas", "documents", "distances"}
	}
	s.queries.Add(1)
	out := map[string]any{"include": include, "embeddings": nil, "uris": nil}
	var ids [][]string
	var docs [][]*string
	var metas [][]map[string]any
	var dists [][]float64
	for _, q := range req.QueryEmbeddings {
		if len(q) != c.dim {
			chromaError(w, http.StatusBadRequest, "InvalidArgumentError", fmt.Sprintf("Collection expecting embedding with dimension of %d, got %d", c.dim, len(q)))
			return
		}
		type hit struct {
			i int
			d float64
		}
		hits := make([]hit, len(c.records))
		for i, rec := range c.records {
			var d float64
			for k := range q {
				x := float64(q[k] - rec.Embedding[k])
				d += x * x
			}
			hits[i] = hit{i, d}
		}
		slices.SortStableFunc(hits, func(a, b hit) int {
			switch {
			case a.d < b.d:
				return -1
			case a.d > b.d:
				return 1
			}
			return 0
		})
		hits = hits[:min(n, len(hits))]
		var is []string
		var ds []*string
		var ms []map[string]any
		var xs []float64
		for _, h := range hits {
			rec := c.records[h.i]
			is = append(is, rec.ID)
			doc := rec.Document
			ds = append(ds, &doc)
			ms = append(ms, rec.Metadata)
			xs = append(xs, h.d)
		}
		ids, docs, metas, dists = append(ids, is), append(docs, ds), append(metas, ms), append(dists, xs)
	}
	out["ids"] = ids
	out["documents"], out["metadatas"], out["distances"] = nil, nil, nil
	if slices.Contains(include, "documents") {
		out["documents"] = docs
	}
	if slices.Contains(include, "metadatas") {
		out["metadatas"] = metas
	}
	if slices.Contains(include, "distances") {
		out["distances"] = dists
	}
	chromaJSON(w, out)
}

func (s *ChromaServer) get(w http.ResponseWriter, r *http.Request) {
	c, ok := s.byID(w, r)
	if !ok {
		return
	}
	var req struct {
		IDs     []string       `json:"ids"`
		Where   map[string]any `json:"where"`
		Limit   *int           `json:"limit"`
		Include []string       `json:"include"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		chromaError(w, http.StatusBadRequest, "InvalidArgumentError", "Failed to deserialize the JSON body: "+err.Error())
		return
	}
	include := req.Include
	if include == nil {
		include = []string{"metadatas", "documents"}
	}
	ids := []string{}
	var docs []*string
	var metas []map[string]any
	for _, rec := range c.records {
		if req.IDs != nil && !slices.Contains(req.IDs, rec.ID) || !matches(rec.Metadata, req.Where) {
			continue
		}
		if req.Limit != nil && len(ids) == *req.Limit {
			break
		}
		doc := rec.Document
		ids, docs, metas = append(ids, rec.ID), append(docs, &doc), append(metas, rec.Metadata)
	}
	out := map[string]any{"ids": ids, "embeddings": nil, "uris": nil, "documents": nil, "metadatas": nil, "include": include}
	if slices.Contains(include, "documents") {
		out["documents"] = docs
	}
	if slices.Contains(include, "metadatas") {
		out["metadatas"] = metas
	}
	chromaJSON(w, out)
}

// matches applies a where of equalities on metadata keys.
func matches(meta, where map[string]any) bool {
	for k, want := range where {
		if op, ok := want.(map[string]any); ok {
			want = op["$eq"]
		}
		if fmt.Sprint(meta[k]) != fmt.Sprint(want) {
			return false
		}
	}
	return true
}
