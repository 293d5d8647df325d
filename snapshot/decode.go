package snapshot

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Reading history.json fast. At the retention caps json.Unmarshal spent
// 0.7 s of a build on it, nearly all in the 100 000 incidents and 50 000
// changes. decodeHistory reads those two lists with a small parser made for
// the shape a build writes them in, and leaves everything else to
// encoding/json. On anything that parser does not expect — a key in another
// case or unknown, a key twice, a number with a fraction, a syntax error —
// it starts over with json.Unmarshal, so the result, or the error, is
// always encoding/json's (FuzzDecodeHistory checks it). The strings it
// cannot copy as they are (escapes, invalid UTF-8) and the times are
// handed to encoding/json's and time.Time's own decoders, one value at a
// time.

// errNotFast stops the fast path: the input is left to json.Unmarshal.
var errNotFast = errors.New("history: not the shape the fast path reads")

// decodeHistory decodes history.json into h, which must be zero, as
// json.Unmarshal does.
func decodeHistory(data []byte, h *History) error {
	if fastHistory(data, h) == nil {
		return nil
	}
	*h = History{}
	return json.Unmarshal(data, h)
}

func fastHistory(data []byte, h *History) error {
	p := &parser{data: data}
	// Every other member is gathered into an object of its own, in order,
	// for json.Unmarshal.
	rest := []byte{'{'}
	var seen uint8
	err := p.object(func(key []byte) error {
		switch string(key) {
		case "incidents":
			if err := once(&seen, 1); err != nil {
				return err
			}
			// A written incident takes about 350 bytes, and the log
			// follows: a hint that is seldom short.
			return parseList(p, &h.Incidents, (len(data)-p.i)/300, p.incident)
		case "changes":
			if err := once(&seen, 2); err != nil {
				return err
			}
			return parseList(p, &h.Changes, (len(data)-p.i)/150, p.change)
		}
		if k := string(key); strings.EqualFold(k, "incidents") || strings.EqualFold(k, "changes") {
			return errNotFast
		}
		p.space()
		start := p.i
		if err := p.skip(); err != nil {
			return err
		}
		if len(rest) > 1 {
			rest = append(rest, ',')
		}
		rest = append(append(append(rest, '"'), key...), `":`...)
		rest = append(rest, data[start:p.i]...)
		return nil
	})
	if err != nil {
		return err
	}
	if p.space(); p.i != len(data) {
		return errNotFast
	}
	if err := json.Unmarshal(append(rest, '}'), h); err != nil {
		return errNotFast
	}
	return nil
}

// once marks bit in seen, and stops at a key seen before: encoding/json
// merges the two, which the fast path does not.
func once[T uint8 | uint16](seen *T, bit T) error {
	if *seen&bit != 0 {
		return errNotFast
	}
	*seen |= bit
	return nil
}

// parser reads JSON from data at i.
type parser struct {
	data []byte
	i    int
	// words are the recurring strings read so far, each held once.
	words map[string]string
}

