package extractive

import (
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"

	"github.com/deepresearch/deepresearch/internal/purpose"
)

func TestDefinedAbbreviations(t *testing.T) {
	text := "Package csv reads and writes comma-separated values (CSV) files. " +
		"The Network File System (NFS) and the Domain Name System (DNS) are services. " +
		"A TLB (translation lookaside buffer) caches translations. " +
		"It returns the value (OK) and the count (N). " + // not definitions
		"See the manual (RTFM) for more."
	got := definedAbbreviations([]block{{num: 1, text: text}})
	want := map[string][]string{
		"csv": {"comma", "separat", "valu"},
		"nfs": {"file", "network", "system"},
		"dns": {"domain", "name", "system"},
		"tlb": {"buffer", "lookasid", "transl"},
	}
	for abbr, stems := range want {
		exp, ok := got[abbr]
		if !ok {
			t.Errorf("%s is not found as defined; got %v", abbr, got)
			continue
		}
		if k := slices.Sorted(maps.Keys(exp)); !slices.Equal(k, stems) {
			t.Errorf("%s expands to %v, want %v", abbr, k, stems)
		}
	}
	for _, abbr := range []string{"ok", "n", "rtfm"} {
		if _, ok := got[abbr]; ok {
			t.Errorf("%s is taken as defined: %v", abbr, got[abbr])
		}
	}
}

// TestReporterReadsAnAbbreviationAsItsExpansion: a passage that writes
// the abbreviation a source defines ("CSV") bears on a question that
// writes it out ("comma-separated values") as one in the question's words
// would: the Writer's passage answers how to write the files.
func TestReporterReadsAnAbbreviationAsItsExpansion(t *testing.T) {
	page := "[1] Package csv (encoding/csv)\nURL: https://pkg.go.dev/encoding/csv\nLocation: type Writer\n" +
		"Package csv reads and writes comma-separated values (CSV) files.\n\n" +
		"## type Writer\n\nA Writer writes records using CSV encoding, NewWriter returns one.\n\n" +
		"## type Reader\n\nA Reader reads records from a CSV-encoded file.\n"
	msgs := []llms.MessageContent{human("Question: How do I write comma-separated values files?"), toolMsg("c1", "search", page)}
	out := generateAs(t, New(Options{}), purpose.Reporter, msgs).Content
	if !strings.Contains(out, "NewWriter returns one") {
		t.Errorf("the passage that writes the abbreviation is not quoted:\n%s", out)
	}
}

// TestWithAbbreviations: a question that writes the expansion out gains
// the abbreviation as one of its own terms, at its heaviest word's weight;
// one that writes the abbreviation weighs the expansion's words lightly,
// as terms only.
func TestWithAbbreviations(t *testing.T) {
	defined := map[string]map[string]bool{
		"csv":  {"comma": true, "separat": true, "valu": true},
		"raid": {"redundant": true, "array": true, "independent": true, "disk": true},
	}
	own := map[string]bool{"write": true, "comma": true, "separat": true, "valu": true, "file": true}
	w := map[string]float64{"write": 1, "comma": 2, "separat": 2, "valu": 2, "file": 2}
	withAbbreviations(own, w, defined)
	if !own["csv"] || w["csv"] != 2 {
		t.Errorf("the written-out expansion does not bring its abbreviation: own %v, weights %v", own, w)
	}
	own = map[string]bool{"raid": true, "combin": true}
	w = map[string]float64{"raid": 2, "combin": 2}
	withAbbreviations(own, w, defined)
	if own["array"] || w["array"] != 0.5 || w["combin"] != 2 {
		t.Errorf("the abbreviation's expansion is not weighed lightly as terms only: own %v, weights %v", own, w)
	}
}

// TestWithAbbreviationsIsDeterministic: two abbreviations the question
// writes share a word of their expansions ("… protocol"); the word weighs
// the larger share, whichever the map gives first, and an abbreviation
// that is a stop word ("IT") is never defined.
func TestWithAbbreviationsIsDeterministic(t *testing.T) {
	for range 50 {
		defined := map[string]map[string]bool{
			"tcp": {"transmiss": true, "control": true, "protocol": true},
			"udp": {"user": true, "datagram": true, "protocol": true},
		}
		own := map[string]bool{"tcp": true, "udp": true}
		w := map[string]float64{"tcp": 1, "udp": 2}
		withAbbreviations(own, w, defined)
		if w["protocol"] != 2.0/3 {
			t.Fatalf("protocol weighs %v, want the larger share 2/3", w["protocol"])
		}
	}
	if got := definedAbbreviations([]block{{num: 1, text: "Support for information technology (IT) and a controller area network (CAN)."}}); len(got) != 0 {
		t.Errorf("stop words are taken as abbreviations: %v", got)
	}
}
