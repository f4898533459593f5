package deepresearch_test

import (
	"encoding/json"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/render"
)

// envelope is seed 001's run contract as the JSON and YAML reports carry
// it.
type envelope struct {
	OK       bool   `json:"ok" yaml:"ok"`
	Content  string `json:"content" yaml:"content"`
	Text     string `json:"text" yaml:"text"`
	Format   string `json:"format" yaml:"format"`
	Finished bool   `json:"finished" yaml:"finished"`
	Retries  int    `json:"retries" yaml:"retries"`
	Reason   string `json:"reason" yaml:"reason"`
}

// envelopeOf reads the envelope of rep's JSON and YAML forms, which must
// agree, each field present in both.
func envelopeOf(t *testing.T, rep *deepresearch.Report) envelope {
	t.Helper()
	js, err := rep.Render(render.JSON)
	if err != nil {
		t.Fatal(err)
	}
	ym, err := rep.Render(render.YAML)
	if err != nil {
		t.Fatal(err)
	}
	var fromJSON, fromYAML envelope
	var keysJSON, keysYAML map[string]any
	if err := json.Unmarshal(js, &fromJSON); err != nil {
		t.Fatal(err)
	}
	json.Unmarshal(js, &keysJSON)
	if err := yaml.Unmarshal(ym, &fromYAML); err != nil {
		t.Fatal(err)
	}
	yaml.Unmarshal(ym, &keysYAML)
	for _, k := range []string{"ok", "content", "format", "finished", "retries", "reason"} {
		if _, ok := keysJSON[k]; !ok {
			t.Errorf("the JSON report has no %q", k)
		}
		if _, ok := keysYAML[k]; !ok {
			t.Errorf("the YAML report has no %q", k)
		}
	}
	if fromJSON != fromYAML {
		t.Errorf("the envelopes differ:\nJSON %+v\nYAML %+v", fromJSON, fromYAML)
	}
	if fromJSON.Content != fromJSON.Text || fromJSON.Format != "markdown" {
		t.Errorf("content is not text, or format %q is not markdown", fromJSON.Format)
	}
	return fromJSON
}

func TestEnvelopeOfFinishedRun(t *testing.T) {
	r := newResearcher(t, deepresearch.Config{})
	rep, err := runWith(t.Context(), r, question, nil)
	if err != nil {
		t.Fatal(err)
	}
	env := envelopeOf(t, rep)
	if !env.OK || !env.Finished || env.Retries != 0 || env.Reason != "" || env.Content == "" {
		t.Errorf("a finished run's envelope: %+v", env)
	}
}

func TestEnvelopeOfFailedWriter(t *testing.T) {
	r := newResearcher(t, deepresearch.Config{Model: writerDown(), MaxRetries: -1})
	rep, err := runWith(t.Context(), r, question, nil)
	if err == nil {
		t.Fatal("the writer's failure failed nothing")
	}
	env := envelopeOf(t, rep)
	if env.OK || env.Finished || env.Retries != 0 || !strings.Contains(env.Reason, "502 bad gateway") {
		t.Errorf("a failed writer's envelope: %+v", env)
	}
	if !strings.Contains(env.Content, "[1]") {
		t.Errorf("the content is not the findings: %q", env.Content)
	}
}
