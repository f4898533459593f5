package deepresearchtest

import (
	"context"
	"encoding/json"
	"hash/fnv"
	"math"
	"net/http"
	"strings"

	"github.com/tmc/langchaingo/embeddings"

	"github.com/deepresearch/deepresearch/internal/terms"
)

// Concepts is a deterministic embedding that is honest about what it can
// do: a bag of concepts. Each synonym group of its table ("sort", "put in
// order", "arrange") is one dimension; every other word (stemmed, stop
// words left out) falls into one of 512 hashed dimensions of its own. Two
// texts are similar when they share words or words of one group, and in
// no other way: it knows no more than its table, which a test writes. It
// is no language model and stands in for one only to exercise hybrid
// retrieval over a real embeddings API (see OpenAIOptions.Embedder).
//
// It implements langchaingo's embeddings.Embedder, and is safe for
// concurrent use.
type Concepts struct {
	words   map[string]int   // stemmed word → group
	phrases map[string][]int // first stemmed word → groups of phrases starting with it
	phrase  [][]string       // group → its multi-word phrases, stemmed (nil when none)
	groups  int
}

// conceptBuckets is how many hashed dimensions words outside the table
// share.
const conceptBuckets = 512

// NewConcepts returns the embedding of the synonym table groups: each
// group lists words or phrases that mean one thing.
func NewConcepts(groups [][]string) *Concepts {
	c := &Concepts{words: map[string]int{}, phrases: map[string][]int{}, groups: len(groups)}
	c.phrase = make([][]string, len(groups))
	for g, group := range groups {
		for _, w := range group {
			toks := stems(w)
			switch len(toks) {
			case 0:
			case 1:
				c.words[toks[0]] = g
			default:
				c.phrase[g] = append(c.phrase[g], strings.Join(toks, " "))
				if !containsInt(c.phrases[toks[0]], g) {
					c.phrases[toks[0]] = append(c.phrases[toks[0]], g)
				}
			}
		}
	}
	return c
}

func containsInt(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// conceptStop are words that say nothing of a text's subject.
var conceptStop = terms.Set(`a an the and or but of in on at to for from by with about as into is are was were be been
	being it its this that these those there here what which who how why when where do does did can could should would
	will may might must i you we they he she me my our your their them his her not no so if then than also just only`)

func stems(s string) []string {
	var out []string
	for _, w := range terms.Tokens(s) {
		if !conceptStop[w] {
			out = append(out, terms.Stem(w))
		}
	}
	return out
}

// Dim is the length of the vectors.
func (c *Concepts) Dim() int { return c.groups + conceptBuckets }

// Embed returns the unit vector of text: 1 + ln(count) for each concept
// it mentions, normalised.
func (c *Concepts) Embed(text string) []float32 {
	v := make([]float32, c.Dim())
	toks := stems(text)
	for i := 0; i < len(toks); i++ {
		w := toks[i]
		matched := false
		for _, g := range c.phrases[w] {
			for _, p := range c.phrase[g] {
				n := strings.Count(p, " ") + 1
				if i+n <= len(toks) && strings.Join(toks[i:i+n], " ") == p {
					v[g]++
					i += n - 1
					matched = true
					break
				}
			}
			if matched {
				break
			}
		}
		if matched {
			continue
		}
		if g, ok := c.words[w]; ok {
			v[g]++
			continue
		}
		h := fnv.New32a()
		h.Write([]byte(w))
		v[c.groups+int(h.Sum32()%conceptBuckets)]++
	}
	var norm float64
	for i, x := range v {
		if x > 0 {
			v[i] = float32(1 + math.Log(float64(x)))
			norm += float64(v[i]) * float64(v[i])
		}
	}
	if norm > 0 {
		inv := float32(1 / math.Sqrt(norm))
		for i := range v {
			v[i] *= inv
		}
	}
	return v
}

// EmbedDocuments embeds each text.
func (c *Concepts) EmbedDocuments(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = c.Embed(t)
	}
	return out, nil
}

// EmbedQuery embeds a query like a document.
func (c *Concepts) EmbedQuery(_ context.Context, text string) ([]float32, error) {
	return c.Embed(text), nil
}

var _ embeddings.Embedder = (*Concepts)(nil)

// embed answers POST /v1/embeddings as OpenAI does: {"model", "input"}
// (a string or an array of strings) → {"object": "list", "data":
// [{"object": "embedding", "index", "embedding"}], "model", "usage"}.
func (s *OpenAIServer) embed(w http.ResponseWriter, r *http.Request) {
	if s.opts.Embedder == nil {
		oaError(w, http.StatusNotFound, "this server has no embedding model")
		return
	}
	var req struct {
		Model string          `json:"model"`
		Input json.RawMessage `json:"input"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<20)).Decode(&req); err != nil {
		oaError(w, http.StatusBadRequest, "request body: "+err.Error())
		return
	}
	var inputs []string
	if err := json.Unmarshal(req.Input, &inputs); err != nil {
		var one string
		if err := json.Unmarshal(req.Input, &one); err != nil {
			oaError(w, http.StatusBadRequest, "'input' must be a string or an array of strings")
			return
		}
		inputs = []string{one}
	}
	if len(inputs) == 0 || len(inputs) > 2048 {
		oaError(w, http.StatusBadRequest, "'input' must hold 1 to 2048 texts")
		return
	}
	s.embeds.Add(1)
	vs, err := s.opts.Embedder.EmbedDocuments(r.Context(), inputs)
	if err != nil {
		oaError(w, http.StatusInternalServerError, err.Error())
		return
	}
	type item struct {
		Object    string    `json:"object"`
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	out := struct {
		Object string `json:"object"`
		Data   []item `json:"data"`
		Model  string `json:"model"`
		Usage  struct {
			PromptTokens int `json:"prompt_tokens"`
			TotalTokens  int `json:"total_tokens"`
		} `json:"usage"`
	}{Object: "list", Model: req.Model}
	for i, v := range vs {
		out.Data = append(out.Data, item{"embedding", i, v})
		out.Usage.PromptTokens += len(strings.Fields(inputs[i]))
	}
	out.Usage.TotalTokens = out.Usage.PromptTokens
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(out)
}

// Embeds returns the number of embedding requests answered.
func (s *OpenAIServer) Embeds() int { return int(s.embeds.Load()) }
