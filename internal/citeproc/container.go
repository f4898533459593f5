package citeproc

// Container blocks (CommonMark's block quotes and list items), tracked only
// as far as code needs them: a fenced code block that opens inside a
// container belongs to it (its lines carry the container's prefix, and a
// line that does not ends it), a closing fence is indented at most three
// columns relative to the container's content, and an indented code block
// is four columns past it.

// container is an open block quote or list item.
type container struct {
	quote  bool
	indent int  // list item: the columns its content is indented by, relative to its parent's content
	empty  bool // list item: nothing on its lines yet (a blank line then ends it)
}

const (
	// maxConts bounds how deeply containers nest; deeper markers are text.
	maxConts = 32
	// maxPrefix bounds how far a line's container prefix is looked through
	// before it is decided on what has been seen.
	maxPrefix = 512
	// maxBreakScan bounds the look for a thematic break ("- - -").
	maxBreakScan = 128
)

// prefixByte marks the bytes a container prefix can start with.
var prefixByte = func() (t [256]bool) {
	for _, c := range []byte(" \t>-+*0123456789") {
		t[c] = true
	}
	return t
}()

func advanceCol(col int, c byte) int {
	if c == '\t' {
		return col + 4 - col%4
	}
	return col + 1
}

func isEOL(c byte) bool { return c == '\n' || c == '\r' }

// matchConts matches the line at b (its start) against the open containers
// conts, as CommonMark's first phase does: a block quote needs its '>'
// after at most three columns of indentation, a list item needs its
// content indentation or a blank line. It returns the bytes consumed, the
// column reached, the column where the last matched container's content
// starts and how many containers matched. pMore means the line start is
// not yet known well enough.
func matchConts(conts []container, b []byte, eof bool) (n, col, base, matched int, st parseStatus) {
	i := 0
	for matched < len(conts) {
		c := conts[matched]
		i0, col0 := i, col
		if c.quote {
			for i < len(b) && isBlank(b[i]) && col-base < 4 {
				col = advanceCol(col, b[i])
				i++
			}
			if i == len(b) && !eof {
				return 0, 0, 0, 0, pMore
			}
			if i == len(b) || b[i] != '>' || col-base >= 4 {
				i, col = i0, col0
				break
			}
			i++
			col++
			if i == len(b) && !eof {
				return 0, 0, 0, 0, pMore
			}
			if i < len(b) && isBlank(b[i]) {
				col = advanceCol(col, b[i])
				i++
			}
			base = col
			matched++
			continue
		}
		if c.empty {
			// An item with nothing on it yet ends at a blank line.
			j := skipBlanks(b, i)
			if j == len(b) && !eof {
				return 0, 0, 0, 0, pMore
			}
			if j == len(b) || isEOL(b[j]) {
				break
			}
		}
		for i < len(b) && isBlank(b[i]) && col < base+c.indent {
			col = advanceCol(col, b[i])
			i++
		}
		if col >= base+c.indent {
			base += c.indent
			matched++
			continue
		}
		if i == len(b) && !eof {
			return 0, 0, 0, 0, pMore
		}
		if (i == len(b) || isEOL(b[i])) && !c.empty {
			// A blank line continues a list item, unless the item has
			// had nothing on it yet.
			base = col
			matched++
			continue
		}
		i, col = i0, col0
		break
	}
	return i, col, base, matched, pYes
}

