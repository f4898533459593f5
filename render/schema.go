package render

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	_ "embed"

	"github.com/google/jsonschema-go/jsonschema"
)

// SchemaID is the $id of the JSON report's schema (Schema).
const SchemaID = "https://github.com/deepresearch/deepresearch/report/v1/report.schema.json"

// Schema returns the JSON Schema (draft 2020-12) of the JSON report
// (JSON, Document; the YAML report is the same document): made
// from the Go type the report is written from, so that the two cannot
// drift apart. Every field the renderer always writes is required;
// objects allow no properties they do not declare. `deepresearch run
// --json-schema` prints it and the HTTP API serves it at GET
// /v1/schema/report.json.
func Schema() ([]byte, error) {
	reportSchema.once.Do(func() { reportSchema.b, reportSchema.err = makeReportSchema() })
	return slices.Clone(reportSchema.b), reportSchema.err
}

var reportSchema struct {
	once sync.Once
	b    []byte
	err  error
}

func makeReportSchema() ([]byte, error) {
	s, err := jsonschema.For[Document](nil)
	if err != nil {
		return nil, fmt.Errorf("deepresearch: report schema: %w", err)
	}
	optionalEmbedded(reflect.TypeFor[Document](), s)
	s.Schema = "https://json-schema.org/draft/2020-12/schema"
	s.ID = SchemaID
	s.Title = "deepresearch report"
	s.Description = "A deepresearch report as structured data: its blocks, references, the sources it used, " +
		"stats, a citation sidecar (_citations: JSON Pointers to blocks with the reference numbers each cites) " +
		"and seed 001's envelope (ok, content, format, finished, retries, reason)."
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("deepresearch: report schema: %w", err)
	}
	return append(b, '\n'), nil
}

// XMLSchema returns the XML Schema (XSD 1.0) that the XML report (XML)
// is valid against: every element and attribute, its type and whether it
// is optional. `deepresearch run --xml-schema` prints it.
func XMLSchema() []byte { return slices.Clone(xmlSchema) }

// xmlSchema is XMLSchema's document.
//
//go:embed report.xsd
var xmlSchema []byte

// optionalEmbedded makes optional, in s (the schema of t), the fields
// promoted from an embedded struct pointer: encoding/json writes none of
// them when the pointer is nil, which jsonschema.For does not know.
func optionalEmbedded(t reflect.Type, s *jsonschema.Schema) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s == nil {
		return
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		optionalEmbedded(t.Elem(), s.Items)
	case reflect.Map:
		optionalEmbedded(t.Elem(), s.AdditionalProperties)
	case reflect.Struct:
		for _, f := range reflect.VisibleFields(t) {
			if !f.IsExported() || len(f.Index) > 1 {
				continue // promoted fields are handled with their embedder
			}
			if f.Anonymous {
				ft := f.Type
				if ft.Kind() == reflect.Pointer && ft.Elem().Kind() == reflect.Struct {
					for _, pf := range reflect.VisibleFields(ft.Elem()) {
						name := jsonName(pf)
						s.Required = slices.DeleteFunc(s.Required, func(r string) bool { return r == name })
					}
				}
				optionalEmbedded(ft, s) // its fields' own types
				continue
			}
			optionalEmbedded(f.Type, s.Properties[jsonName(f)])
		}
	}
}

// jsonName is the name encoding/json gives field f.
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "" {
		return f.Name
	}
	return name
}
