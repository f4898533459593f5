package extract

import (
	"strings"
	"testing"

	xhtml "golang.org/x/net/html"
)

func TestPageDates(t *testing.T) {
	const body = `<body><article><h1>T</h1><p>Text.</p>%s</article></body>`
	page := func(head, inArticle string) string {
		return "<html><head>" + head + "</head>" + strings.Replace(body, "%s", inArticle, 1) + "</html>"
	}
	tests := []struct {
		name                string
		html                string
		published, modified string
	}{
		{"open graph article tags", page(`<meta property="article:published_time" content="2024-03-15T09:30:00+01:00">
<meta property="article:modified_time" content="2024-04-01T12:00:00Z">`, ""), "2024-03-15T09:30:00+01:00", "2024-04-01T12:00:00Z"},
		{"og:updated_time", page(`<meta property="og:updated_time" content="2024-05-06T07:08:09+0000">`, ""), "", "2024-05-06T07:08:09Z"},
		{"JSON-LD before meta tags", page(`<meta property="article:published_time" content="2020-01-01">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","datePublished":"2024-03-15","dateModified":"2024-03-16T10:00:00Z"}</script>`, ""), "2024-03-15", "2024-03-16T10:00:00Z"},
		{"JSON-LD graph", page(`<script type="application/ld+json">{"@context":"https://schema.org","@graph":[{"@type":"WebSite","name":"S"},{"@type":"BlogPosting","datePublished":"2023-07-01T08:00:00-04:00"}]}</script>`, ""), "2023-07-01T08:00:00-04:00", ""},
		{"JSON-LD array", page(`<script type="application/ld+json">[{"@type":"Organization"},{"@type":"Article","dateModified":"2022-02-02"}]</script>`, ""), "", "2022-02-02"},
		{"broken JSON-LD is passed over", page(`<script type="application/ld+json">{"datePublished": "2024-</script><meta name="date" content="2021-06-07">`, ""), "2021-06-07", ""},
		{"microdata", page(`<meta itemprop="datePublished" content="2019-09-09"><meta itemprop="dateModified" content="2019-10-10">`, ""), "2019-09-09", "2019-10-10"},
		{"dublin core", page(`<meta name="DCTERMS.issued" content="2018-08-08"><meta name="dcterms.modified" content="2018-09-09">`, ""), "2018-08-08", "2018-09-09"},
		{"time marked pubdate", page("", `<time datetime="2017-01-02">Jan 2</time><time pubdate datetime="2017-03-04T05:06:07Z">March</time>`), "2017-03-04T05:06:07Z", ""},
		{"time in the article", page("", `<time datetime="2016-06-16">June</time>`), "2016-06-16", ""},
		{"time text without datetime", page("", `<time>March 15, 2024</time>`), "2024-03-15", ""},
		{"time itemprop dateModified", page("", `<time itemprop="dateModified" datetime="2015-05-05">x</time>`), "", "2015-05-05"},
		{"meta beats time", page(`<meta property="article:published_time" content="2014-04-04">`, `<time datetime="2013-03-03">x</time>`), "2014-04-04", ""},
		{"garbage values are skipped", page(`<meta property="article:published_time" content="yesterday"><meta name="date" content="2012-12-12">`, ""), "2012-12-12", ""},
		{"none", page(`<meta name="description" content="2012-12-12 is not a date tag">`, ""), "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := xhtml.Parse(strings.NewReader(tt.html))
			if err != nil {
				t.Fatal(err)
			}
			p, m := PageDates(doc)
			if p != tt.published || m != tt.modified {
				t.Errorf("PageDates = %q, %q; want %q, %q", p, m, tt.published, tt.modified)
			}
		})
	}
}

// TestReadableArticleDates: the dates come with the text, and without it
// when the page has none.
func TestReadableArticleDates(t *testing.T) {
	html := strings.Replace(readableArticle, "<title>", `<meta property="article:published_time" content="2024-03-15T10:00:00Z"><title>`, 1)
	a, err := ReadableArticle([]byte(html), "https://example.com/cables")
	if err != nil || a.Published != "2024-03-15T10:00:00Z" || !strings.Contains(a.Text, "grappling the cable") {
		t.Fatalf("ReadableArticle = %+v, %v", a, err)
	}
	a, err = ReadableArticle([]byte(`<html><head><meta name="date" content="2020-02-02"></head><body></body></html>`), "")
	if err == nil || a.Published != "2020-02-02" || a.Text != "" {
		t.Errorf("a page without text: %+v, %v", a, err)
	}
}
