package verify_test

import (
	"context"
	"fmt"
	"os"

	"github.com/deepresearch/deepresearch/internal/verify"
)

func ExampleCheck() {
	sources := []verify.Source{
		{Number: 1, Title: "The Go Memory Model", URL: "https://go.dev/ref/mem",
			Text: "Programs that modify data being simultaneously accessed by multiple goroutines must serialize such access."},
		{Number: 2, Title: "Effective Go", URL: "https://go.dev/doc/effective_go"}, // never retrieved
	}
	report := "Programs that modify data accessed by multiple goroutines must serialize such access [1].\n" +
		"Share memory by communicating [2].\n" +
		"Goroutines cost 2 KB [3].\n"
	res, err := verify.Check(context.Background(), report, sources, verify.Options{
		Fix: verify.Fix{Fabricated: verify.Remove},
	})
	if err != nil {
		panic(err)
	}
	res.WriteText(os.Stdout, false)
	fmt.Print("\n", res.Fixed)
	// Output:
	// citations  supported  unsupported  fabricated  missing  duplicates  score
	//           3          1            0           2        0           0   0.33
	//
	// problems:
	//   line 2: error not-retrieved: source [2] (https://go.dev/doc/effective_go) was never retrieved: it has no stored text
	//     fix: retrieve source [2] and check the sentence against it, or remove the citation
	//   line 3: error no-source: citation [3] names no source: the sources hold [1], [2]
	//     fix: remove [3], or cite the source the sentence came from
	//
	// FAIL (2 errors)
	//
	// Programs that modify data accessed by multiple goroutines must serialize such access [1].
	// Share memory by communicating.
	// Goroutines cost 2 KB.
}
