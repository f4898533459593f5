package verify_test

import (
	"context"
	"fmt"

	"github.com/deepresearch/deepresearch/verify"
)

// Checking a report's citations against the text of its sources, as the
// last stage of every run does: a number with no source is fabricated.
func ExampleVerify() {
	res, err := verify.Verify(context.Background(),
		"Most cable faults are caused by fishing trawlers [1]. Cables are made of cheese [2].",
		[]verify.Source{{Number: 1, Title: "Cable faults", Text: "Most submarine cable faults are caused by fishing trawlers and ship anchors."}},
		verify.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d citations, %d supported, %d fabricated, pass: %v\n",
		res.Summary.Citations, res.Summary.Supported, res.Summary.Fabricated, res.Pass(false))
	for _, p := range res.Problems {
		fmt.Println(p.Severity, p.Kind, p.Number)
	}
	// Output:
	// 2 citations, 1 supported, 1 fabricated, pass: false
	// error no-source 2
}

// Overclaiming, weighed as GRADE weighs evidence: certainty language on a
// claim whose only source is a blog post is flagged with a hedge, and the
// fix applies it, leaving a comment; a statistic that cites nothing gets a
// TODO marker.
func ExampleVerify_overclaim() {
	res, err := verify.Verify(context.Background(),
		"Trawlers always cause cable faults [1]. Repairs cost $2 million each.\n",
		[]verify.Source{{Number: 1, Title: "A diver's blog", Type: "blog", Text: "Trawlers always cause cable faults."}},
		verify.Options{Fix: true})
	if err != nil {
		panic(err)
	}
	for _, p := range res.Problems {
		fmt.Printf("%s %s: %s\n", p.Severity, p.Kind, p.Message)
	}
	fmt.Print(res.Fixed)
	// Output:
	// warning overclaim: "always": certainty language, but its best source is graded LOW
	// warning statistic: "$2 million": a statistic in a sentence that cites nothing
	// Trawlers usually<!-- verify: hedged "always": its best source is graded LOW --> cause cable faults [1]. Repairs cost $2 million each [TODO: cite a source].
}
