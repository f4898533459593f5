package finalreport

import (
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
)

// XMLNamespace is the namespace of the XML report (XML), which
// render.XMLSchema defines.
const XMLNamespace = "https://github.com/deepresearch/deepresearch/report/v1"

// The XML report's elements, in the order report.xsd declares them.
type (
	xmlReport struct {
		XMLName  xml.Name `xml:"report"`
		NS       string   `xml:"xmlns,attr"`
		RunID    string   `xml:"run_id,attr,omitempty"`
		OK       bool     `xml:"ok,attr"`
		Finished bool     `xml:"finished,attr"`
		Format   string   `xml:"format,attr"`
		Retries  int      `xml:"retries,attr"`
		Question string   `xml:"question"`
		Reason   string   `xml:"reason,omitempty"`
		Content  string   `xml:"content"`
		// The lists are left out when empty, as report.xsd wants: a list
		// element holds at least one item (encoding/xml writes the
		// parent of "a>b" for an empty slice, omitempty or not).
		Blocks     *xmlBlocks     `xml:"blocks"`
		References *xmlReferences `xml:"references"`
		Sources    *xmlSources    `xml:"sources_used"`
		Stats      xmlStats       `xml:"stats"`
		Citations  *xmlClaims     `xml:"citations"`
	}
	xmlBlocks struct {
		Items []xmlBlock `xml:"block"`
	}
	xmlReferences struct {
		Items []xmlReference `xml:"reference"`
	}
	xmlSources struct {
		Items []xmlUsedSource `xml:"source"`
	}
	xmlClaims struct {
		Items []xmlClaim `xml:"claim"`
	}
	xmlBlock struct {
		Index int    `xml:"index,attr"`
		Text  string `xml:",chardata"`
	}
	xmlReference struct {
		Number       int           `xml:"number,attr"`
		ID           string        `xml:"id,attr"`
		URL          string        `xml:"url,attr,omitempty"`
		CanonicalURL string        `xml:"canonical_url,attr,omitempty"`
		Type         string        `xml:"type,attr"`
		Channel      string        `xml:"channel,attr,omitempty"`
		Published    string        `xml:"published,attr,omitempty"`
		Modified     string        `xml:"modified,attr,omitempty"`
		Tier         string        `xml:"tier,attr,omitempty"`
		TextSHA256   string        `xml:"text_sha256,attr,omitempty"`
		Title        string        `xml:"title"`
		Locations    []xmlLocation `xml:"location"`
	}
	xmlLocation struct {
		Kind  string `xml:"kind,attr"`
		Value string `xml:"value,attr"`
		Part  string `xml:"part,attr,omitempty"`
	}
	xmlUsedSource struct {
		SID        int      `xml:"sid,attr"`
		URL        string   `xml:"url,attr,omitempty"`
		Type       string   `xml:"type,attr"`
		Cited      bool     `xml:"cited,attr"`
		Usage      bool     `xml:"usage,attr"`
		Published  string   `xml:"published,attr,omitempty"`
		Modified   string   `xml:"modified,attr,omitempty"`
		ORelevance *float64 `xml:"o_relevance,attr,omitempty"`
		Title      string   `xml:"title"`
		Text       string   `xml:"text"`
		Reasoning  string   `xml:"reasoning,omitempty"`
	}
	xmlStats struct {
		Rounds    int    `xml:"rounds,attr"`
		Bytes     int    `xml:"bytes,attr"`
		Citations string `xml:"citations,attr"`
		Validated string `xml:"validated,attr"`
	}
	xmlClaim struct {
		Path string `xml:"path,attr"`
		SIDs string `xml:"sids,attr"`
	}
)

// XML renders doc as an XML document of the namespace XMLNamespace, valid
// against render.XMLSchema: the JSON document's envelope as attributes of
// <report>, its question, reason and content, its blocks, references,
// sources used (a source a usage tag named has usage="true"), stats and
// citation sidecar (<claim path="/blocks/1" sids="1 2"/>, the same JSON
// Pointers into the JSON document); a list with no item is left out.
// Every string is the document's, and
// untrusted (model, corpus and web text): encoding/xml escapes it as
// character data or attribute values, and a character XML 1.0 cannot
// hold (most C0 controls, U+FFFE, U+FFFF) is written as U+FFFD.
func XML(doc *Document) ([]byte, error) {
	x := xmlReport{NS: XMLNamespace, RunID: doc.RunID, OK: doc.OK, Finished: doc.Finished, Format: doc.Format, Retries: doc.Retries,
		Question: doc.Question, Reason: doc.Reason, Content: doc.Content,
		Stats: xmlStats{Rounds: doc.Stats.Rounds, Bytes: doc.Stats.Bytes, Citations: doc.Stats.Citations, Validated: doc.Stats.Validated}}
	var (
		blocks     []xmlBlock
		references []xmlReference
		sources    []xmlUsedSource
		claims     []xmlClaim
	)
	for i, b := range doc.Blocks {
		blocks = append(blocks, xmlBlock{Index: i, Text: b})
	}
	for _, ref := range doc.References {
		r := xmlReference{Number: ref.Number, ID: ref.ID, URL: ref.URL, CanonicalURL: ref.CanonicalURL, Type: ref.Type(),
			Channel: ref.Channel, Published: ref.Published, Modified: ref.Modified, Tier: ref.Tier, Title: ref.Label()}
		if ref.Checked != nil {
			r.TextSHA256 = ref.TextSHA256
		}
		for _, l := range ref.Locations {
			r.Locations = append(r.Locations, xmlLocation{Kind: l.Kind, Value: l.Value, Part: l.Part})
		}
		references = append(references, r)
	}
	usage := map[int]bool{}
	for _, sid := range doc.UsageSIDs {
		usage[sid] = true
	}
	for _, s := range doc.SourcesUsed {
		u := xmlUsedSource{SID: s.SID, URL: s.URL, Type: s.Type, Cited: s.Cited, Usage: usage[s.SID],
			Published: s.Published, Modified: s.Modified, Title: s.Title, Text: s.Text}
		if s.Relevance != nil {
			o := s.Objective
			u.ORelevance, u.Reasoning = &o, s.Reasoning
		}
		sources = append(sources, u)
	}
	for _, c := range doc.Citations {
		sids := make([]string, len(c.SIDs))
		for i, n := range c.SIDs {
			sids[i] = strconv.Itoa(n)
		}
		claims = append(claims, xmlClaim{Path: c.Path, SIDs: strings.Join(sids, " ")})
	}
	if len(blocks) > 0 {
		x.Blocks = &xmlBlocks{blocks}
	}
	if len(references) > 0 {
		x.References = &xmlReferences{references}
	}
	if len(sources) > 0 {
		x.Sources = &xmlSources{sources}
	}
	if len(claims) > 0 {
		x.Citations = &xmlClaims{claims}
	}
	out, err := xml.MarshalIndent(x, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("finalreport: xml: %w", err)
	}
	return append(append([]byte(xml.Header), out...), '\n'), nil
}
