package deepresearch_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/deepresearch/deepresearch"
	"github.com/deepresearch/deepresearch/render"
)

// reportValidator compiles render.Schema with an independent validator
// (santhosh-tekuri/jsonschema, draft 2020-12), not the library that
// wrote it.
func reportValidator(t *testing.T) *jsonschema.Schema {
	t.Helper()
	b, err := render.Schema()
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(render.SchemaID, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(render.SchemaID)
	if err != nil {
		t.Fatalf("the report schema does not compile: %v", err)
	}
	return sch
}

// checkAgainstSchema validates rep's JSON report, and what its YAML
// report decodes to, against the schema.
func checkAgainstSchema(t *testing.T, sch *jsonschema.Schema, rep *deepresearch.Report) {
	t.Helper()
	js, err := rep.Render(render.JSON)
	if err != nil {
		t.Fatal(err)
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("the JSON report is not valid against its schema: %v", err)
	}
	ym, err := rep.Render(render.YAML)
	if err != nil {
		t.Fatal(err)
	}
	var fromYAML any
	if err := yaml.Unmarshal(ym, &fromYAML); err != nil {
		t.Fatal(err)
	}
	// YAML decodes numbers as int and float64: through JSON, as the
	// validator reads them.
	round, _ := json.Marshal(fromYAML)
	v, err = jsonschema.UnmarshalJSON(bytes.NewReader(round))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(v); err != nil {
		t.Errorf("the YAML report is not valid against the schema: %v", err)
	}
}

// TestReportSchema: the schema made from the report's Go type agrees
// with the reports the renderer writes — a finished, verified run's, one
// with usage tags and relevance judgements, a failed writer's findings —
// and it is strict: a report with a field it does not declare, or
// without one it requires, or with a field of the wrong type, is
// invalid.
func TestReportSchema(t *testing.T) {
	sch := reportValidator(t)
	r := newResearcher(t, deepresearch.Config{})
	rep, err := runWith(t.Context(), r, question, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Verification == nil || len(rep.References) == 0 {
		t.Fatal("want a verified report with references")
	}
	checkAgainstSchema(t, sch, rep)

	failed, err := runWith(t.Context(), newResearcher(t, deepresearch.Config{Model: writerDown(), MaxRetries: -1}), question, nil)
	if err == nil {
		t.Fatal("the writer's failure failed nothing")
	}
	checkAgainstSchema(t, sch, failed)

	js, err := rep.Render(render.JSON)
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		name string
		edit func(m map[string]any)
		want string
	}{
		{"an undeclared field", func(m map[string]any) { m["surprise"] = 1 }, "surprise"},
		{"no ok", func(m map[string]any) { delete(m, "ok") }, "ok"},
		{"retries as a string", func(m map[string]any) { m["retries"] = "2" }, "retries"},
		{"a reference without a number", func(m map[string]any) {
			delete(m["references"].([]any)[0].(map[string]any), "number")
		}, "number"},
	} {
		var m map[string]any
		json.Unmarshal(js, &m)
		bad.edit(m)
		b, _ := json.Marshal(m)
		v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err := sch.Validate(v); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%s: %v; want an error naming %q", bad.name, err, bad.want)
		}
	}
}
