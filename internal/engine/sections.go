package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/sourcegraph/conc/panics"

	"github.com/deepresearch/deepresearch/cite"
	"github.com/deepresearch/deepresearch/events"
	"github.com/deepresearch/deepresearch/internal/agent"
	"github.com/deepresearch/deepresearch/internal/finalreport"
	"github.com/deepresearch/deepresearch/internal/journal"
)

// A long report is written section by section (loop.sectioned): each
// part of the question from its own findings, by sectionJobs in the
// background, each as soon as the part's research is complete (no task
// of the cycle under way that serves it is unmerged), again when a later
// cycle adds to it; then, once the loop is over, the title, introduction
// and summary around them (writeSectioned).

// errNoSection is a section writer's result for a part with no findings.
var errNoSection = errors.New("no findings")

// sectionJobs writes a report's sections in the background, each as soon
// as its findings are complete, and again when a later cycle adds to
// them. It owns its goroutines: close cancels and waits for them.
type sectionJobs struct {
	ctx    context.Context
	cancel context.CancelFunc
	write  func(ctx context.Context, title, findings string, sources []cite.MergedSource) (string, error)
	mu     sync.Mutex
	jobs   map[string]*sectionJob
	wg     sync.WaitGroup
}

type sectionJob struct {
	findings string
	cancel   context.CancelFunc
	done     chan struct{}
	text     string
	err      error
}

// start writes the section key from findings, unless a write from the
// same findings is under way or done; a write from other findings is
// canceled.
func (s *sectionJobs) start(key, title, findings string, sources []cite.MergedSource) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if j := s.jobs[key]; j != nil {
		if j.findings == findings {
			return
		}
		j.cancel()
	}
	ctx, cancel := context.WithCancel(s.ctx)
	j := &sectionJob{findings: findings, cancel: cancel, done: make(chan struct{})}
	s.jobs[key] = j
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer close(j.done)
		defer cancel()
		var text string
		var err error
		var pc panics.Catcher // a panic comes back to the owner as the section's error
		pc.Try(func() { text, err = s.write(ctx, title, findings, sources) })
		if rec := pc.Recovered(); rec != nil {
			err = fmt.Errorf("section %q: %w", title, rec.AsError())
		}
		j.text, j.err = text, err
	}()
}

// result waits for section key's latest write.
func (s *sectionJobs) result(key string) (string, error) {
	s.mu.Lock()
	j := s.jobs[key]
	s.mu.Unlock()
	if j == nil {
		return "", errNoSection
	}
	<-j.done
	return j.text, j.err
}

// close cancels the writes under way and waits for every one.
func (s *sectionJobs) close() {
	s.cancel()
	s.wg.Wait()
}

// startSections starts the writing of every section whose research is
// complete: no task of the current cycle that serves it is unmerged. Its
// caller holds l.mu, or runs alone.
func (l *loop) startSections(ctx context.Context) {
	if l.sections == nil {
		ctx, cancel := context.WithCancel(ctx)
		l.sections = &sectionJobs{ctx: ctx, cancel: cancel, jobs: map[string]*sectionJob{}, write: l.writeSection}
	}
	pending := map[string]bool{}
	for _, t := range l.tasks[l.mergeAt:] {
		pending[l.sectionOf(t)] = true
	}
	sources := l.merger.Sources()
	for _, f := range l.sectionFindings() {
		if !pending[f.key] {
			l.sections.start(f.key, f.title, f.text, sources)
		}
	}
}

// sectioned reports whether the report is written section by section:
// the loop is on and the report is long — many sections, or long
// findings, more than one writing call does justice to — and the request
// sets no length, language or audience (those are the one writer call's
// to honour).
func (l *loop) sectioned() bool {
	if l.req.MaxCycles <= 1 || l.req.Controls.Length > 0 || l.req.Controls.Language != "" || l.req.Controls.Audience != "" {
		return false // the report's shape is asked of the one writer call
	}
	n := 0
	for _, mr := range l.merged {
		n += len(mr.Text)
	}
	return n > longFindings || len(l.sectionFindings()) >= longSections
}

// sectionFinding is one section's findings so far.
type sectionFinding struct {
	key, title, text string
}

// sectionFindings are the merged findings of each section, in report
// order: keyed by the part's ID (or a loose follow-up's own).
func (l *loop) sectionFindings() []sectionFinding {
	var out []sectionFinding
	at := map[string]int{}
	for _, t := range l.order() {
		if t.Index >= l.mergeAt {
			continue
		}
		mr := l.merged[t.Index]
		if mr == nil {
			continue
		}
		key := l.sectionOf(t)
		if i, ok := at[key]; ok {
			out[i].text += "\n\n" + mr.Text
			continue
		}
		title := t.Title
		if key != t.ID {
			title = l.tasks[l.partIndex(key)].Title
		}
		at[key] = len(out)
		out = append(out, sectionFinding{key: key, title: title, text: mr.Text})
	}
	return out
}

// writeSection writes one section with the writer's model (whose calls
// the run's meter counts).
func (l *loop) writeSection(ctx context.Context, title, findings string, sources []cite.MergedSource) (string, error) {
	text, _, err := finalreport.WriteSection(journal.WithScope(ctx, scopeSection), finalreport.Config{Model: l.model(events.RoleWriter), MaxTokens: l.req.Budget.MaxTokens},
		finalreport.SectionInput{Question: l.req.Question, Title: title, Findings: findings, Sources: sources})
	return text, err
}

// writeSectioned writes the report section by section: it waits for the
// sections (started as their research completed), checks each part's,
// then writes the frame and publishes the whole.
func (l *loop) writeSectioned(ctx context.Context, cfg finalreport.Config, in finalreport.Input) (*finalreport.Report, []agent.Task, error) {
	l.startSections(ctx)
	var parts []finalreport.Part
	var unanswered []string
	for _, f := range l.sectionFindings() {
		text, err := l.sections.result(f.key)
		if err != nil {
			return nil, nil, err
		}
		if l.isPart(f.key) && len(finalreport.CitedIn(text, l.sources)) == 0 {
			unanswered = append(unanswered, f.key)
		}
		parts = append(parts, finalreport.Part{Title: f.title, Text: text})
	}
	if more := l.more(ctx, unanswered); len(more) > 0 {
		return nil, more, nil
	}
	for _, id := range unanswered {
		in.Notices = append(in.Notices, l.unansweredNote(id))
	}
	frame, _, err := finalreport.WriteFrame(ctx, finalreport.Config{Model: cfg.Model}, l.req.Question, parts)
	if err != nil {
		return nil, nil, err
	}
	draft := finalreport.Compose(finalreport.ComposeInput{Frame: frame, Parts: parts, Missing: in.Missing, Notices: in.Notices})
	final, err := finalreport.Stream(cfg, draft, l.sources)
	if err != nil {
		return nil, nil, err
	}
	return final, nil, nil
}
