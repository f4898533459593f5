package journal

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// personDomain is the domain of a person's question key (PersonKey).
const personDomain = "deepresearch/journal/person/1\n"

// A run may wait for a person: its clarifying questions, its plan put to
// review. What the person answered is as much a completed part of the run
// as a model's answer, and harder to get again (the person may be gone),
// so it is journaled the same way: a question is found by its scope, its
// key (the hash of the question as JSON) and its occurrence, and a
// resumed or replayed run is answered from the journal without asking
// again. When the question was first put is journaled too (a KindAsked
// entry, written before the person is asked), so that a deadline for the
// answer runs from then, across restarts.
//
// Both entries are appended durably — committed before Ask goes on, not
// merely queued — when the Log can (DurableLog): a person's answer that a
// front end has acknowledged must not be lost with the process.

// DurableLog is a Log that can append an entry and wait for its commit
// even where Append only queues it. A person's entries (Ask) are appended
// with it.
type DurableLog interface {
	Log
	AppendDurable(ctx context.Context, run string, entry []byte) error
}

// PersonKey is the key of a question put to a person: the hex SHA-256 of
// its JSON form (encoding/json's: struct fields in order, map keys
// sorted).
func PersonKey(question any) (string, error) {
	b, err := json.Marshal(question)
	if err != nil {
		return "", fmt.Errorf("journal: person key: %w", err)
	}
	h := sha256.New()
	h.Write([]byte(personDomain))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Ask answers question, put to a person in ctx's scope, from the journal
// in ctx when an earlier attempt of the run journaled an answer to it;
// otherwise it calls ask and journals the answer it returns (an error is
// returned as it is and journals nothing: the question is put again by a
// resumed run). ask is given when the question was first put: the time an
// earlier attempt journaled, or now (journaled before ask is called); the
// zero time when ctx carries no journal. Offline, a question the journal
// holds no answer to is asked, not failed, and nothing is recorded.
//
// The answer is journaled as its JSON form and decoded into T when
// replayed, so T must survive JSON. An answer that cannot be journaled is
// told to Hooks.AppendFailed and returned all the same, like a call's.
func Ask[T any](ctx context.Context, question any, ask func(asked time.Time) (T, error)) (T, error) {
	var zero T
	j := FromContext(ctx)
	if j == nil {
		return ask(time.Time{})
	}
	key, err := PersonKey(question)
	if err != nil {
		return zero, err
	}
	answer, askedAt, n := j.person(ScopeOf(ctx), key)
	if answer != nil {
		var v T
		if err := json.Unmarshal(answer.Person.Answer, &v); err != nil {
			return zero, fmt.Errorf("journal: run %s: the answer journaled in %s: %w", j.run, answer.Scope, err)
		}
		return v, nil
	}
	scope := ScopeOf(ctx)
	keep := j.opts.Log != nil && !j.opts.Offline
	asked := j.opts.Clock()
	if askedAt != nil {
		asked = askedAt.Time
	} else if keep {
		j.appendPerson(ctx, Entry{Kind: KindAsked, Scope: scope, Key: key, N: n, Time: asked, Person: &PersonRecord{}})
	}
	v, err := ask(asked)
	if err != nil {
		return zero, err
	}
	if keep {
		b, err := marshal(v)
		if err != nil {
			return zero, fmt.Errorf("journal: run %s: encode the answer: %w", j.run, err)
		}
		j.appendPerson(ctx, Entry{Kind: KindAnswer, Scope: scope, Key: key, N: n, Time: j.opts.Clock(), Person: &PersonRecord{Answer: b}})
	}
	return v, nil
}

// person numbers a question of key in scope and returns the answer and
// the asked entry an earlier attempt journaled for it (either may be
// nil), and its occurrence.
func (j *Journal) person(scope, key string) (answer, asked *Entry, n int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	base := Ref{Scope: scope, Kind: KindAnswer, Key: key}
	n = j.seen[base]
	j.seen[base] = n + 1
	ref := base
	ref.N = n
	if e, ok := j.index[ref]; ok {
		j.used[ref] = true
		j.stats.Replayed++
		answer = e
	}
	ref.Kind = KindAsked
	if e, ok := j.index[ref]; ok {
		j.used[ref] = true
		asked = e
	}
	return answer, asked, n
}

// appendPerson appends e durably when the Log can (DurableLog); a failure
// is told to Hooks.AppendFailed.
func (j *Journal) appendPerson(ctx context.Context, e Entry) {
	b, err := Encode(e)
	if err == nil {
		ctx := context.WithoutCancel(ctx)
		if d, ok := j.opts.Log.(DurableLog); ok {
			err = d.AppendDurable(ctx, j.run, b)
		} else {
			err = j.opts.Log.Append(ctx, j.run, b)
		}
	}
	if err != nil {
		if f := j.opts.Hooks.AppendFailed; f != nil {
			f(&AppendError{Kind: e.Kind, Scope: e.Scope, Err: err})
		}
		return
	}
	j.mu.Lock()
	j.stats.Recorded++
	j.mu.Unlock()
}

// Answered returns the answer an earlier attempt journaled to question,
// put to a person in ctx's scope, and true; false when the journal holds
// none (or ctx carries no journal). It asks nobody and records nothing,
// but counts the question as Ask does, so that a run resumed where nobody
// can answer (off a terminal) still takes the answers given before.
func Answered[T any](ctx context.Context, question any) (T, bool, error) {
	var zero T
	j := FromContext(ctx)
	if j == nil {
		return zero, false, nil
	}
	key, err := PersonKey(question)
	if err != nil {
		return zero, false, err
	}
	answer, _, _ := j.person(ScopeOf(ctx), key)
	if answer == nil {
		return zero, false, nil
	}
	var v T
	if err := json.Unmarshal(answer.Person.Answer, &v); err != nil {
		return zero, false, fmt.Errorf("journal: run %s: the answer journaled in %s: %w", j.run, answer.Scope, err)
	}
	return v, true, nil
}
