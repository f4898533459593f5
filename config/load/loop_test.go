package load

import "time"

// The research loop's keys, in TestEveryKeyFromEverySource's samples.
func init() {
	samples["research.max_cycles"] = [3]sample{{yaml: "1", want: 1}, {yaml: "5", want: 5}, {yaml: "2", want: 2}}
	samples["research.max_run_agents"] = [3]sample{{yaml: "8", want: 8}, {yaml: "12", want: 12}}
	samples["research.max_run_time"] = [3]sample{{yaml: "5m", want: 5 * time.Minute}, {yaml: "90s", want: 90 * time.Second}}
}