// listMarker recognises a list item's marker at b[k:]: "-", "+", "*", or
// 1 to 9 digits then "." or ")", followed by a blank or the line's end.
// It returns the marker's width, whether it is ordered, whether an ordered
// marker starts at 1, and whether the item is empty (nothing follows on
// its line).
func listMarker(b []byte, k int, eof bool) (w int, ordered, one, empty bool, st parseStatus) {
	switch c := b[k]; {
	case c == '-' || c == '+' || c == '*':
		w = 1
	case c >= '0' && c <= '9':
		j := k
		for j < len(b) && j-k < 10 && b[j] >= '0' && b[j] <= '9' {
			j++
		}
		if j == len(b) {
			if !eof {
				return 0, false, false, false, pMore
			}
			return 0, false, false, false, pNo
		}
		if j-k > 9 || (b[j] != '.' && b[j] != ')') {
			return 0, false, false, false, pNo
		}
		ordered, one = true, j-k == 1 && b[k] == '1'
		w = j - k + 1
	default:
		return 0, false, false, false, pNo
	}
	e := k + w
	if e == len(b) {
		if !eof {
			return 0, false, false, false, pMore
		}
		return w, ordered, one, true, pYes
	}
	if !isBlank(b[e]) && !isEOL(b[e]) {
		return 0, false, false, false, pNo
	}
	j := skipBlanks(b, e)
	if j == len(b) && !eof && j-e < 5 {
		return 0, false, false, false, pMore
	}
	empty = j == len(b) || isEOL(b[j])
	return w, ordered, one, empty, pYes
}

// thematicBreak reports whether the line at b[k:] is a thematic break made
// of c ("- - -", "***"), looking at most maxBreakScan bytes.
func thematicBreak(b []byte, k int, c byte, eof bool) (bool, parseStatus) {
	n := 0
	for j := k; j < len(b); j++ {
		if j-k > maxBreakScan {
			return false, pYes
		}
		switch {
		case b[j] == c:
			n++
		case isBlank(b[j]):
		case isEOL(b[j]):
			return n >= 3, pYes
		default:
			return false, pYes
		}
	}
	if !eof {
		return false, pMore
	}
	return n >= 3, pYes
}

// setextUnderline reports whether the line at b[k:] underlines a setext
// heading: a run of c ('-' or '=') then only blanks, looking at most
// maxBreakScan bytes. (Whether a paragraph precedes is the caller's to
// know.)
func setextUnderline(b []byte, k int, c byte, eof bool) (bool, parseStatus) {
	j := k
	for j < len(b) && b[j] == c && j-k <= maxBreakScan {
		j++
	}
	for j < len(b) && isBlank(b[j]) && j-k <= maxBreakScan {
		j++
	}
	switch {
	case j-k > maxBreakScan:
		return false, pYes
	case j == len(b):
		if !eof {
			return false, pMore
		}
		return true, pYes
	}
	return isEOL(b[j]), pYes
}

// prefix decides the container prefix of the line starting at b: which
// open containers continue, which close, which new ones open. On pYes it
// updates the processor's container state and returns the bytes the
// prefix takes (markers and the blanks that belong to them); blanks after
// it are indentation of the line's content.
func (s *scanner) prefix(b []byte, eof bool) (int, parseStatus) {
	if s.nconts == 0 && len(b) > 0 && !prefixByte[b[0]] {
		// No container is open and none opens here: most prose lines.
		s.col, s.base, s.lazyLine = 0, 0, false
		return 0, pYes
	}
	if len(b) > maxPrefix {
		b, eof = b[:maxPrefix], true // decide on what has been seen
	}
	i, col, base, matched, st := matchConts(s.conts[:s.nconts], b, eof)
	if st != pYes {
		return 0, st
	}
	if j := skipBlanks(b, i); j == len(b) && !eof {
		return 0, pMore
	} else if j < len(b) && !isEOL(b[j]) {
		for k := range matched {
			s.conts[k].empty = false // the line has content: its items do
		}
	}
	unmatched := matched < s.nconts
	var pushed [maxConts]container
	np := 0
	for matched+np < maxConts {
		c, k, kc, st := openCont(b, i, col, base, eof, s.para && !unmatched && np == 0)
		if st == pMore {
			return 0, pMore
		}
		if st != pYes {
			break
		}
		pushed[np] = c
		np++
		i, col, base = k, kc, kc
	}
	s.lazyLine = false
	switch {
	case np > 0:
		s.nconts = matched + copy(s.conts[matched:], pushed[:np])
		s.para = false
	case unmatched:
		lz, st := s.lazy(b, i, col, base, eof)
		if st == pMore {
			return 0, pMore
		}
		if !lz {
			s.nconts = matched
			s.para = false
		}
		s.lazyLine = lz
	}
	s.col, s.base = col, base
	return i, pYes
}

