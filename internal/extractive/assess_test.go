package extractive

import (
	"cmp"
	"context"
	"strings"
	"testing"

	"github.com/deepresearch/deepresearch/internal/agent"
	"github.com/deepresearch/deepresearch/source"
)

// The offline assessment, through the real protocol: agent.Assess writes
// the message, this model answers it.
func TestAssess(t *testing.T) {
	const q = "Who worked out the signalling theory of the 1858 Atlantic cable, and what else did that person invent?"
	cable := agent.AssessSource{Number: 1, Source: source.Source{ID: "atlantic.md", URL: "https://example.org/atlantic", Title: "The 1858 Atlantic Cable"},
		Text: "The 1858 Atlantic cable carried the first telegraph messages.\n\nIts signalling theory was worked out by William Thomson, who showed why the 1858 Atlantic cable slowed signals."}
	thomson := agent.AssessSource{Number: 2, Source: source.Source{ID: "thomson.md", URL: "https://example.org/thomson", Title: "William Thomson"},
		Text: "William Thomson invented the mirror galvanometer. He also invented the siphon recorder, described by Fleeming Jenkin."}
	part := agent.Task{ID: "t1", Title: "Overview", Question: q}
	found := "Its signalling theory was worked out by William Thomson, who showed why the 1858 Atlantic cable slowed signals. [1]"
	race := agent.AssessSource{Number: 1, Source: source.Source{ID: "race condition.txt", URL: "file:///docs/race%20condition.txt", Title: "race condition"},
		Text: "race condition\n\n   Anomalous behavior due to unexpected critical dependence on the relative timing of events. On IRC, a race condition lets two users take the same channel at once."}
	raceFound := "Anomalous behavior due to unexpected critical dependence on the relative timing of events. [1] On IRC, a race condition lets two users take the same channel at once. [1]"
	tests := []struct {
		name       string
		question   string // q when empty
		parts      []agent.Task
		findings   []agent.Finding
		sources    []agent.AssessSource
		searches   []string
		unanswered []string
		done       bool
		gaps       []string // kind|part|detail prefix
		tasks      []string // question|part
	}{
		{name: "a name the question asks about", parts: []agent.Task{part},
			findings: []agent.Finding{{ID: "t1", Part: "t1", Title: "Overview", Text: found}},
			sources:  []agent.AssessSource{cable},
			gaps:     []string{"reference|t1|William Thomson, named in [1] The 1858 Atlantic Cable", "uncovered||no cited finding covers: person invent"},
			tasks:    []string{"William Thomson: person invent|t1", "person invent|"}},
		{name: "the name followed: answered", parts: []agent.Task{part},
			findings: []agent.Finding{{ID: "t1", Part: "t1", Title: "Overview", Text: found},
				{ID: "t2", Part: "t1", Title: "William Thomson", Gap: "reference: William Thomson", Text: "William Thomson invented the mirror galvanometer. [2]"}},
			sources: []agent.AssessSource{cable, thomson}, done: true},
		{name: "a name read only to follow one is not followed", parts: []agent.Task{part},
			findings: []agent.Finding{{ID: "t1", Part: "t1", Title: "Overview", Text: found},
				{ID: "t2", Part: "t1", Title: "William Thomson", Gap: "reference: William Thomson", Text: "He also invented the siphon recorder, described by Fleeming Jenkin. [2]"}},
			sources: []agent.AssessSource{cable, thomson}, done: true},
		{name: "every suggested search run already", parts: []agent.Task{part},
			findings: []agent.Finding{{ID: "t1", Part: "t1", Title: "Overview", Text: found}},
			sources:  []agent.AssessSource{cable}, searches: []string{"William Thomson person invent", "person invent"},
			gaps: []string{"reference|t1|", "uncovered||"}},
		{name: "a definition question answered by the first cycle", question: "What is a race condition?",
			parts:    []agent.Task{{ID: "t1", Title: "Overview", Question: "What is a race condition?"}},
			findings: []agent.Finding{{ID: "t1", Part: "t1", Title: "Overview", Text: raceFound}},
			sources:  []agent.AssessSource{race}, done: true},
		{name: "a lone common word no sentence has is how the question asks", question: "What is a race condition, and is it rare?",
			parts:    []agent.Task{{ID: "t1", Title: "Overview", Question: "What is a race condition, and is it rare?"}},
			findings: []agent.Finding{{ID: "t1", Part: "t1", Title: "Overview", Text: "A race condition is a dependence on the relative timing of events. [1]"}},
			sources:  []agent.AssessSource{race}, done: true},
		{name: "a part nothing answers", parts: []agent.Task{part, {ID: "t2", Title: "Harbours", Question: "How do harbour breakwaters work?"}},
			findings: []agent.Finding{{ID: "t1", Part: "t1", Title: "Overview", Text: found + " What else he invented is known [2]. The mirror galvanometer was his invention [2]."},
				{ID: "t2", Part: "t2", Title: "Harbours", Text: NoEvidence}},
			sources: []agent.AssessSource{cable, thomson},
			gaps:    []string{"uncovered|t2|no cited finding answers: How do harbour breakwaters work?"},
			tasks:   []string{"harbour breakwaters|t2"}},
		{name: "a part the report left unanswered", parts: []agent.Task{part},
			findings: []agent.Finding{{ID: "t1", Part: "t1", Title: "Overview", Text: found + " The mirror galvanometer was his invention [2]."}},
			sources:  []agent.AssessSource{cable, thomson}, unanswered: []string{"t1"},
			gaps: []string{"unanswered|t1|the report does not answer: " + q}, tasks: []string{"1858 Atlantic cable|t1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := agent.Assess(context.Background(), New(Options{}), agent.AssessInput{Question: cmp.Or(tt.question, q), Cycle: 1, MaxCycles: 3, MaxTasks: 3,
				Parts: tt.parts, Findings: tt.findings, Sources: tt.sources, Searches: tt.searches, Unanswered: tt.unanswered})
			if err != nil {
				t.Fatal(err)
			}
			if a.Done != tt.done {
				t.Errorf("done = %v, want %v; reason %q, gaps %+v", a.Done, tt.done, a.Reason, a.Gaps)
			}
			if len(a.Gaps) != len(tt.gaps) {
				t.Fatalf("gaps %+v, want %q", a.Gaps, tt.gaps)
			}
			for i, g := range a.Gaps {
				if got := g.Kind + "|" + g.Part + "|" + g.Detail; !strings.HasPrefix(got, tt.gaps[i]) {
					t.Errorf("gap %d = %q, want %q…", i, got, tt.gaps[i])
				}
			}
			var tasks []string
			for _, task := range a.Tasks {
				tasks = append(tasks, task.Question+"|"+task.Part)
			}
			if strings.Join(tasks, "\n") != strings.Join(tt.tasks, "\n") {
				t.Errorf("tasks %q, want %q", tasks, tt.tasks)
			}
			if len(tt.tasks) == 0 && !a.Done && !strings.Contains(a.Reason, "run already") {
				t.Errorf("reason %q", a.Reason)
			}
		})
	}
}

