// Command webdouble is the web as a double, for the end-to-end suites:
// deepresearchtest's WebServer (a SearXNG search API over a few pages
// about repairing submarine cables, and the pages themselves) on a
// loopback port, and a second port where a test changes the pages between
// runs. It prints "webdouble: web on URL" and "webdouble: control on URL"
// and serves until it is interrupted or its stdin closes. Point
// deepresearch at the web with SEARXNG_URL=URL,
// DEEPRESEARCH_SEARCH_PROVIDERS=searxng and DEEPRESEARCH_FETCH_ALLOW=HOST:PORT.
//
// The control port takes POST /update/{page} (the request body is the
// page's new text) and POST /remove/{page}?status=410 (the page answers
// that status from then on).
package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/deepresearch/deepresearch/deepresearchtest"
	"github.com/deepresearch/deepresearch/search"
)

// Pages are the web's pages.
var Pages = []search.Document{
	{DocID: "grapnels", Title: "Grapnels",
		Text: "A repair ship lowers a grapnel to lift the damaged submarine cable from the seabed."},
	{DocID: "tanks", Title: "Cable tanks",
		Text: "A repair ship carries spare submarine cable coiled in large circular tanks below deck."},
	{DocID: "costs", Title: "Repair costs",
		Text: "A submarine cable repair by a repair ship costs between one and three million dollars."},
}

// maxText bounds a page's new text.
const maxText = 1 << 16

func main() {
	web, err := deepresearchtest.NewWebServer(Pages...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "webdouble:", err)
		os.Exit(1)
	}
	defer web.Close()
	mux := http.NewServeMux()
	mux.HandleFunc("POST /update/{page}", func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(io.LimitReader(r.Body, maxText))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		web.Update(r.PathValue("page"), string(b))
		w.WriteHeader(http.StatusNoContent)
	})
	mux.HandleFunc("POST /remove/{page}", func(w http.ResponseWriter, r *http.Request) {
		status, err := strconv.Atoi(r.URL.Query().Get("status"))
		if err != nil || status < 400 || status > 599 {
			http.Error(w, "status must be a 4xx or 5xx code", http.StatusBadRequest)
			return
		}
		web.Remove(r.PathValue("page"), status)
		w.WriteHeader(http.StatusNoContent)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "webdouble:", err)
		os.Exit(1)
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	defer srv.Close()
	fmt.Printf("webdouble: web on %s\nwebdouble: control on http://%s\n", web.URL, ln.Addr())

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	eof := make(chan struct{})
	go func() { io.Copy(io.Discard, os.Stdin); close(eof) }()
	select {
	case <-stop:
	case <-eof:
	}
}
