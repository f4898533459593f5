package excerpt

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// benchWords are the vocabulary longPage draws its prose from: common
// words, technical ones, plurals and verb forms the stemmer folds, and
// identifiers in camel and snake case whose parts count as terms.
var benchWords = strings.Fields(`the a of to and in is that for with as on by this it are be from or an
process processes memory kernel scheduler scheduling thread threads lock locks locking mutex
goroutine goroutines channel channels buffer buffered buffering reader readers writer writers
server servers request requests response handler handlers timeout timeouts deadline context
leader election elected elects follower followers log logs entry entries replicated replication
query queries index indexes indexed search searching rank ranking document documents passage
cache cached caching eviction policy policies limit limits limited resource resources file files
SHA256 utf8 ReadAll WithTimeout StartCPUProfile capture_output drop_caches http2 IPv6 json.Encoder
value values return returns returned error errors configure configured configuration setting
settings option options default defaults enable enabled disables running stopped stalls curried`)

// referencePage returns a deterministic Markdown page of about n bytes, as a
// long manual or reference page reads: headed sections of paragraphs,
// list items, fenced and indented code, and a table now and then.
func referencePage(n int) string {
	r := rand.New(rand.NewPCG(1, 2))
	sentence := func() string {
		ws := make([]string, 8+r.IntN(14))
		for i := range ws {
			ws[i] = benchWords[r.IntN(len(benchWords))]
		}
		return strings.ToUpper(ws[0][:1]) + strings.Join(ws, " ")[1:] + "."
	}
	var b strings.Builder
	b.WriteString("# A long reference page\n\n" + sentence() + " " + sentence() + "\n\n")
	for sec := 1; b.Len() < n; sec++ {
		fmt.Fprintf(&b, "## Section %d: %s %s\n\n", sec, benchWords[r.IntN(len(benchWords))], benchWords[r.IntN(len(benchWords))])
		for p := 0; p < 3+r.IntN(5); p++ {
			switch r.IntN(6) {
			case 0:
				b.WriteString("To set it up:\n\n```go\nfunc setup(ctx context.Context) error {\n\treturn http.ListenAndServe(\":8080\", nil)\n}\n```\n\n")
			case 1:
				for range 2 + r.IntN(4) {
					b.WriteString("- " + sentence() + "\n")
				}
				b.WriteString("\n")
			case 2:
				b.WriteString("Run the command:\n\n    $ go test -run " + benchWords[r.IntN(len(benchWords))] + " ./...\n\n")
			case 3:
				b.WriteString("| option | value |\n|---|---|\n| " + benchWords[r.IntN(len(benchWords))] + " | " + fmt.Sprint(r.IntN(1000)) + " |\n\n")
			default:
				for range 2 + r.IntN(5) {
					b.WriteString(sentence() + " ")
				}
				b.WriteString("\n\n")
			}
		}
	}
	return b.String()
}

// BenchmarkCut measures cutting a 4 MB page to an agent's open budget
// (6,000 bytes, as internal/agent opens a long source) for a task and
// its question.
func BenchmarkCut(b *testing.B) {
	page := referencePage(4 << 20)
	b.SetBytes(int64(len(page)))
	b.ReportAllocs()
	for b.Loop() {
		Cut(page, "leader election timeouts in replicated logs", "How does the scheduler's WithTimeout deadline limit a request?", 6000)
	}
}
