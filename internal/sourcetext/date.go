package sourcetext

import (
	"strings"
	"time"
)

// Layouts ParseDate reads, most common first: what search APIs and page
// metadata write. Each with a time of day is read as UTC when it names no
// zone.
var (
	timeLayouts = []string{
		time.RFC3339Nano,                      // 2024-03-15T10:00:00.000Z, +01:00 (Exa, JSON-LD, meta tags)
		"2006-01-02T15:04:05.999999999",       // 2024-03-15T10:00:00 (SearXNG's isoformat, Brave's page_age)
		"2006-01-02T15:04:05.999999999Z0700",  // 2024-03-15T10:00:00+0000
		"2006-01-02T15:04Z07:00",              // 2024-03-15T10:00+01:00
		"2006-01-02T15:04",                    // 2024-03-15T10:00
		"2006-01-02 15:04:05.999999999Z07:00", // 2024-03-15 10:00:00+01:00
		"2006-01-02 15:04:05.999999999 -0700", // 2024-03-15 10:00:00 +0100
		"2006-01-02 15:04:05.999999999 MST",   // 2024-03-15 10:00:00 UTC
		"2006-01-02 15:04:05.999999999",       // 2024-03-15 10:00:00
		time.RFC1123,                          // Fri, 15 Mar 2024 10:00:00 GMT (Tavily, HTTP dates)
		time.RFC1123Z,                         // Fri, 15 Mar 2024 10:00:00 +0000
		"Mon, 2 Jan 2006 15:04:05 MST",        // one-digit days
		"Mon, 2 Jan 2006 15:04:05 -0700",
		time.RFC850,
		time.ANSIC,
	}
	dateLayouts = []string{
		time.DateOnly,     // 2024-03-15
		"2006/01/02",      // 2024/03/15
		"January 2, 2006", // March 15, 2024 (Brave's age)
		"Jan 2, 2006",     // Mar 15, 2024
		"2 January 2006",  // 15 March 2024
		"2 Jan 2006",      // 15 Mar 2024
	}
)

// ParseDate reads a date as search APIs, page metadata and file systems
// write it, and returns it in ISO 8601: "2024-03-15T10:00:00Z" (RFC 3339,
// in the offset it was written with; UTC when it names none) when it has
// a time of day, "2024-03-15" when it is a date alone. It returns "" for
// anything else: an empty or null value, a relative age ("2 days ago"), a
// year alone, a date out of the years 1000 to 9999.
func ParseDate(s string) string {
	s = strings.TrimSpace(s)
	if len(s) < 8 || len(s) > 64 || !HasYear(s) {
		return ""
	}
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil && plausible(t) {
			return t.Format(time.RFC3339)
		}
	}
	for _, l := range dateLayouts {
		if t, err := time.Parse(l, s); err == nil && plausible(t) {
			return t.Format(time.DateOnly)
		}
	}
	return ""
}

// HasYear reports whether s has four digits in a row: every date layout
// has a year, and the layouts need not be tried on anything else.
func HasYear(s string) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			if run++; run == 4 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

func plausible(t time.Time) bool { return t.Year() >= 1000 && t.Year() <= 9999 }

// FileDate is a file's modification time in ISO 8601, to the second, in
// UTC.
func FileDate(t time.Time) string {
	if t.IsZero() || !plausible(t.UTC()) {
		return ""
	}
	return t.UTC().Truncate(time.Second).Format(time.RFC3339)
}

// Day is the calendar date ("2024-03-15") of an ISO 8601 date or time as
// ParseDate writes it, or "" when iso is not one.
func Day(iso string) string {
	if len(iso) < 10 {
		return ""
	}
	if _, err := time.Parse(time.DateOnly, iso[:10]); err != nil {
		return ""
	}
	return iso[:10]
}
