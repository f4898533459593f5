package verify

import (
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/deepresearch/deepresearch/internal/sourcetext"
)

// quantity is a number, amount, percentage, date or measure in a text,
// read so that the forms one value takes compare equal: "1,499", "1499.0",
// "1.499k" and "$1,499" are 1499; "15%" and "15 percent" are 15 percent;
// "2024-03-05", "March 5, 2024" and "5 March 2024" are one day; "5GB" and
// "5 gigabytes" are 5 gb.
type quantity struct {
	// tok is the value as one word ("1499", "2p5", "d20240305"), what the
	// lexical judge matches; unit its unit ("gb", "percent", a currency
	// code, "date"; "" for a bare number).
	tok, unit string
	value     float64
	// written is the value as the text writes it, without a currency
	// before it ("2,999", "1499.0", "1.5k", "15%", "March 5, 2024"), for
	// messages.
	written string
	// start and end are its bytes in the text.
	start, end int
	// approx: the text hedges it ("about 1,500", "over 2,000"); it then
	// matches a value that rounds to it.
	approx bool
	// word: a number written in words ("two"), in a source's text.
	word bool
}

var (
	monthNames = `(Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?`
	// Dates: ISO, "March 5, 2024", "5 March 2024", "March 2024".
	dateRe = regexp.MustCompile(`\b(\d{4})-(\d{1,2})-(\d{1,2})\b` +
		`|\b` + monthNames + `\s+(\d{1,2})(?:st|nd|rd|th)?,?\s+(\d{4})\b` +
		`|\b(\d{1,2})(?:st|nd|rd|th)?\s+` + monthNames + `,?\s+(\d{4})\b` +
		`|\b` + monthNames + `,?\s+(\d{4})\b`)
	// Numbers, read where a run of digits starts (see quantities): grouped
	// digits or decimals, a magnitude ("k", "million"; "m" and "bn" after
	// a currency), a percent sign or word, a currency after, a unit.
	quantityAtRe = regexp.MustCompile(`(?i)^(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)` +
		`(?:\s?(k|thousand|million|mn|m|billion|bn|b|trillion|tn)\b)?` +
		`(?:\s?(%|percent\b|per\s?cent\b))?` +
		`(?:\s?(USD|EUR|GBP|JPY|CHF|CAD|AUD|dollars?|euros?|pounds?)\b)?` +
		`(?:\s?(kib|mib|gib|tib|kb|mb|gb|tb|bytes?|kilobytes?|megabytes?|gigabytes?|terabytes?|ms|milliseconds?|µs|microseconds?|ns|nanoseconds?|seconds?|secs?|s|minutes?|mins?|hours?|hrs?|h|days?|weeks?|months?|years?|kg|km|cm|mm|ghz|mhz|hz|kw|w)\b)?`)
	// A currency just before a number: a sign, or a code.
	currencyBeforeRe = regexp.MustCompile(`(?i)(?:[$€£¥]|\b(?:USD|EUR|GBP|JPY|CHF|CAD|AUD))\s?$`)
	approxRe         = regexp.MustCompile(`(?i)(?:about|around|approximately|approx\.?|roughly|nearly|almost|some|over|under|more than|less than|fewer than|up to|at least|at most|~|≈)\s*$`)
)

var months = map[string]int{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12}

var magnitudes = map[string]float64{"k": 1e3, "thousand": 1e3, "m": 1e6, "million": 1e6, "mn": 1e6,
	"b": 1e9, "billion": 1e9, "bn": 1e9, "trillion": 1e12, "tn": 1e12}

// unitNames are the units' one name each.
var unitNames = map[string]string{"kilobyte": "kb", "megabyte": "mb", "gigabyte": "gb", "terabyte": "tb", "byte": "byte",
	"millisecond": "ms", "microsecond": "µs", "nanosecond": "ns", "second": "s", "sec": "s", "minute": "min",
	"hour": "h", "hr": "h", "day": "day", "week": "week", "month": "month", "year": "year"}

