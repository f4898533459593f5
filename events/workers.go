package events

// WorkersMissing says that an agent's task has waited longer than its
// runner allows (natsrun's nats.no_worker_after) with no worker alive to
// take it (WorkersMissingData). Nothing fails: the task stays queued, and
// the run goes on when a worker appears. A runner says it, not the run's
// pipeline, so it is emitted at run level and, like RunResumed, counted
// in no attempt when a run is resumed.
const WorkersMissing Type = "workers.missing"

// WorkersMissingData is the payload of WorkersMissing.
type WorkersMissingData struct {
	// Task is the agent's task that waits.
	Task PlanTask `json:"task"`
	// WaitedMS is how long it had waited when this was said, in
	// milliseconds.
	WaitedMS int64 `json:"waited_ms"`
}

func (WorkersMissingData) EventType() Type { return WorkersMissing }

func init() { decoders[WorkersMissing] = decode[WorkersMissingData] }
