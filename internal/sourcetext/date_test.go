package sourcetext

import "testing"

func TestParseDate(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"2024-03-15", "2024-03-15"},
		{"2016-05-01T00:00:00.000Z", "2016-05-01T00:00:00Z"},              // Exa
		{"2024-03-01T00:00:00", "2024-03-01T00:00:00Z"},                   // SearXNG isoformat, no zone
		{"2024-11-02T10:12:55", "2024-11-02T10:12:55Z"},                   // Brave page_age
		{"2024-03-15T23:30:00-05:00", "2024-03-15T23:30:00-05:00"},        // the publisher's own day is kept
		{"2024-03-15T10:00:00.123456+01:00", "2024-03-15T10:00:00+01:00"}, // SearXNG with a zone
		{"2024-03-15T10:00:00+0100", "2024-03-15T10:00:00+01:00"},         // meta tags without the colon
		{"2024-03-15T10:00+01:00", "2024-03-15T10:00:00+01:00"},           // no seconds
		{"2024-03-15 10:00:00", "2024-03-15T10:00:00Z"},                   // SQL-like
		{"Thu, 14 Nov 2024 20:10:19 GMT", "2024-11-14T20:10:19Z"},         // Tavily (news), HTTP dates
		{"Thu, 4 Jan 2024 08:00:00 +0000", "2024-01-04T08:00:00Z"},        // one-digit day
		{"November 2, 2024", "2024-11-02"},                                // Brave age
		{"Mar 5, 2023", "2023-03-05"},                                     //
		{"5 March 2023", "2023-03-05"},                                    //
		{" 2024/03/15 ", "2024-03-15"},                                    //
		{"", ""}, {"null", ""}, {"2 days ago", ""}, {"2024", ""}, {"yesterday", ""},
		{"2024-13-01", ""}, {"0099-01-01", ""}, {"2024-02-30", ""},
		{"2024-03-15T10:00:00Z and then some text that is not a date at all, ever", ""},
	} {
		if got := ParseDate(tc.in); got != tc.want {
			t.Errorf("ParseDate(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := ParseDate(tc.want); tc.want != "" && got != tc.want {
			t.Errorf("ParseDate(%q) = %q: its own output does not read back the same", tc.want, got)
		}
	}
}
