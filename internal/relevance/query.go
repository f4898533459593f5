package relevance

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/deepresearch/deepresearch/internal/sourcetext"
	"github.com/deepresearch/deepresearch/source"
)

// queryScores is a candidate's relevance to each query (seed 001's
// q_relevance): the share of the query's key terms its title and text
// contain, whatever judge scored the candidate as a whole. The queries are
// numbered from 1 in the order the task made them.
func queryScores(queries []string, c Candidate) []source.QueryScore {
	if len(queries) == 0 {
		return nil
	}
	v := vocab(c.Title + "\n" + c.Text)
	out := make([]source.QueryScore, len(queries))
	for i, q := range queries {
		out[i] = source.QueryScore{QID: strconv.Itoa(i + 1), Query: q}
		ts := termsOf(q)
		if len(ts) == 0 {
			continue
		}
		n := 0
		for _, t := range ts {
			if t.in(v) {
				n++
			}
		}
		out[i].Score = round(float64(n) / float64(len(ts)))
	}
	return out
}

// recencyWords are the words by which a question asks for recent
// information.
var recencyWords = []string{"recent", "recently", "latest", "newest", "current", "currently", "today", "nowadays",
	"this year", "up to date", "up-to-date", "as of now", "right now", "state of the art"}

// wantsRecent reports whether a question asks for recent information.
func wantsRecent(question string) bool {
	q := " " + strings.Join(strings.FieldsFunc(strings.ToLower(question), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r >= 0x80)
	}), " ") + " "
	for _, w := range recencyWords {
		if strings.Contains(q, " "+w+" ") {
			return true
		}
	}
	return false
}

// staleHalfLife is how much older than the newest source a dated source
// must be for its score to halve, when the question asks for recent
// information.
const staleHalfLife = 2 * 365.25 * 24 * time.Hour

// freshness is the content filter's freshness judgement (seed 001's
// sources_content_filter): when the user's question or the task asks for
// recent information ("latest", "current", "this year"…), a dated
// candidate older than the newest dated candidate the task has seen
// scores less — half after two years, a third after four — so that a
// newer source outranks it, and one much older falls under the task's
// relative floor. Undated candidates, and every candidate of a question
// that does not ask for recency, keep their scores. It records the newest
// date seen.
func (f *Filter) freshness(j *Judged) {
	dates := map[int]time.Time{}
	for _, i := range j.judged {
		if d := sourcetext.Day(j.cands[i].Date); d != "" {
			dates[i], _ = time.Parse(time.DateOnly, d)
			if d > f.newest {
				f.newest = d
			}
		}
	}
	if len(dates) == 0 || !wantsRecent(f.cfg.Question+" "+f.cfg.Task) {
		return
	}
	newest, _ := time.Parse(time.DateOnly, f.newest)
	out := j.out
	for i, d := range dates {
		age := newest.Sub(d)
		if age <= 0 {
			continue
		}
		factor := 1 / (1 + float64(age)/float64(staleHalfLife))
		out[i].Score = round(out[i].Score * factor)
		out[i].Reason = oneLine(fmt.Sprintf("dated %s, %.1f years before the newest source (%s), for a question asking for recent information; %s",
			d.Format(time.DateOnly), math.Round(age.Hours()/24/365.25*10)/10, f.newest, out[i].Reason), 320)
	}
}
