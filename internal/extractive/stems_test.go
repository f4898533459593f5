package extractive

import (
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/terms"
)

// stemTexts take every path of the tokenizer and the stemmer: camel and
// snake case, letters joined with digits, agent nouns, upper case, a
// letter whose lower case parts a word ("İ"), invalid UTF-8.
var stemTexts = []string{
	"",
	"Raft elects a LEADER: the Scanner's WithTimeout and SHA256 sums of utf8 files, capture_output.",
	"İSTANBUL İs a city; Straße ÜberÄrger — queries  curried\tRunners\n\nwriters abc\xffdef Bad\xc3Utf 8080port x²y ΣΊΣΥΦΟΣ happens-before",
}

// TestNormalizeIsJoinedTokens: normalize is the text's tokens joined by
// spaces, as it was written.
func TestNormalizeIsJoinedTokens(t *testing.T) {
	for _, s := range stemTexts {
		if got, want := normalize(s), strings.Join(terms.Tokens(s), " "); got != want {
			t.Errorf("normalize(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestSharedInIsSharedOfJoinedText: sharedIn counts what shared counts
// of the texts' stems joined by lines.
func TestSharedInIsSharedOfJoinedText(t *testing.T) {
	own := questionStems("How does a leader scanner read SHA-256 sums of UTF-8 Istanbul queries?")
	for _, a := range stemTexts {
		for _, b := range stemTexts {
			want := shared(stemSet(a+"\n"+b+"\n"+"Scanner title"), own)
			if got := sharedIn(own, a, b, "Scanner title"); got != want {
				t.Errorf("sharedIn(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
	if sharedIn(own, stemTexts[1]) < 3 {
		t.Errorf("sharedIn finds %d of %v in %q", sharedIn(own, stemTexts[1]), own, stemTexts[1])
	}
}
