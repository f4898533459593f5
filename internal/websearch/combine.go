package websearch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/deepresearch/deepresearch/domains"
	"github.com/deepresearch/deepresearch/internal/canon"
	"github.com/deepresearch/deepresearch/search"
)

// ChannelCorpus is the Result.Channel of the local corpus's results.
const ChannelCorpus = "corpus"

// Member is one backend of a Combined search.
type Member struct {
	// Name identifies the backend in errors and hooks ("searxng", "corpus").
	Name string
	// Channel is set on the member's results that have none ("web",
	// "corpus").
	Channel string
	Backend search.Backend
}

// Hooks observe a Combined search. Each may be nil; they are called from
// the goroutine that called Search, after every member has answered.
type Hooks struct {
	// Failed is called for a member whose search failed while another's
	// succeeded, so a broken backend is reported though the search is not.
	Failed func(ctx context.Context, member string, err error)
}

// Combined queries several backends at once and merges their results. It
// implements search.Backend and is safe for concurrent use.
type Combined struct {
	members []Member
	hooks   Hooks

	mu    sync.Mutex
	owner map[string]int // DocID → index of the member that returned it
}

// Combine returns a Combined search over members, in order of preference
// (it breaks ties in the interleaving and orders Fetch's fallbacks). It
// remembers which member returned each document for Fetch, for its
// lifetime: make one per run.
func Combine(hooks Hooks, members ...Member) (*Combined, error) {
	if len(members) == 0 {
		return nil, errors.New("websearch: combine: no search backends")
	}
	seen := map[string]bool{}
	for _, m := range members {
		if m.Backend == nil || m.Name == "" {
			return nil, fmt.Errorf("websearch: combine: member %q has no name or backend", m.Name)
		}
		if seen[m.Name] {
			return nil, fmt.Errorf("websearch: combine: %q listed twice", m.Name)
		}
		seen[m.Name] = true
	}
	return &Combined{members: slices.Clone(members), hooks: hooks, owner: map[string]int{}}, nil
}

// Search asks every member for limit results concurrently (one goroutine
// each, all finished before it returns), then interleaves their lists
// round-robin in member order (first of each, then second of each, ...),
// up to limit results, de-duplicated by canonical URL (canon.Key; documents
// without a URL by member and DocID): a URL belongs to the member that
// listed it first, and other members' results for it are dropped, while
// that member's several passages of it are kept (the agent numbers them as
// one source). Each result keeps its snippet and its member's channel.
//
// A result whose URL the domain policy in ctx refuses
// (domains.FromContext: the run's search.domains) is dropped from every
// member's list before they are interleaved.
//
// When some members fail, their failures go to Hooks.Failed and the others'
// results are returned. When all fail, the error joins every member's.
func (c *Combined) Search(ctx context.Context, query string, limit int) ([]search.Result, error) {
	if limit <= 0 {
		return nil, nil
	}
	lists := make([][]search.Result, len(c.members))
	errs := make([]error, len(c.members))
	var wg sync.WaitGroup
	for i, m := range c.members {
		wg.Go(func() {
			lists[i], errs[i] = m.Backend.Search(ctx, query, limit)
		})
	}
	wg.Wait()
	if ctx.Err() != nil {
		return nil, context.Cause(ctx)
	}
	var failed []error
	for i, err := range errs {
		if err != nil {
			failed = append(failed, memberError(c.members[i].Name, err))
		}
	}
	if len(failed) == len(c.members) {
		return nil, errors.Join(failed...)
	}
	if c.hooks.Failed != nil {
		for i, err := range errs {
			if err != nil {
				c.hooks.Failed(ctx, c.members[i].Name, err)
			}
		}
	}
	if policy := domains.FromContext(ctx); policy != nil {
		for i, list := range lists {
			lists[i] = slices.DeleteFunc(list, func(r search.Result) bool { return !policy.Permits(r.URL) })
		}
	}
	out := interleave(c.members, lists, limit)
	c.mu.Lock()
	for _, r := range out {
		if _, ok := c.owner[r.DocID]; !ok {
			c.owner[r.DocID] = slices.IndexFunc(c.members, func(m Member) bool { return m.Name == r.memberName })
		}
	}
	c.mu.Unlock()
	res := make([]search.Result, len(out))
	for i, r := range out {
		res[i] = r.Result
	}
	return res, nil
}