var currencies = map[string]string{"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "dollar": "USD", "euro": "EUR", "pound": "GBP"}

// numberWords are the numbers a source may write in words; a claim's
// "2 years" meets a source's "two years". (A claim's own number words are
// no quantities: "one goroutine" states no figure a source must hold.)
var numberWords = map[string]float64{"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
	"seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14,
	"fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20}

// sourceQuantities is quantities of a source's text: its numbers written
// in words too ("two years"), each with word set.
func sourceQuantities(s string) []quantity {
	qs := quantities(s)
	var words []quantity
	var buf [9]byte
	for i := 0; i < len(s); {
		if !isLetterByte(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isLetterByte(s[j]) {
			j++
		}
		// A word of ASCII letters only, not part of a longer word.
		if n := j - i; n >= 3 && n <= len(buf) && (i == 0 || s[i-1] < 0x80) && (j == len(s) || s[j] < 0x80 && !isWordByte(s[j])) {
			for k := range n {
				buf[k] = s[i+k] | 0x20
			}
			if v, ok := numberWords[string(buf[:n])]; ok {
				words = append(words, quantity{tok: numberToken(v), value: v, written: s[i:j], start: i, end: j, word: true})
			}
		}
		i = j
	}
	if len(words) == 0 {
		return qs
	}
	qs = append(qs, words...)
	sortQuantities(qs)
	return qs
}

func isLetterByte(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// quantities returns the quantities of s, in order.
func quantities(s string) []quantity {
	var out []quantity
	// taken reports whether [lo, hi) overlaps a date (out holds the dates,
	// in order, when the numbers are read; numbers never overlap).
	var dates int
	taken := func(lo, hi int) bool {
		j := sort.Search(dates, func(j int) bool { return out[j].end > lo })
		return j < dates && out[j].start < hi
	}
	dateMatches := [][]int(nil)
	if sourcetext.HasYear(s) { // every date read has its year
		dateMatches = dateRe.FindAllStringSubmatchIndex(s, -1)
	}
	for _, m := range dateMatches {
		g := func(i int) string {
			if m[2*i] < 0 {
				return ""
			}
			return s[m[2*i]:m[2*i+1]]
		}
		var y, mo, d string
		switch {
		case g(1) != "":
			y, mo, d = g(1), g(2), g(3)
		case g(4) != "":
			mo, d, y = g(4), g(5), g(6)
		case g(7) != "":
			d, mo, y = g(7), g(8), g(9)
		default:
			mo, y = g(10), g(11)
		}
		month, err := strconv.Atoi(mo)
		if err != nil {
			month = months[strings.ToLower(mo[:3])]
		}
		tok := "d" + y + twoDigits(month)
		if d != "" {
			day, _ := strconv.Atoi(d)
			if day < 1 || day > 31 {
				continue
			}
			tok += twoDigits(day)
		}
		if month < 1 || month > 12 {
			continue
		}
		out = append(out, quantity{tok: tok, unit: "date", written: s[m[0]:m[1]], start: m[0], end: m[1]})
	}
	dates = len(out)
	// Numbers: at each run of digits (regular expressions anchored there
	// and bounded, so that reading a text is linear in it).
	next := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' || i < next || i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
			continue
		}
		m := quantityAtRe.FindStringSubmatchIndex(s[i:min(len(s), i+quantityReach)])
		if m == nil {
			continue
		}
		for k := range m {
			if m[k] >= 0 {
				m[k] += i
			}
		}
		lo, hi := i, m[1]
		next = hi
		cur := ""
		if c := currencyBeforeRe.FindStringIndex(s[max(0, i-8):i]); c != nil {
			cur = strings.TrimSpace(s[max(0, i-8)+c[0] : i])
			lo = max(0, i-8) + c[0]
		} else if i > 0 && (isWordByte(s[i-1]) || s[i-1] == '.' || s[i-1] == '_') {
			// Digits inside a word or a longer number are no quantity:
			// "SKU001", "v1.2", "10.5.3".
			continue
		}
		numLo, numHi := m[2], m[3]
		if hi < len(s) && (isWordByte(s[hi]) && s[hi-1] >= '0' && s[hi-1] <= '9') {
			continue
		}
		num := s[numLo:numHi]
		v, err := strconv.ParseFloat(strings.ReplaceAll(num, ",", ""), 64)
		if err != nil {
			continue
		}
		unit := ""
		if cur != "" {
			unit = currencyOf(cur)
		}
		mag := ""
		if m[4] >= 0 {
			mag = strings.ToLower(s[m[4]:m[5]])
		}
		if (mag == "m" || mag == "b") && cur == "" {
			// "5 m" is five metres, "5 b" five of something: only after a
			// currency is it a magnitude.
			hi, mag = m[4], ""
			for hi > numHi && s[hi-1] == ' ' {
				hi--
			}
			next = hi
		} else {
			if mag != "" {
				v *= magnitudes[mag]
			}
			switch {
			case m[6] >= 0:
				unit = "percent"
			case m[8] >= 0:
				unit = currencyOf(s[m[8]:m[9]])
			case m[10] >= 0:
				unit = unitOf(s[m[10]:m[11]])
			}
		}
		if taken(lo, hi) {
			continue
		}
		q := quantity{tok: numberToken(v), unit: unit, value: v, written: strings.TrimSpace(s[numLo:hi]), start: lo, end: hi}
		q.approx = approxRe.MatchString(s[max(0, lo-16):lo])
		out = append(out, q)
	}
	if dates > 0 {
		sortQuantities(out)
	}
	return out
}

// quantityReach is the most bytes a number with its magnitude, percent,
// currency and unit runs over ("1,234,567.89 thousand USD gigabytes").
const quantityReach = 64

func sortQuantities(qs []quantity) {
	slices.SortStableFunc(qs, func(a, b quantity) int { return a.start - b.start })
}

func twoDigits(n int) string {
	if n < 10 {
		return "0" + strconv.Itoa(n)
	}
	return strconv.Itoa(n)
}

// numberToken writes v as one word: digits, with "p" for the decimal
// point ("2p5").
func numberToken(v float64) string {
	return strings.ReplaceAll(strconv.FormatFloat(v, 'f', -1, 64), ".", "p")
}

func currencyOf(s string) string {
	l := strings.TrimSuffix(strings.ToLower(s), "s")
	if c, ok := currencies[l]; ok {
		return c
	}
	if c, ok := currencies[s]; ok {
		return c
	}
	return strings.ToUpper(s)
}

func unitOf(s string) string {
	l := strings.ToLower(s)
	if u, ok := unitNames[l]; ok {
		return u
	}
	if u, ok := unitNames[strings.TrimSuffix(l, "s")]; ok {
		return u
	}
	return l
}

// canonQuantities rewrites every quantity of s as its one-word form (a
// unit after it as its one name): what the lexical judge reads, so that
// "$1,499" meets "1499.0". With hedged, a claim's hedged figures ("about
// 1,500") are left out: a source need not state them as written (the
// figures' own check rounds them, see quantity.matches).
func canonQuantities(s string, qs []quantity, hedged bool) string {
	if len(qs) == 0 {
		return s
	}
	var b strings.Builder
	at := 0
	for _, q := range qs {
		b.WriteString(s[at:q.start])
		if hedged && q.approx {
			b.WriteString(" ")
			at = q.end
			continue
		}
		b.WriteString(" " + q.tok)
		if q.unit != "" && q.unit != "date" && !isCurrency(q.unit) {
			b.WriteString(" " + q.unit)
		}
		b.WriteString(" ")
		at = q.end
	}
	b.WriteString(s[at:])
	return b.String()
}

func isCurrency(unit string) bool {
	return len(unit) == 3 && strings.ToUpper(unit) == unit
}

// matches reports whether the source's quantity s states the claim's q:
// the same value (a date the same day or month), or, when the claim
// hedges it ("about 1,500"), a value that rounds to it.
func (q quantity) matches(s quantity) bool {
	if q.unit == "date" || s.unit == "date" {
		return q.tok == s.tok
	}
	if s.value == q.value {
		return true
	}
	if !q.approx || q.value < 10 || q.value != math.Trunc(q.value) {
		return false
	}
	p := 1.0
	for v := q.value; v >= 10 && math.Mod(v, 10) == 0; v /= 10 {
		p *= 10
	}
	return p > 1 && math.Round(s.value/p)*p == q.value
}

// comparable reports whether a source's quantity s could be what the
// claim's q misstates: a bare number, or one of the same unit.
func (q quantity) comparable(s quantity) bool {
	if q.unit == "date" || s.unit == "date" {
		return q.unit == s.unit
	}
	return s.unit == "" || q.unit == "" || s.unit == q.unit
}
