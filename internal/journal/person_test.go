package journal

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

// durableMem is a MemLog that counts the entries appended durably.
type durableMem struct {
	MemLog
	durable int
}

func (l *durableMem) AppendDurable(ctx context.Context, run string, entry []byte) error {
	l.durable++
	return l.Append(ctx, run, entry)
}

// TestAskJournalsAPersonsAnswer: a person's answer is journaled (durably,
// with when the question was first put) and answered again from the
// journal by a resumed attempt, which asks nobody; a question that failed
// to be answered keeps the time it was first put; offline, an unanswered
// question is asked and nothing recorded.
func TestAskJournalsAPersonsAnswer(t *testing.T) {
	t0 := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	now := t0
	clock := func() time.Time { return now }
	log := &durableMem{}
	open := func(opts Options) (context.Context, *Journal) {
		t.Helper()
		j, err := Open(t.Context(), log, "r1", opts)
		if err != nil {
			t.Fatal(err)
		}
		return WithScope(NewContext(t.Context(), j), "person/clarify"), j
	}
	question := []string{"Which cable?", "Which ocean?"}

	// First attempt: the person does not answer (the process stops).
	ctx, _ := open(Options{Log: log, Clock: clock})
	stopped := errors.New("stopped")
	if _, err := Ask(ctx, question, func(asked time.Time) ([]string, error) {
		if !asked.Equal(t0) {
			t.Errorf("first asked at %v, want %v", asked, t0)
		}
		return nil, stopped
	}); !errors.Is(err, stopped) {
		t.Fatalf("err %v", err)
	}

	// Second attempt, an hour later: asked since t0; the person answers.
	now = t0.Add(time.Hour)
	ctx, _ = open(Options{Log: log, Clock: clock})
	got, err := Ask(ctx, question, func(asked time.Time) ([]string, error) {
		if !asked.Equal(t0) {
			t.Errorf("asked again at %v, want the first time %v", asked, t0)
		}
		return []string{"telegraph", "the Atlantic"}, nil
	})
	if err != nil || !slices.Equal(got, []string{"telegraph", "the Atlantic"}) {
		t.Fatalf("Ask = %q, %v", got, err)
	}
	if log.durable != 2 {
		t.Errorf("%d entries appended durably, want 2 (asked, answer)", log.durable)
	}

	// Third attempt: answered from the journal, nobody asked; a second
	// identical question in the scope is another occurrence, asked.
	ctx, j := open(Options{Log: log, Clock: clock})
	got, err = Ask(ctx, question, func(time.Time) ([]string, error) {
		t.Error("asked a question the journal answers")
		return nil, nil
	})
	if err != nil || !slices.Equal(got, []string{"telegraph", "the Atlantic"}) {
		t.Fatalf("replayed Ask = %q, %v", got, err)
	}
	if s := j.Stats(); s.Replayed != 1 || s.Unused != 0 {
		t.Errorf("stats %+v", s)
	}
	// Answered, in a fresh attempt, takes the answer without asking.
	actx, _ := open(Options{Log: log, Clock: clock})
	if got, ok, err := Answered[[]string](actx, question); err != nil || !ok || got[1] != "the Atlantic" {
		t.Errorf("Answered = %q, %v, %v", got, ok, err)
	}
	if _, ok, _ := Answered[[]string](WithScope(actx, "person/other"), question); ok {
		t.Error("Answered found an answer in another scope")
	}
	asked := false
	if _, err := Ask(ctx, question, func(time.Time) ([]string, error) { asked = true; return []string{"x"}, nil }); err != nil || !asked {
		t.Errorf("the second occurrence: asked %v, err %v", asked, err)
	}

	// Offline, another scope: asked, nothing recorded.
	before := len(log.runs["r1"])
	ctx, _ = open(Options{Offline: true, Clock: clock})
	ctx = WithScope(ctx, "person/review")
	if got, err := Ask(ctx, question, func(time.Time) ([]string, error) { return []string{"y"}, nil }); err != nil || got[0] != "y" {
		t.Errorf("offline Ask = %q, %v", got, err)
	}
	if n := len(log.runs["r1"]); n != before {
		t.Errorf("offline, the journal grew from %d entries to %d", before, n)
	}

	// Outside a run: asked, with no time.
	if _, err := Ask(t.Context(), question, func(asked time.Time) (int, error) {
		if !asked.IsZero() {
			t.Errorf("asked %v outside a run", asked)
		}
		return 1, nil
	}); err != nil {
		t.Fatal(err)
	}
}