func TestNames(t *testing.T) {
	tests := []struct {
		sentence string
		want     []string // name|code|cue
	}{
		{"For random numbers suitable for security-sensitive work, see the crypto/rand package.", []string{"crypto/rand|true|true"}},
		{"An easy way to create wrapped errors is to call fmt.Errorf and apply the %w verb.", []string{"fmt.Errorf|true|true"}},
		{"ExpFloat64 returns a float64 from the default Source, e.g. 1.5.", nil},
		{"The initial setting is the value of the GOGC environment variable.", []string{"GOGC|true|false"}},
		{"The theory was worked out by William Thomson in Glasgow.", []string{"William Thomson|false|true"}},
		{"Great Eastern was a ship; The Times called it “the great ship”.", []string{"great ship|false|true"}},
		{"It mentions Some Company without a cue.", nil},
		{"See [the Path Names section](https://pkg.go.dev/io/fs#hdr-Path_Names) for io/fs.", []string{"io/fs|true|false"}},
	}
	for _, tt := range tests {
		var got []string
		for _, n := range names(tt.sentence) {
			got = append(got, n.name+"|"+strings.ToLower(strings.TrimSpace(boolString(n.code)))+"|"+boolString(n.cue))
		}
		if strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("names(%q) = %q, want %q", tt.sentence, got, tt.want)
		}
	}
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}
