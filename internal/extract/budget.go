package extract

import (
	"context"
	"fmt"
)

// budget is what one ExtractBytes call may still produce, and the context
// it runs under. A reader spends from it as it builds each cell, row,
// paragraph, title or slide, before it keeps what it built, so a small
// file that references one long string a million times fails when the
// output passes Limits.MaxText, not after it was built; and it looks at
// the context every checkEvery steps (an XML token, a row), so a slow
// file stops when the caller's time is up.
//
// A budget belongs to one call; it is not safe for concurrent use.
type budget struct {
	ctx   context.Context
	limit int // Limits.MaxText
	left  int
	steps int
}

// unitCost is what each block, heading, header row or slide costs besides
// its text: about what keeping it costs (a block, its location, the
// passage Split makes of it). It bounds a file of many tiny rows the way
// MaxText bounds one of long ones.
const unitCost = 64

// checkEvery is how many steps pass between two looks at the context.
const checkEvery = 256

func newBudget(ctx context.Context, limit int) *budget {
	return &budget{ctx: ctx, limit: limit, left: limit}
}

// spend takes n bytes from the budget and reports whether they were
// there; where is what is being read, for the error (see over).
func (b *budget) spend(n int) bool {
	b.left -= n
	return b.left >= 0
}

// take is spend that returns the error over(where) when the budget is
// spent, and the context's error, now and then.
func (b *budget) take(n int, where string) error {
	if !b.spend(n) {
		return b.over(where)
	}
	return b.step(where)
}

// over is the error of a budget spent while reading where.
func (b *budget) over(where string) error {
	return fmt.Errorf("%w: %s: more than %d bytes of text", ErrTooLarge, where, b.limit)
}

// step counts one step of work and, every checkEvery steps, returns the
// context's cause, wrapped with where, if the context is done.
func (b *budget) step(where string) error {
	b.steps++
	if b.steps%checkEvery != 0 {
		return nil
	}
	return b.alive(where)
}

// alive returns the context's cause, wrapped with where, if the context
// is done.
func (b *budget) alive(where string) error {
	if b.ctx.Err() == nil {
		return nil
	}
	return fmt.Errorf("stopped reading %s: %w", where, context.Cause(b.ctx))
}
