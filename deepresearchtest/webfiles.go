package deepresearchtest

import (
	"net/http"

	"github.com/deepresearch/deepresearch/search"
)

// rawPage is a page served as it is, with its own media type.
type rawPage struct {
	contentType string
	body        []byte
}

// ServeAs makes the page of the document docID a file of the given media
// type (a PDF, "application/pdf", say) served as body, instead of the HTML
// page the server makes of the document's text; searches still find the
// document by its text. Call it before the server is used.
func (s *WebServer) ServeAs(docID, contentType string, body []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.raw == nil {
		s.raw = map[string]rawPage{}
	}
	s.raw[docID] = rawPage{contentType: contentType, body: body}
}

// rawFor returns the file docID is served as, if ServeAs made it one.
func (s *WebServer) rawFor(docID string) (rawPage, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.raw[docID]
	return p, ok
}

// pageChange is how a page differs from its document (Update, Remove,
// Redirect).
type pageChange struct {
	text     string // the page's new text, when not ""
	status   int    // the status answered instead of the page, when not 0
	location string // where a redirect (status 3xx) leads
}

// Update makes the page of the document docID show text from now on
// instead of the document's (searches still find the document by its old
// text): the page changed since it was read.
func (s *WebServer) Update(docID, text string) { s.change(docID, pageChange{text: text}) }

// Remove makes the page of the document docID answer status from now on
// (http.StatusNotFound, http.StatusGone) with no page.
func (s *WebServer) Remove(docID string, status int) { s.change(docID, pageChange{status: status}) }

// Redirect makes the page of the document docID answer a redirect
// (status 301, 302, 307 or 308) to location, a URL or a path of this
// server ("/pages/other").
func (s *WebServer) Redirect(docID string, status int, location string) {
	s.change(docID, pageChange{status: status, location: location})
}

func (s *WebServer) change(docID string, c pageChange) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.changed == nil {
		s.changed = map[string]pageChange{}
	}
	s.changed[docID] = c
}

// answerChanged answers the request for d's page as Update, Remove or
// Redirect changed it, and reports whether it did; an Update only changes
// d's text, and the page is then written as usual.
func (s *WebServer) answerChanged(w http.ResponseWriter, r *http.Request, d *search.Document) bool {
	s.mu.Lock()
	c, ok := s.changed[d.DocID]
	s.mu.Unlock()
	switch {
	case !ok:
		return false
	case c.location != "":
		http.Redirect(w, r, c.location, c.status)
		return true
	case c.status != 0:
		http.Error(w, http.StatusText(c.status), c.status)
		return true
	}
	d.Text = c.text
	return false
}
