package source

// QueryScore is a source's relevance to one search query of its research
// task: seed 001's q_relevance entry.
type QueryScore struct {
	// QID is the query's place among the task's searches: "1", "2", …
	QID string `json:"qid"`
	// Query is the search's query, as the task ran it.
	Query string `json:"query"`
	// Score is the share of the query's key terms the source's passage
	// has, 0 to 1.
	Score float64 `json:"score"`
}

// Relevance is what the sources reconciler said of a source it kept (seed
// 001's objective_relevance, query_relevance and reasoning).
type Relevance struct {
	// Objective is its relevance to the task and the user's question, 0
	// to 1, as the relevance judge scored it.
	Objective float64 `json:"o_relevance"`
	// Queries is its relevance to each search of the task made by then.
	Queries []QueryScore `json:"q_relevance,omitempty"`
	// Reasoning says why, in one line of at most 320 bytes.
	Reasoning string `json:"reasoning,omitempty"`
}
