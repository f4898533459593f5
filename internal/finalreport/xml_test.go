package finalreport

import (
	"bytes"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/render"
)

// TestXML: the XML report carries the JSON document's envelope, blocks,
// references, sources used and sidecar; its untrusted strings (markup,
// quotes, "]]>", control characters) come back as text and nothing else;
// it is valid against report.xsd (checked with xmllint where it is
// installed), and every element and attribute it writes is one the
// schema declares.
func TestXML(t *testing.T) {
	rep, x := envelopeReport(t)
	x.Reason = `the writer said <b>"no"</b> & ]]> left`
	x.Unfinished, x.Retries = true, 2
	const question = "Why <script>alert(1)</script> & \"quotes\" ]]>?\x01"
	doc, err := JSON(question, rep, x)
	if err != nil {
		t.Fatal(err)
	}
	out, err := XML(doc)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "envelope.xml", string(out))
	if bytes.Contains(out, []byte("<script")) || bytes.Contains(out, []byte("<b>")) || bytes.Contains(out, []byte{1}) {
		t.Errorf("untrusted markup or a control character reached the XML:\n%s", out)
	}
	var back xmlReport
	if err := xml.Unmarshal(out, &back); err != nil {
		t.Fatalf("the XML does not parse: %v\n%s", err, out)
	}
	if back.Question != strings.TrimSuffix(question, "\x01")+"\uFFFD" || back.Reason != doc.Reason || back.Content != doc.Content {
		t.Errorf("strings did not come back: question %q, reason %q", back.Question, back.Reason)
	}
	if back.OK || back.Finished || back.Retries != 2 || back.Format != "markdown" {
		t.Errorf("envelope %+v", back)
	}
	if back.Blocks == nil || back.References == nil || back.Sources == nil || back.Citations == nil {
		t.Fatalf("a list is missing:\n%s", out)
	}
	if len(back.Blocks.Items) != len(doc.Blocks) || len(back.References.Items) != len(doc.References) || len(back.Sources.Items) != len(doc.SourcesUsed) || len(back.Citations.Items) != len(doc.Citations) {
		t.Fatalf("%d blocks, %d references, %d sources, %d claims; want %d, %d, %d, %d", len(back.Blocks.Items), len(back.References.Items), len(back.Sources.Items),
			len(back.Citations.Items), len(doc.Blocks), len(doc.References), len(doc.SourcesUsed), len(doc.Citations))
	}
	for i, b := range back.Blocks.Items {
		if b.Text != doc.Blocks[i] || b.Index != i {
			t.Errorf("block %d = %+v, want %q", i, b, doc.Blocks[i])
		}
	}
	if c := back.Citations.Items[0]; c.Path != doc.Citations[0].Path || c.SIDs != "1 2 3" || !slices.Equal(doc.Citations[0].SIDs, []int{1, 2, 3}) {
		t.Errorf("claim %+v, want %+v", c, doc.Citations[0])
	}
	for i, s := range back.Sources.Items {
		if s.Usage != slices.Contains(doc.UsageSIDs, s.SID) || s.Cited != doc.SourcesUsed[i].Cited {
			t.Errorf("source %+v: usage or cited wrong", s)
		}
	}
	checkDeclared(t, out)
	if _, err := exec.LookPath("xmllint"); err != nil {
		t.Log("xmllint is not installed: report.xsd is checked by its declarations only")
		return
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "report.xml")
	os.WriteFile(file, out, 0o600)
	if msg, err := exec.Command("xmllint", "--noout", "--nonet", "--schema", "../../render/report.xsd", file).CombinedOutput(); err != nil {
		t.Errorf("xmllint: %v\n%s", err, msg)
	}
}

// checkDeclared walks doc and fails on an element or attribute that
// report.xsd does not declare by name.
func checkDeclared(t *testing.T, doc []byte) {
	t.Helper()
	declared := map[string]bool{"xmlns": true}
	d := xml.NewDecoder(bytes.NewReader(render.XMLSchema()))
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		if se, ok := tok.(xml.StartElement); ok && (se.Name.Local == "element" || se.Name.Local == "attribute") {
			for _, a := range se.Attr {
				if a.Name.Local == "name" {
					declared[a.Value] = true
				}
			}
		}
	}
	d = xml.NewDecoder(bytes.NewReader(doc))
	for {
		tok, err := d.Token()
		if err != nil {
			break
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if se.Name.Space != XMLNamespace || !declared[se.Name.Local] {
			t.Errorf("element {%s}%s is not declared in report.xsd", se.Name.Space, se.Name.Local)
		}
		for _, a := range se.Attr {
			if !declared[a.Name.Local] {
				t.Errorf("attribute %s of <%s> is not declared in report.xsd", a.Name.Local, se.Name.Local)
			}
		}
	}
}

// TestXMLEmpty: a report that cites nothing (no blocks, references,
// sources or claims) leaves out the lists it has nothing for, as
// report.xsd wants (a list element, when present, holds at least one
// item), and stays valid.
func TestXMLEmpty(t *testing.T) {
	doc, err := JSON("Q?", &Report{}, Extra{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := XML(doc)
	if err != nil {
		t.Fatal(err)
	}
	for _, list := range []string{"blocks", "references", "sources_used", "citations"} {
		if bytes.Contains(out, []byte("<"+list+">")) || bytes.Contains(out, []byte("<"+list+"/>")) {
			t.Errorf("an empty <%s>:\n%s", list, out)
		}
	}
	checkDeclared(t, out)
	if _, err := exec.LookPath("xmllint"); err != nil {
		return
	}
	file := filepath.Join(t.TempDir(), "report.xml")
	os.WriteFile(file, out, 0o600)
	if msg, err := exec.Command("xmllint", "--noout", "--nonet", "--schema", "../../render/report.xsd", file).CombinedOutput(); err != nil {
		t.Errorf("xmllint: %v\n%s", err, msg)
	}
}