func (p *parser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// take consumes c, the next byte but for spaces, if it is there.
func (p *parser) take(c byte) bool {
	p.space()
	if p.i < len(p.data) && p.data[p.i] == c {
		p.i++
		return true
	}
	return false
}

// null consumes a null, if it is next.
func (p *parser) null() bool {
	p.space()
	if bytes.HasPrefix(p.data[p.i:], []byte("null")) {
		p.i += 4
		return true
	}
	return false
}

// token reads a string token, quotes included; plain says it holds no
// escape and is valid UTF-8, so that its bytes are its value.
func (p *parser) token() (tok []byte, plain bool, err error) {
	p.space()
	if p.i >= len(p.data) || p.data[p.i] != '"' {
		return nil, false, errNotFast
	}
	start := p.i
	ascii := true
	for p.i++; p.i < len(p.data); p.i++ {
		switch c := p.data[p.i]; {
		case c == '"':
			p.i++
			tok = p.data[start:p.i]
			return tok, ascii || utf8.Valid(tok), nil
		case c == '\\':
			return p.escapedToken(start)
		case c < 0x20:
			return nil, false, errNotFast
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false, errNotFast
}

// escapedToken reads a string token with escapes from start, its opening
// quote.
func (p *parser) escapedToken(start int) ([]byte, bool, error) {
	for p.i = start + 1; p.i < len(p.data); {
		switch c := p.data[p.i]; {
		case c == '"':
			p.i++
			return p.data[start:p.i], false, nil
		case c == '\\':
			p.i += 2
		case c < 0x20:
			return nil, false, errNotFast
		default:
			p.i++
		}
	}
	return nil, false, errNotFast
}

// str decodes a string into dst; null leaves it as it is, as encoding/json
// does.
func (p *parser) str(dst *string) error {
	return p.decodeString(dst, false)
}

// word decodes a string of the few that recur (a slug, a severity, a
// status), sharing one copy of each.
func (p *parser) word(dst *string) error {
	return p.decodeString(dst, true)
}

func (p *parser) decodeString(dst *string, shared bool) error {
	if p.null() {
		return nil
	}
	tok, plain, err := p.token()
	switch {
	case err != nil:
		return err
	case !plain:
		if json.Unmarshal(tok, dst) != nil {
			return errNotFast
		}
		return nil
	case !shared:
		*dst = string(tok[1 : len(tok)-1])
		return nil
	}
	if w, ok := p.words[string(tok[1:len(tok)-1])]; ok {
		*dst = w
		return nil
	}
	*dst = string(tok[1 : len(tok)-1])
	if p.words == nil {
		p.words = map[string]string{}
	}
	if len(p.words) < maxWords {
		p.words[*dst] = *dst
	}
	return nil
}

// maxWords bounds the shared strings, whatever the input.
const maxWords = 1024

// time decodes a time with time.Time.UnmarshalJSON, which encoding/json
// calls (null leaves it as it is).
func (p *parser) time(dst *time.Time) error {
	if p.null() {
		return nil
	}
	tok, _, err := p.token()
	if err != nil {
		return err
	}
	if dst.UnmarshalJSON(tok) != nil {
		return errNotFast
	}
	return nil
}

// timePtr decodes a time a pointer holds: null is nil.
func (p *parser) timePtr(dst **time.Time) error {
	if p.null() {
		*dst = nil
		return nil
	}
	*dst = new(time.Time)
	return p.time(*dst)
}

// int decodes an integer without fraction or exponent.
func (p *parser) int(dst *int64) error {
	if p.null() {
		return nil
	}
	start := p.i
	if p.i < len(p.data) && p.data[p.i] == '-' {
		p.i++
	}
	digits := p.i
	for p.i < len(p.data) && p.data[p.i] >= '0' && p.data[p.i] <= '9' {
		p.i++
	}
	if p.i == digits || p.data[digits] == '0' && p.i-digits > 1 {
		return errNotFast
	}
	n, err := strconv.ParseInt(string(p.data[start:p.i]), 10, 64)
	if err != nil {
		return errNotFast
	}
	*dst = n
	return nil
}

// object calls member for each key of an object, with the parser at its
// value; keys must be plain.
func (p *parser) object(member func(key []byte) error) error {
	if !p.take('{') {
		return errNotFast
	}
	if p.take('}') {
		return nil
	}
	for {
		tok, plain, err := p.token()
		if err != nil || !plain || !p.take(':') {
			return errNotFast
		}
		if err := member(tok[1 : len(tok)-1]); err != nil {
			return err
		}
		if p.take(',') {
			continue
		}
		if p.take('}') {
			return nil
		}
		return errNotFast
	}
}

// parseList decodes an array into *dst, which must be nil, each element by
// elem: null is nil and [] an empty list, as encoding/json has them. about
// is the length expected: the list is made that large at once rather than
// grown step by step, and trimmed if it was much too large.
func parseList[T any](p *parser, dst *[]T, about int, elem func(*T) error) error {
	if p.null() {
		return nil
	}
	if !p.take('[') {
		return errNotFast
	}
	list := make([]T, 0, about)
	defer func() {
		if cap(*dst) > len(*dst)+len(*dst)/8+16 {
			*dst = slices.Clone(*dst)
		}
	}()
	if !p.take(']') {
		for {
			var v T
			list = append(list, v)
			if err := elem(&list[len(list)-1]); err != nil {
				return err
			}
			if p.take(',') {
				continue
			}
			if p.take(']') {
				break
			}
			return errNotFast
		}
	}
	*dst = list
	return nil
}

func (p *parser) incident(inc *Incident) error {
	var seen uint16
	return p.object(func(key []byte) error {
		switch string(key) {
		case "id":
			return errors.Join(once(&seen, 1), p.str(&inc.ID))
		case "service":
			return errors.Join(once(&seen, 2), p.word(&inc.Service))
		case "headline":
			return errors.Join(once(&seen, 4), p.str(&inc.Headline))
		case "severity":
			return errors.Join(once(&seen, 8), p.word((*string)(&inc.Severity)))
		case "startedAt":
			return errors.Join(once(&seen, 16), p.time(&inc.StartedAt))
		case "endedAt":
			return errors.Join(once(&seen, 32), p.timePtr(&inc.EndedAt))
		case "status":
			return errors.Join(once(&seen, 64), p.word(&inc.Status))
		case "source":
			return errors.Join(once(&seen, 128), p.word(&inc.Source))
		case "url":
			return errors.Join(once(&seen, 256), p.str(&inc.URL))
		case "updatedAt":
			return errors.Join(once(&seen, 512), p.time(&inc.UpdatedAt))
		}
		return errNotFast
	})
}

func (p *parser) change(c *Change) error {
	var seen uint8
	return p.object(func(key []byte) error {
		switch string(key) {
		case "id":
			return errors.Join(once(&seen, 1), p.int(&c.ID))
		case "type":
			return errors.Join(once(&seen, 2), p.word((*string)(&c.Type)))
		case "service":
			return errors.Join(once(&seen, 4), p.word(&c.Service))
		case "time":
			return errors.Join(once(&seen, 8), p.time(&c.Time))
		case "oldStatus":
			return errors.Join(once(&seen, 16), p.word((*string)(&c.OldStatus)))
		case "newStatus":
			return errors.Join(once(&seen, 32), p.word((*string)(&c.NewStatus)))
		case "incident":
			if err := once(&seen, 64); err != nil {
				return err
			}
			if p.null() {
				return nil
			}
			c.Incident = new(Incident)
			return p.incident(c.Incident)
		case "changed":
			if err := once(&seen, 128); err != nil {
				return err
			}
			return parseList(p, &c.Changed, 0, p.word)
		}
		return errNotFast
	})
}

// skip passes over one value of any kind; its bytes are then checked by
// json.Unmarshal.
func (p *parser) skip() error {
	p.space()
	if p.i >= len(p.data) {
		return errNotFast
	}
	switch p.data[p.i] {
	case '"':
		_, _, err := p.token()
		return err
	case '{', '[':
		depth := 0
		for p.i < len(p.data) {
			switch p.data[p.i] {
			case '"':
				if _, _, err := p.token(); err != nil {
					return err
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					p.i++
					return nil
				}
			}
			p.i++
		}
		return errNotFast
	}
	for p.i < len(p.data) && !strings.ContainsRune(",}] \t\n\r", rune(p.data[p.i])) {
		p.i++ // a number or a literal
	}
	return nil
}
