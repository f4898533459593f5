package corpus

import (
	"database/sql"
	"strings"
	"testing"
)

func TestMatchQuery(t *testing.T) {
	tests := []struct{ in, want string }{
		{"TAT-8 fibre", `"tat" OR "8" OR "fibre" OR "tat 8" OR "8 fibre" OR NEAR("tat" "8", 8) OR NEAR("8" "fibre", 8)`},
		{"speed of light", `"speed" OR "light" OR "speed of light" OR NEAR("speed" "light", 8)`},
		{`"happens before"`, `"happens" OR "before" OR "happens before" OR NEAR("happens" "before", 8)`},
		{"What is the Great Eastern?", `"great" OR "eastern" OR "great eastern" OR NEAR("great" "eastern", 8)`},
		{"cable AND anchor OR NOT", `"cable" OR "anchor" OR "not" OR "cable and anchor" OR "anchor or not" OR NEAR("cable" "anchor", 8) OR NEAR("anchor" "not", 8)`},
		{"title:cable -shark", `"title" OR "cable" OR "shark" OR "title cable" OR "cable shark" OR NEAR("title" "cable", 8) OR NEAR("cable" "shark", 8)`},
		{"Café CAFÉ café", `"café"`},
		{"🦈 bites", `"bites"`},
		{"the of and", ""},
		{"", ""},
		{`""`, ""},
		{"a b c d e f cable", `"b" OR "c" OR "d" OR "e" OR "f" OR "cable" OR "b c" OR "c d" OR "d e" OR "e f" OR NEAR("b" "c", 8) OR NEAR("c" "d", 8)`},
		{"cable of the the the ship", `"cable" OR "ship" OR NEAR("cable" "ship", 8)`},
	}
	for _, tt := range tests {
		if got := matchQuery(tt.in); got != tt.want {
			t.Errorf("matchQuery(%q) = %s\nwant %s", tt.in, got, tt.want)
		}
	}
}

// FuzzMatchQuery checks that no text makes an FTS5 syntax error.
func FuzzMatchQuery(f *testing.F) {
	for _, s := range []string{
		`"unbalanced`, `a AND`, `OR OR`, `NEAR(a b, 3)`, `col:x`, `-x`, `x*`, `^x`, `{a b}:c`, `(a`, `'`,
		"\x00", "\u200b", "🦈", `a"b`, `AND`, `NOT x`, strings.Repeat("x ", 1000),
	} {
		f.Add(s)
	}
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, s := range schema {
		if _, err := db.Exec(s); err != nil {
			f.Fatal(err)
		}
	}
	if _, err := db.Exec(`INSERT INTO passages_fts(rowid, title, heading, body) VALUES (1, 't', 'h', 'b')`); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, q string) {
		m := matchQuery(q)
		if m == "" {
			return
		}
		rows, err := db.Query(`SELECT rowid FROM passages_fts WHERE passages_fts MATCH ?`, m)
		if err == nil {
			for rows.Next() {
			}
			err = rows.Err()
			rows.Close()
		}
		if err != nil {
			t.Fatalf("matchQuery(%q) = %s: %v", q, m, err)
		}
	})
}
