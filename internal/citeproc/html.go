package citeproc

import "bytes"

// HTML regions that are never touched: comments (<!-- … -->, to their end
// or the end of the text; one that begins a line is an HTML block, which
// takes the rest of its last line too), HTML blocks of raw text (<pre>, <script>,
// <style>, <textarea> at a line start, to the end of the line holding the
// closing tag, as in CommonMark), inline <code> and <pre> elements closed on
// the same line, and autolinks (<scheme:…>).

// maxInlineHTML bounds how far an inline element's closing tag is looked
// for; an element not closed within it is text.
const maxInlineHTML = 1024

var (
	blockTags  = []string{"pre", "script", "style", "textarea"}
	inlineTags = []string{"code", "pre", "sup"}
)

// tagAt reports whether b[1:] (after a '<') starts with one of tags, case
// insensitively, followed by a blank, '>' or the line's end; it returns
// the tag.
func tagAt(b []byte, tags []string, eof bool) (string, parseStatus) {
	more := false
	for _, t := range tags {
		k := 0
		for k < len(t) && 1+k < len(b) && lower(b[1+k]) == t[k] {
			k++
		}
		switch {
		case k < len(t) && 1+k == len(b):
			more = true
		case k < len(t):
		case 1+k == len(b):
			more = true
		case isBlank(b[1+k]) || isEOL(b[1+k]) || b[1+k] == '>':
			return t, pYes
		}
	}
	if more && !eof {
		return "", pMore
	}
	return "", pNo
}

// htmlBlockStart recognises, at a line start, the opening tag of an HTML
// block of raw text and returns its tag name.
func htmlBlockStart(b []byte, eof bool) (string, parseStatus) {
	return tagAt(b, blockTags, eof)
}

// angle handles a '<' in prose. pYes: a region started (the processor's
// state is set); pNo: the '<' is text (n is 1).
func (s *scanner) angle(b []byte, eof bool) (int, parseStatus) {
	if len(b) < 4 && !eof {
		// "<!--" needs four bytes; every other form decides below.
		if ok, partial := hasPrefix(b, []byte("<!--")); partial || ok {
			return 0, pMore
		}
	}
	if ok, _ := hasPrefix(b, []byte("<!--")); ok {
		s.out.code(b[:4])
		s.st, s.dashes = stComment, 2 // "<!-->" is a whole comment
		s.pos += 4
		return 4, pYes
	}
	if n, st := autolinkScheme(b, eof); st != pNo {
		if st == pYes {
			s.out.code(b[:n])
			s.st = stAutolink
			s.pos += n
		}
		return n, st
	}
	t, st := tagAt(b, inlineTags, eof)
	switch {
	case st == pMore:
		return 0, pMore
	case st == pYes && t == "sup":
		return s.sup(b, eof)
	case st == pYes:
		s.st = stHTMLInline
		s.closer = "</" + t + ">"
		s.spanScan = 1 + len(t)
		return 0, pYes
	}
	return 1, pNo
}

// sup handles a <sup> tag in prose. One whose class is "cite" and which
// carries data-sids="1,3" (the HTML form of the citation protocol, <sup
// class="cite" data-sids="1,3">…</sup>) is a citation: the attribute's
// value is a marker candidate, the rest of the tag code. Any other <sup>
// tag's '<' is text (pNo, 1), as is one not closed on its line.
func (s *scanner) sup(b []byte, eof bool) (int, parseStatus) {
	end, vs, ve, st := citeSup(b, eof)
	if st != pYes {
		return 1, st
	}
	s.out.code(b[:vs])
	if s.c.parseSids(b[vs : ve+1]) {
		s.c.raw, s.c.at, s.c.inBrackets, s.c.label = b[vs:ve], s.off+int64(s.pos+vs), false, false
		s.out.marker(&s.c)
		s.out.code(b[ve:end])
	} else {
		s.out.code(b[vs:end]) // data-sids of no numbers: no citation
	}
	s.pos += end
	return end, pYes
}

// citeSup reads a <sup> tag at b to its '>' on the line, within
// maxInlineHTML bytes, and reports whether its class attribute holds the
// class "cite" and it has a quoted data-sids attribute: pYes with the
// tag's length and the value's bounds (b[vs:ve], the closing quote at
// b[ve]); pMore when the tag is cut by the end of the input; else pNo.
func citeSup(b []byte, eof bool) (end, vs, ve int, st parseStatus) {
	cite := false
	vs = -1
	i := len("<sup")
	for {
		for i < len(b) && isBlank(b[i]) {
			i++
		}
		if i >= maxInlineHTML {
			return 0, 0, 0, pNo
		}
		if i == len(b) {
			if eof {
				return 0, 0, 0, pNo
			}
			return 0, 0, 0, pMore
		}
		switch b[i] {
		case '>':
			if !cite || vs < 0 {
				return 0, 0, 0, pNo
			}
			return i + 1, vs, ve, pYes
		case '/':
			i++
			continue
		case '\n', '\r', '<':
			return 0, 0, 0, pNo
		}
		ns := i
		for i < len(b) && attrNameByte(b[i]) {
			i++
		}
		if i == ns {
			return 0, 0, 0, pNo
		}
		name := b[ns:i]
		for i < len(b) && isBlank(b[i]) {
			i++
		}
		if i == len(b) {
			continue // decided above: more input, or no tag
		}
		if b[i] != '=' {
			continue // an attribute without a value
		}
		i++
		for i < len(b) && isBlank(b[i]) {
			i++
		}
		if i == len(b) {
			continue
		}
		q := b[i]
		if q != '"' && q != '\'' {
			for i < len(b) && !isBlank(b[i]) && b[i] != '>' && !isEOL(b[i]) {
				i++ // an unquoted value
			}
			continue
		}
		j := i + 1
		for j < len(b) && b[j] != q && !isEOL(b[j]) {
			j++
		}
		if j == len(b) {
			i = j
			continue
		}
		if b[j] != q {
			return 0, 0, 0, pNo
		}
		switch {
		case len(name) == len("class") && equalFold(name, "class"):
			for _, f := range bytes.Fields(b[i+1 : j]) {
				cite = cite || string(f) == "cite"
			}
		case len(name) == len("data-sids") && equalFold(name, "data-sids"):
			vs, ve = i+1, j
		}
		i = j + 1
	}
}

