package terms

import (
	"strings"
	"testing"
)

// benchText is a long technical text: prose with plurals and verb forms,
// identifiers in camel and snake case, names joining letters and digits.
var benchText = strings.Repeat(`Raft elects a leader: the first server whose election timeout expires
becomes a candidate, and the leader manages the replicated log. Call context.WithTimeout and
StartCPUProfile before reading with bufio.Scanner; capture_output keeps SHA256 sums of utf8 files.
The scheduler's queries were cached, and running readers stopped when writers stalls. `, 2000)

// BenchmarkStemSetParts measures the stems of a long text (about 700 KB),
// as excerpt's scorer and the offline model take them.
func BenchmarkStemSetParts(b *testing.B) {
	b.SetBytes(int64(len(benchText)))
	b.ReportAllocs()
	for b.Loop() {
		StemSetParts(benchText)
	}
}
