package purpose

import (
	"context"
	"testing"
)

func TestWithOf(t *testing.T) {
	tests := []struct {
		name string
		ctx  context.Context
		want Purpose
	}{
		{"unmarked", context.Background(), ""},
		{"marked", With(context.Background(), Planner), Planner},
		{"inner mark wins", With(With(context.Background(), Planner), Writer), Writer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Of(tt.ctx); got != tt.want {
				t.Errorf("Of = %q, want %q", got, tt.want)
			}
		})
	}
}
