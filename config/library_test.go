package config_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/config"
	"github.com/deepresearch/deepresearch/render"
	"github.com/deepresearch/deepresearch/runstore"
)

// TestRunsOptions: the serve.* limits map onto RunsOptions for every
// serving front end; only the HTTP server (OriginServer) re-checks its
// stored reports every recheck.every.
func TestRunsOptions(t *testing.T) {
	s := config.Defaults()
	s.Serve.MaxRuns, s.Serve.RunTimeout, s.Serve.MaxResumes = 3, 7*time.Minute, 2
	s.Serve.PlanTimeout, s.Serve.PlanTimeoutAction = 90*time.Second, "cancel"
	s.Recheck.Every = 24 * time.Hour
	log := zerolog.Nop()
	for _, tt := range []struct {
		origin  string
		recheck time.Duration
	}{
		{runstore.OriginServer, 24 * time.Hour},
		{runstore.OriginCLI, 0},
	} {
		t.Run(tt.origin, func(t *testing.T) {
			got := config.RunsOptions(s, tt.origin, &log)
			want := deepresearch.RunsOptions{MaxRuns: 3, RunTimeout: 7 * time.Minute, MaxResumes: 2, ReviewTimeout: 90 * time.Second,
				OnReviewTimeout: deepresearch.TimeoutCancel, Origin: tt.origin, Logger: &log, RecheckEvery: tt.recheck}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("RunsOptions(%s) = %+v\nwant %+v", tt.origin, got, want)
			}
		})
	}
}

// TestRenderOptions: output.chromium is the browser PDFs are printed with.
func TestRenderOptions(t *testing.T) {
	s := config.Defaults()
	s.Output.Chromium = "/opt/chromium/chrome"
	if got := config.RenderOptions(s); got != (render.Options{Chromium: "/opt/chromium/chrome"}) {
		t.Errorf("RenderOptions = %+v", got)
	}
}
