package finalreport

import (
	"strings"
	"testing"
)

// The page a PDF is printed from: the report's fragment with verdicts, in
// a page that forbids every outside resource, titled and escaped, with
// print rules for A4 and a Verification section that says what DOCX says.
func TestPrintHTML(t *testing.T) {
	r := &Report{Body: docxBody + "\n![chart](https://example.org/chart.png)\n", References: renderRefs()}
	page, err := PrintHTML("Prices & <wages>", r, docxVerified())
	if err != nil {
		t.Fatal(err)
	}
	frag, _ := HTMLFragment(r, HTMLOptions{Verified: docxVerified()})
	for _, want := range []string{
		`<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'">`,
		"<title>Prices &amp; &lt;wages&gt;</title>",
		`<h1 class="title">Prices &amp; &lt;wages&gt;</h1>`,
		"@page{size:A4;",
		frag,
		"<h2>Verification</h2>\n<p>5 citations checked against the text of their sources (judged by lexical): 4 supported, 1 unsupported, 0 fabricated; support score 80%.</p>",
		"<li>Line 3, warning (unsupported): [3] does not support the sentence Fix: cite another source</li>",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s:\n%s", want, page)
		}
	}
	if strings.Contains(page, "<script") {
		t.Errorf("the page carries the report's raw HTML")
	}
	page, err = PrintHTML("Q", &Report{Body: "Nothing [1].\n", References: renderRefs()[:1]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page, "<p>The citations of this report were not checked against their sources.</p>") {
		t.Errorf("an unverified report does not say so:\n%s", page)
	}
	// A report that opens with the question as its heading is not titled
	// twice.
	page, err = PrintHTML("Why & how?", &Report{Body: "# Why & how?\n\nBecause [1].\n", References: renderRefs()[:1]}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(page, "<h1"); n != 1 || !strings.Contains(page, "<body>\n<main>\n<h1>Why &amp; how?</h1>") {
		t.Errorf("%d first-level headings:\n%s", n, page)
	}
}