// memberError names the member in err unless err already names it.
func memberError(name string, err error) error {
	var e *Error
	if errors.As(err, &e) && e.Provider == name {
		return err
	}
	return fmt.Errorf("websearch: %s: %w", name, err)
}

type tagged struct {
	search.Result
	memberName string
}

// interleave merges lists round-robin up to limit. A result whose
// canonical URL another member listed first is dropped; a member's own
// results for one URL (passages of one document) are all kept, except exact
// repeats.
func interleave(members []Member, lists [][]search.Result, limit int) []tagged {
	owner := map[string]int{}  // canonical key → member that listed it first
	exact := map[string]bool{} // member, DocID, location and snippet
	var out []tagged
	for rank := 0; len(out) < limit; rank++ {
		more := false
		for i, list := range lists {
			if rank >= len(list) {
				continue
			}
			more = true
			r := list[rank]
			key := canon.Key(r.URL)
			if key == "" {
				key = "id:" + members[i].Name + "\x00" + r.DocID
			}
			if o, ok := owner[key]; ok && o != i {
				continue
			}
			owner[key] = i
			ek := strings.Join([]string{members[i].Name, r.DocID, r.Location, r.Snippet}, "\x00")
			if exact[ek] {
				continue
			}
			exact[ek] = true
			if r.Channel == "" {
				r.Channel = members[i].Channel
			}
			out = append(out, tagged{r, members[i].Name})
			if len(out) == limit {
				break
			}
		}
		if !more {
			break
		}
	}
	return out
}

// Fetch reads a document through the member whose search returned it. For
// a DocID no search returned, it asks each member in order and returns the
// first answer that is not search.ErrNotFound. The document carries the
// member's channel (Document.Channel) when it names none.
func (c *Combined) Fetch(ctx context.Context, docID string) (search.Document, error) {
	c.mu.Lock()
	i, ok := c.owner[docID]
	c.mu.Unlock()
	if ok && i >= 0 {
		doc, err := c.members[i].Backend.Fetch(ctx, docID)
		return withChannel(doc, c.members[i].Channel), err
	}
	var names []string
	for _, m := range c.members {
		doc, err := m.Backend.Fetch(ctx, docID)
		if err == nil || !errors.Is(err, search.ErrNotFound) {
			return withChannel(doc, m.Channel), err
		}
		names = append(names, m.Name)
	}
	return search.Document{}, fmt.Errorf("websearch: %q: not found in %s: %w", docID, strings.Join(names, ", "), search.ErrNotFound)
}

// withChannel is doc with the channel of the member that fetched it,
// when it names none: what Search sets on the member's results.
func withChannel(doc search.Document, channel string) search.Document {
	if doc.Channel == "" {
		doc.Channel = channel
	}
	return doc
}

var _ search.Resolver = (*Combined)(nil)

// Resolve asks each member that is a search.Resolver in turn and returns
// the first answer that is not search.ErrNotFound. A link to a URL the
// domain policy in ctx refuses wraps search.ErrNotFound.
func (c *Combined) Resolve(ctx context.Context, from, ref string) (string, error) {
	for _, m := range c.members {
		r, ok := m.Backend.(search.Resolver)
		if !ok {
			continue
		}
		id, err := r.Resolve(ctx, from, ref)
		if err == nil {
			if derr := domains.FromContext(ctx).Check(id); derr != nil {
				return "", fmt.Errorf("websearch: link %q: %w: %w", ref, derr, search.ErrNotFound)
			}
		}
		if err == nil || !errors.Is(err, search.ErrNotFound) {
			return id, err
		}
	}
	return "", fmt.Errorf("websearch: link %q: %w", ref, search.ErrNotFound)
}
