package deepresearchtest

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
