package citeproc

// firstCited numbers citations 1..K in order of first citation, giving
// every citation of the same thing the same number.
type firstCited struct {
	key     func(Source) string // nil: by mapping number
	byKey   map[string]int
	byNum   map[int]int
	counter int
}

// FirstCited returns a Numberer that numbers sources 1..K in order of
// first citation, giving the same number to every citation of the same
// source: the same URL or, for sources without one, the same ID. Use a new
// one for each text.
func FirstCited() Numberer { return FirstCitedBy(nil) }

// FirstCitedBy is FirstCited with sources compared by key (for example a
// canonical URL, so that two URL forms of one page share a number); a
// source whose key is "" is compared by ID. Nil compares URLs exactly.
func FirstCitedBy(key func(Source) string) Numberer {
	if key == nil {
		key = func(s Source) string { return s.URL }
	}
	return &firstCited{key: key, byKey: map[string]int{}, byNum: map[int]int{}}
}

// FirstCitedNumbers returns a Numberer that numbers 1..K in order of first
// citation by mapping number: for mappings whose numbers already stand for
// distinct sources, such as merged ones.
func FirstCitedNumbers() Numberer { return &firstCited{byNum: map[int]int{}} }

func (f *firstCited) Display(n int, src Source) int {
	if d, ok := f.byNum[n]; ok {
		return d
	}
	if f.key == nil {
		f.counter++
		f.byNum[n] = f.counter
		return f.counter
	}
	k := f.key(src)
	if k == "" {
		k = "\x00id:" + src.ID
	}
	d, ok := f.byKey[k]
	if !ok {
		f.counter++
		d = f.counter
		f.byKey[k] = d
	}
	f.byNum[n] = d
	return d
}
