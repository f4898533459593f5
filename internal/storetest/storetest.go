// Package storetest holds run stores to one contract and damages them:
// Run is the conformance suite every store passes (sqlitestore's, the
// in-memory one of deepresearchtest), Damage breaks an SQLite store for
// the tests of what a damaged store still gives (sqlitestore, the command
// line).
package storetest

import (
	"bytes"
	"database/sql"
	"os"
	"testing"

	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// Damage writes 8 KiB of garbage over two neighbouring leaf pages of
// table in the middle of the store at path (found in SQLite's own map of
// the file, dbstat).
func Damage(t testing.TB, path, table string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	var pageSize int64
	if err := db.QueryRow(`PRAGMA page_size`).Scan(&pageSize); err != nil {
		t.Fatal(err)
	}
	rows, err := db.Query(`SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno`, table)
	if err != nil {
		t.Fatal(err)
	}
	var pages []int64
	for rows.Next() {
		var p int64
		rows.Scan(&p)
		pages = append(pages, p)
	}
	rows.Close()
	db.Close()
	page := int64(-1)
	for i := len(pages) / 2; i+1 < len(pages); i++ {
		if pages[i+1] == pages[i]+1 {
			page = pages[i]
			break
		}
	}
	if page < 0 {
		t.Fatalf("no two neighbouring leaf pages in %s's %v", table, pages)
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(bytes.Repeat([]byte("GARBAGE!"), 1024), (page-1)*pageSize); err != nil {
		t.Fatal(err)
	}
}
