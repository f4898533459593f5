package deepresearch

import "github.com/deepresearch/deepresearch/internal/events"

// WorkersMissing is the type of an event an AgentRunner reports, with
// attempt 0, when an agent's task has waited longer than it allows with
// no worker alive to take it (natsrun: nats.no_worker_after). The run
// emits it at run level (Agent -1) and goes on waiting: the task runs
// when a worker appears.
const WorkersMissing = events.WorkersMissing

// WorkersMissingData is the payload of WorkersMissing.
//
// Its fields:
//
//	// Task is the agent's task that waits.
//	Task PlanTask `json:"task"`
//	// WaitedMS is how long it had waited when this was said, in
//	// milliseconds.
//	WaitedMS int64 `json:"waited_ms"`
type WorkersMissingData = events.WorkersMissingData
