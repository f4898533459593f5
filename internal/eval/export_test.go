package eval

// For the external tests of this package (multihop_test.go), which run
// the root package's Researcher: the shared evaluation corpus.
var (
	EvalCorpus    = evalCorpus
	RaceEnabled   = raceEnabled
	QuestionsFile = questionsFile
)
