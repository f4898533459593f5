package docx

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
)

// Parts reads a document's parts by name, each checked to be well-formed
// XML (encoding/xml refuses the characters XML 1.0 forbids): what a test,
// or a reader that trusts nothing, needs of a written document.
func Parts(b []byte) (map[string]string, error) {
	z, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, fmt.Errorf("docx: not a zip: %w", err)
	}
	out := map[string]string{}
	for _, f := range z.File {
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("docx: %s: %w", f.Name, err)
		}
		data, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("docx: %s: %w", f.Name, err)
		}
		dec := xml.NewDecoder(bytes.NewReader(data))
		for {
			if _, err := dec.Token(); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return nil, fmt.Errorf("docx: %s is not well-formed: %w", f.Name, err)
			}
		}
		out[f.Name] = string(data)
	}
	return out, nil
}
