package deepresearch

import (
	"context"

	"github.com/deepresearch/deepresearch/runstore"
)

// List returns the runs of the Runs' store, the newest first, at most
// limit of them (all when limit <= 0): what a front end lists of earlier
// runs, this process's and others'.
func (rs *Runs) List(ctx context.Context, limit int) ([]runstore.Run, error) {
	return rs.st.List(ctx, limit)
}

// Sources returns the documents the store keeps for run id's report
// (Store.Sources): the text of each source it cites, as read.
func (rs *Runs) Sources(ctx context.Context, id string) ([]runstore.Source, error) {
	return rs.st.Sources(ctx, id)
}
