package events

// Stage is a part of a run: opening the index, planning, researching,
// merging, assessing a cycle, writing the report, verifying it. It is
// the one word for where a run is: ErrorData.Stage, the keys of
// RunFinishedData.Timings (and the root's StageError and
// Report.TimingsMS). The other vocabularies that name a part of a run
// derive from it: the role of the models a stage calls (Role: "planner",
// "researcher", "writer") and its scope in a run's journal (Scope). On
// the wire a Stage is its word; a stage this version does not know reads
// as itself, so an event stream passes through a reader older than its
// writer.
type Stage string

// The stages of a run, in the order a run reaches them (StageAssess after
// each cycle's merge but the last).
const (
	StageIndex    Stage = "index" // opening and syncing the local corpus index
	StagePlan     Stage = "plan"  // clarifying questions, planning, the plan's review
	StageResearch Stage = "research"
	StageMerge    Stage = "merge"
	StageAssess   Stage = "assess" // deciding, after a cycle, whether to research more; it never fails a run
	StageReport   Stage = "report"
	StageVerify   Stage = "verify" // checking citations against their sources
)

// The roles of a run's models (Stage.Role): the model that plans (and
// clarifies, and assesses each cycle), the one each research agent runs
// and the one that writes (and, unless another is set, verifies).
const (
	RolePlanner    = "planner"
	RoleResearcher = "researcher"
	RoleWriter     = "writer"
)

// String is the stage's word.
func (s Stage) String() string { return string(s) }

// Role is the role of the model the stage's calls go to: RolePlanner for
// StagePlan and StageAssess, RoleResearcher for StageResearch,
// RoleWriter for StageReport and StageVerify (whose judge is the
// writer's model unless another is set); "" for a stage that calls no
// model (StageIndex, StageMerge).
func (s Stage) Role() string {
	switch s {
	case StagePlan, StageAssess:
		return RolePlanner
	case StageResearch:
		return RoleResearcher
	case StageReport, StageVerify:
		return RoleWriter
	}
	return ""
}

// Scope is where the stage's calls are kept in a run's journal: the
// role of its model ("planner", "researcher", "writer"; a research
// agent's calls go under "researcher/" and its task, a section of a
// report under "writer/section"), but "verify" for StageVerify, which
// replays live on its own, and "planner/assess" for StageAssess; "" for a
// stage that calls no model. The words are a journal's: they do not
// change.
func (s Stage) Scope() string {
	switch s {
	case StageVerify:
		return string(StageVerify)
	case StageAssess:
		return RolePlanner + "/" + string(StageAssess)
	}
	return s.Role()
}