func attrNameByte(c byte) bool {
	return c|0x20 >= 'a' && c|0x20 <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == ':' || c == '.'
}

// autolinkScheme recognises "<scheme:" (a letter, then 1 to 31 letters,
// digits, '+', '.', '-') and returns its length.
func autolinkScheme(b []byte, eof bool) (int, parseStatus) {
	k := 1
	for ; k < len(b) && k <= 33; k++ {
		c := b[k]
		switch {
		case c|0x20 >= 'a' && c|0x20 <= 'z':
		case k > 1 && (c >= '0' && c <= '9' || c == '+' || c == '.' || c == '-'):
		case c == ':' && k >= 3:
			return k + 1, pYes
		default:
			return 0, pNo
		}
	}
	if k == len(b) && !eof {
		return 0, pMore
	}
	return 0, pNo
}

// scanAutolink copies an autolink to its '>', stopping (the autolink was
// not one) at a blank, a '<' or the line's end.
func (s *scanner) scanAutolink() bool {
	b := s.buf
	i := s.pos
	for i < len(b) {
		c := b[i]
		if c == '>' {
			i++
			s.st = stText
			break
		}
		if isBlank(c) || isEOL(c) || c == '<' {
			s.st = stText
			break
		}
		i++
	}
	s.out.code(b[s.pos:i])
	s.pos = i
	return true
}

// scanComment copies an HTML comment up to and including its "-->".
func (s *scanner) scanComment() bool {
	b := s.buf
	i := s.pos
	for i < len(b) {
		c := b[i]
		i++
		switch {
		case c == '-':
			s.dashes++
		case c == '>' && s.dashes >= 2:
			s.out.code(b[s.pos:i])
			s.pos = i
			s.st = stText
			s.dashes = 0
			if s.blockHTML {
				// An HTML block (CommonMark type 2) ends with the line
				// that closes it: the rest of that line is raw HTML too.
				s.st = stIndented
			}
			return true
		default:
			s.dashes = 0
		}
	}
	s.out.code(b[s.pos:i])
	s.pos = i
	return true
}

// scanHTMLBlock copies an HTML block of raw text up to the end of the line
// that holds its closing tag.
func (s *scanner) scanHTMLBlock() bool {
	b := s.buf
	i := s.pos
	for i < len(b) {
		c := b[i]
		i++
		switch {
		case c == '\n' && s.closerSeen == len(s.closer):
			s.out.code(b[s.pos:i])
			s.pos = i
			s.st = stText
			s.endBlock()
			return true
		case s.closerSeen == len(s.closer):
		case lower(c) == s.closer[s.closerSeen]:
			s.closerSeen++
		case c == '<':
			s.closerSeen = 1 // '<' does not recur in a closer
		default:
			s.closerSeen = 0
		}
	}
	s.out.code(b[s.pos:i])
	s.pos = i
	return true
}

// scanHTMLInline looks for the closing tag of the inline element opened at
// pos on the same line. Found, the element is copied; not found, its '<'
// is text and scanning resumes after it.
func (s *scanner) scanHTMLInline(eof bool) bool {
	b := s.buf[s.pos:]
	i := s.spanScan
	for i < len(b) && i < maxInlineHTML {
		c := b[i]
		if c == '\n' {
			break
		}
		if c == '<' && i+len(s.closer) <= len(b) && equalFold(b[i:i+len(s.closer)], s.closer) {
			i += len(s.closer)
			s.out.code(b[:i])
			s.pos += i
			s.st = stText
			return true
		}
		if c == '<' && i+len(s.closer) > len(b) && !eof {
			s.spanScan = i // the closer may be cut by the chunk boundary
			return false
		}
		i++
	}
	if i == len(b) && !eof && i < maxInlineHTML {
		s.spanScan = i
		return false
	}
	s.out.text(b[:1]) // not closed on its line: the '<' is text
	s.pos++
	s.st = stText
	return true
}

func equalFold(b []byte, s string) bool {
	for k := range len(s) {
		if lower(b[k]) != s[k] {
			return false
		}
	}
	return true
}