// openCont recognises a container that opens at b[i] (column col, the
// enclosing content starting at column base): a block quote's '>' or a list
// item's marker, after at most three columns of indentation. It returns
// the container and where its content starts (index and column). inPara
// says that the line may continue a paragraph, which an empty item or an
// ordered one not starting at 1 cannot interrupt.
func openCont(b []byte, i, col, base int, eof, inPara bool) (container, int, int, parseStatus) {
	k, kc := i, col
	for k < len(b) && isBlank(b[k]) && kc-base < 4 {
		kc = advanceCol(kc, b[k])
		k++
	}
	if kc-base >= 4 {
		return container{}, 0, 0, pNo
	}
	if k == len(b) {
		if !eof {
			return container{}, 0, 0, pMore
		}
		return container{}, 0, 0, pNo
	}
	c := b[k]
	if c == '>' {
		k++
		kc++
		if k == len(b) && !eof {
			return container{}, 0, 0, pMore
		}
		if k < len(b) && isBlank(b[k]) {
			kc = advanceCol(kc, b[k])
			k++
		}
		return container{quote: true}, k, kc, pYes
	}
	w, ordered, one, empty, st := listMarker(b, k, eof)
	if st != pYes {
		return container{}, 0, 0, st
	}
	if inPara && (empty || (ordered && !one)) {
		return container{}, 0, 0, pNo // cannot interrupt a paragraph
	}
	if c == '-' || c == '*' {
		brk, st := thematicBreak(b, k, c, eof)
		if st == pMore {
			return container{}, 0, 0, pMore
		}
		if brk {
			return container{}, 0, 0, pNo
		}
	}
	e := k + w
	ec := kc + w
	j, jc := e, ec
	for j < len(b) && isBlank(b[j]) && jc-ec < 5 {
		jc = advanceCol(jc, b[j])
		j++
	}
	switch {
	case empty:
		jc, j = ec+1, skipBlanks(b, e)
	case jc-ec >= 5:
		jc, j = ec+1, e+1 // content is indented code: one blank belongs to the marker
	}
	return container{indent: jc - base, empty: empty}, j, jc, pYes
}

// lazy reports whether the rest of the line, from b[i], is a paragraph's
// lazy continuation: containers it does not match stay open.
func (s *scanner) lazy(b []byte, i, col, base int, eof bool) (bool, parseStatus) {
	if !s.para {
		return false, pYes
	}
	for i < len(b) && isBlank(b[i]) && col-base < 4 {
		col = advanceCol(col, b[i])
		i++
	}
	if col-base >= 4 {
		return true, pYes
	}
	if i == len(b) {
		if !eof {
			return false, pMore
		}
		return false, pYes
	}
	switch b[i] {
	case '\n', '\r', '#':
		return false, pYes
	case '-', '*', '_':
		brk, st := thematicBreak(b, i, b[i], eof)
		return !brk, st
	case '<':
		// An HTML block that may interrupt a paragraph: a comment or a
		// raw-text element.
		if ok, partial := hasPrefix(b[i:], []byte("<!--")); ok {
			return false, pYes
		} else if partial && !eof {
			return false, pMore
		}
		_, st := tagAt(b[i:], blockTags, eof)
		return st != pYes, st
	case '`', '~':
		run := runOf(b, i, b[i])
		if run < 3 && i+run == len(b) && !eof {
			return false, pMore
		}
		return run < 3, pYes
	}
	return true, pYes
}
