package citeproc

// HTML regions that are never touched: comments (<!-- … -->, to their end
// or the end of the text; one that begins a line is an HTML block, which
// takes the rest of its last line too), HTML blocks of raw text (<pre>, <script>,
// <style>, <textarea> at a line start, to the end of the line holding the
// closing tag, as in CommonMark), inline <code> and <pre> elements closed on
// the same line, and autolinks (<scheme:…>).

// maxInlineHTML bounds how far an inline element's closing tag is looked
// for; an element not closed within it is text.
const maxInlineHTML = 1024

var blockTags = []string{"pre", "script", "style", "textarea"}

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
func (p *Processor) angle(b []byte, eof bool) (int, parseStatus) {
	if len(b) < 4 && !eof {
		// "<!--" needs four bytes; every other form decides below.
		if ok, partial := hasPrefix(b, []byte("<!--")); partial || ok {
			return 0, pMore
		}
	}
	if ok, _ := hasPrefix(b, []byte("<!--")); ok {
		p.put(b[:4])
		p.st, p.dashes = stComment, 2 // "<!-->" is a whole comment
		p.pos += 4
		return 4, pYes
	}
	if n, st := autolinkScheme(b, eof); st != pNo {
		if st == pYes {
			p.put(b[:n])
			p.st = stAutolink
			p.pos += n
		}
		return n, st
	}
	t, st := tagAt(b, []string{"code", "pre"}, eof)
	switch st {
	case pMore:
		return 0, pMore
	case pYes:
		p.st = stHTMLInline
		p.closer = "</" + t + ">"
		p.spanScan = 1 + len(t)
		return 0, pYes
	}
	return 1, pNo
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
func (p *Processor) scanAutolink() bool {
	b := p.buf
	i := p.pos
	for i < len(b) {
		c := b[i]
		if c == '>' {
			i++
			p.st = stText
			break
		}
		if isBlank(c) || isEOL(c) || c == '<' {
			p.st = stText
			break
		}
		i++
	}
	p.put(b[p.pos:i])
	p.pos = i
	return true
}

// scanComment copies an HTML comment up to and including its "-->".
func (p *Processor) scanComment() bool {
	b := p.buf
	i := p.pos
	for i < len(b) {
		c := b[i]
		i++
		switch {
		case c == '-':
			p.dashes++
		case c == '>' && p.dashes >= 2:
			p.put(b[p.pos:i])
			p.pos = i
			p.st = stText
			p.dashes = 0
			if p.blockHTML {
				// An HTML block (CommonMark type 2) ends with the line
				// that closes it: the rest of that line is raw HTML too.
				p.st = stIndented
			}
			return true
		default:
			p.dashes = 0
		}
	}
	p.put(b[p.pos:i])
	p.pos = i
	return true
}

// scanHTMLBlock copies an HTML block of raw text up to the end of the line
// that holds its closing tag.
func (p *Processor) scanHTMLBlock() bool {
	b := p.buf
	i := p.pos
	for i < len(b) {
		c := b[i]
		i++
		switch {
		case c == '\n' && p.closerSeen == len(p.closer):
			p.put(b[p.pos:i])
			p.pos = i
			p.st = stText
			p.endBlock()
			return true
		case p.closerSeen == len(p.closer):
		case lower(c) == p.closer[p.closerSeen]:
			p.closerSeen++
		case c == '<':
			p.closerSeen = 1 // '<' does not recur in a closer
		default:
			p.closerSeen = 0
		}
	}
	p.put(b[p.pos:i])
	p.pos = i
	return true
}

// scanHTMLInline looks for the closing tag of the inline element opened at
// pos on the same line. Found, the element is copied; not found, its '<'
// is text and scanning resumes after it.
func (p *Processor) scanHTMLInline(eof bool) bool {
	b := p.buf[p.pos:]
	i := p.spanScan
	for i < len(b) && i < maxInlineHTML {
		c := b[i]
		if c == '\n' {
			break
		}
		if c == '<' && i+len(p.closer) <= len(b) && equalFold(b[i:i+len(p.closer)], p.closer) {
			i += len(p.closer)
			p.put(b[:i])
			p.pos += i
			p.st = stText
			return true
		}
		if c == '<' && i+len(p.closer) > len(b) && !eof {
			p.spanScan = i // the closer may be cut by the chunk boundary
			return false
		}
		i++
	}
	if i == len(b) && !eof && i < maxInlineHTML {
		p.spanScan = i
		return false
	}
	p.put(b[:1])
	p.pos++
	p.st = stText
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
