package httpapi

import (
	"bytes"
	"encoding/xml"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/render"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestSchemasAndFormats: the server serves the JSON report's schema and
// the XML report's, with no token (they say what a report looks like,
// not what a run found); a finished run's JSON report is valid against
// the served JSON schema, its XML report is XML of the documented
// namespace (valid against the served XSD where xmllint is installed),
// and its mermaid form is a flowchart.
func TestSchemasAndFormats(t *testing.T) {
	locked := newEnv(t, envOpts{token: "s3cret-token-for-tests"})
	e := newEnv(t, envOpts{})
	get := func(path, wantType string, auth bool) []byte {
		t.Helper()
		on := e
		if !auth {
			on = locked // no token sent to a server that wants one
		}
		res := on.do("GET", path, "")
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != wantType {
			t.Fatalf("GET %s: %s %q\n%s", path, res.Status, res.Header.Get("Content-Type"), b)
		}
		return b
	}
	schema := get("/v1/schema/report.json", "application/schema+json", false)
	if want, _ := render.Schema(); !bytes.Equal(schema, want) {
		t.Error("the served schema is not render.Schema")
	}
	xsd := get("/v1/schema/report.xsd", "application/xml", false)
	if !bytes.Equal(xsd, render.XMLSchema()) {
		t.Error("the served XSD is not render.XMLSchema")
	}

	s := e.start("How are undersea cables repaired?")
	if _, end := e.events(s.ID, 0); end["status"] != "finished" {
		t.Fatalf("the run ended %v", end)
	}
	base := "/v1/research/" + s.ID + "?format="
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AddResource(render.SchemaID, doc)
	sch, err := c.Compile(render.SchemaID)
	if err != nil {
		t.Fatal(err)
	}
	report, err := jsonschema.UnmarshalJSON(bytes.NewReader(get(base+"json", "application/json", true)))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(report); err != nil {
		t.Errorf("the served JSON report is not valid against the served schema: %v", err)
	}

	x := get(base+"xml", "application/xml", true)
	var root struct {
		XMLName  xml.Name
		OK       bool   `xml:"ok,attr"`
		Question string `xml:"question"`
	}
	if err := xml.Unmarshal(x, &root); err != nil || root.XMLName.Space != "https://github.com/deepresearch/deepresearch/report/v1" ||
		root.XMLName.Local != "report" || !root.OK || root.Question != "How are undersea cables repaired?" {
		t.Errorf("the XML report: %+v, %v\n%s", root, err, x)
	}
	if _, err := exec.LookPath("xmllint"); err == nil {
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "report.xsd"), xsd, 0o600)
		os.WriteFile(filepath.Join(dir, "report.xml"), x, 0o600)
		if msg, err := exec.Command("xmllint", "--noout", "--nonet", "--schema", filepath.Join(dir, "report.xsd"), filepath.Join(dir, "report.xml")).CombinedOutput(); err != nil {
			t.Errorf("xmllint: %v\n%s", err, msg)
		}
	}
	if m := get(base+"mermaid", "text/vnd.mermaid; charset=utf-8", true); !strings.HasPrefix(string(m), "flowchart LR\n") || !strings.Contains(string(m), " --> R1\n") {
		t.Errorf("the mermaid report:\n%s", m)
	}
}
