package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// geminiEmbedder speaks Gemini's batchEmbedContents (v1beta): one request
// embeds a batch, each text with its task type, RETRIEVAL_DOCUMENT for
// passages and RETRIEVAL_QUERY for searches, as Google recommends for
// retrieval. (langchaingo's googleai embeds through the gRPC client whose
// connection leaks; see gemini.)
type geminiEmbedder struct {
	hc   *http.Client
	base string // scheme://host, without /v1beta
	name string
}

type gemEmbedRequest struct {
	Model    string     `json:"model"`
	Content  gemContent `json:"content"`
	TaskType string     `json:"taskType,omitempty"`
}

type gemEmbedReply struct {
	Embeddings []struct {
		Values []float32 `json:"values"`
	} `json:"embeddings"`
}

func (g *geminiEmbedder) embed(ctx context.Context, texts []string, query bool) ([][]float32, error) {
	name := "models/" + strings.TrimPrefix(g.name, "models/")
	task := "RETRIEVAL_DOCUMENT"
	if query {
		task = "RETRIEVAL_QUERY"
	}
	reqs := make([]gemEmbedRequest, len(texts))
	for i, t := range texts {
		reqs[i] = gemEmbedRequest{Model: name, Content: gemContent{Parts: []gemPart{{Text: t}}}, TaskType: task}
	}
	body, err := json.Marshal(map[string]any{"requests": reqs})
	if err != nil {
		return nil, err
	}
	u := fmt.Sprintf("%s/v1beta/%s:batchEmbedContents", g.base, url.PathEscape(name))
	u = strings.Replace(u, "models%2F", "models/", 1)
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	resp, err := g.hc.Do(hreq)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var r gemEmbedReply
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxReplyBody)).Decode(&r); err != nil {
		return nil, &Error{Provider: GoogleAI, Kind: ErrMalformed, Message: "embeddings", Err: err}
	}
	out := make([][]float32, len(r.Embeddings))
	for i, e := range r.Embeddings {
		out[i] = e.Values
	}
	return out, nil
}
