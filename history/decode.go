package history

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/snapshot"
)

// Reading history.json fast. At the retention caps json.Unmarshal spent
// 0.7 s of a build on it, nearly all in the 100 000 incidents and 50 000
// changes, and held the whole 51 MB file beside what it decoded to.
// ReadHistory (and ReadChangeLog) read the file through a window and those
// two lists with a small parser made for the shape a build writes them in,
// and leave everything else to encoding/json. On anything that parser does
// not expect — a key in another case or unknown, a key twice, a number with
// a fraction, a syntax error — they start over with json.Unmarshal, so the
// result, or the error, is always encoding/json's (FuzzDecodeHistory checks
// it). The strings the parser cannot copy as they are (escapes, invalid
// UTF-8) and the times are handed to encoding/json's and time.Time's own
// decoders, one value at a time.

// errNotFast stops the fast path: the input is left to json.Unmarshal.
var errNotFast = errors.New("history: not the shape the fast path reads")

// readWindow is how much of history.json is read at a time.
const readWindow = 256 << 10

// ReadChangeLog reads only the change log of the history in fsys (a
// snapshot folder) — the changes and when the log begins, what the server
// answers /changes, the event stream and ?at= from — as fast as ReadHistory
// and without holding the rest: the incidents and the services are passed
// over, not decoded (nor checked). A missing file is an empty log.
func ReadChangeLog(fsys fs.FS) (changes []api.Change, since time.Time, err error) {
	f, err := fsys.Open(snapshot.FileHistory)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, time.Time{}, nil
	}
	if err != nil {
		return nil, time.Time{}, err
	}
	defer f.Close()
	var h History
	info, err := f.Stat()
	if err == nil {
		err = readHistory(f, int(info.Size()), readWindow, &h, true)
	}
	if err != nil {
		data, err := fs.ReadFile(fsys, snapshot.FileHistory)
		if err != nil {
			return nil, time.Time{}, err
		}
		var log struct {
			Changes      []api.Change `json:"changes"`
			ChangesSince time.Time    `json:"changesSince"`
		}
		if err := json.Unmarshal(data, &log); err != nil {
			return nil, time.Time{}, fmt.Errorf("%s: %w", snapshot.FileHistory, err)
		}
		return log.Changes, log.ChangesSince, nil
	}
	return h.Changes, h.ChangesSince, nil
}

// DecodeIncidentList reads an incident list document (incidents.json: an
// object whose "incidents" member is the list) with ReadHistory's parser,
// and gives with each incident the span of its bytes in data, so that a
// server can send them as they are. Only the list is decoded; the other
// members are only checked to be JSON. ok is false on anything the parser
// does not expect (a key in another case, a field it does not know, a
// key twice, an escaped key, a syntax error): the caller then decodes with
// encoding/json, whose result this one equals whenever ok is true.
func DecodeIncidentList(data []byte) (list []api.Incident, spans [][2]int, ok bool) {
	p := &parser{data: data, size: len(data), mark: -1}
	var seen uint8
	err := p.object(func(key []byte) error {
		if string(key) != "incidents" {
			value, err := p.skip()
			if err == nil && !json.Valid(value) {
				err = errNotFast
			}
			return err
		}
		if err := once(&seen, 1); err != nil {
			return err
		}
		return parseList(p, &list, len(data)/300, func(inc *api.Incident) error {
			p.space()
			start := p.i // data is the whole window: p.i is an offset in it
			if err := p.incident(inc); err != nil {
				return err
			}
			spans = append(spans, [2]int{start, p.i})
			return nil
		})
	})
	if p.space(); err != nil || p.at(0) {
		return nil, nil, false
	}
	return list, spans, true
}

// fastHistory decodes history.json from r, size bytes, reading it window
// bytes at a time: the file is never held whole beside what it decodes
// to. Any error, errNotFast or r's, leaves h to be decoded again by
// json.Unmarshal.
func fastHistory(r io.Reader, size, window int, h *History) error {
	return readHistory(r, size, window, h, false)
}

// readHistory is fastHistory; with logOnly, it decodes the change log and
// its start only and passes over the rest.
func readHistory(r io.Reader, size, window int, h *History, logOnly bool) error {
	p := &parser{r: r, data: make([]byte, 0, window), size: size, mark: -1}
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
			if logOnly {
				return p.pass()
			}
			// A written incident takes about 350 bytes, and the log
			// follows: a hint that is seldom short.
			return parseList(p, &h.Incidents, p.left()/300, p.incident)
		case "changes":
			if err := once(&seen, 2); err != nil {
				return err
			}
			return parseList(p, &h.Changes, p.left()/150, p.change)
		}
		k := string(key) // key is in the window, which the value may move
		if strings.EqualFold(k, "incidents") || strings.EqualFold(k, "changes") {
			return errNotFast
		}
		if logOnly && !strings.EqualFold(k, "changesSince") {
			return p.pass()
		}
		value, err := p.skip()
		if err != nil {
			return err
		}
		if len(rest) > 1 {
			rest = append(rest, ',')
		}
		rest = append(append(append(rest, '"'), k...), `":`...)
		rest = append(rest, value...)
		return nil
	})
	if err != nil {
		return err
	}
	if p.space(); p.at(0) {
		return errNotFast // more than one value
	}
	if p.err != nil {
		return p.err
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

// parser reads JSON from r through a window, data, at i.
type parser struct {
	r    io.Reader
	data []byte
	i    int
	// mark, when not -1, is the start of the token being read: a refill
	// of the window keeps it and what follows.
	mark int
	// size is the input's length, off where the window starts in it.
	size, off int
	err       error // r's, other than io.EOF
	// words are the recurring strings read so far, each held once.
	words map[string]string
}

// at reports whether there is a byte at i+k, reading more input if need
// be.
func (p *parser) at(k int) bool {
	for p.i+k >= len(p.data) {
		if !p.more() {
			return false
		}
	}
	return true
}

// more reads more input into the window, dropping what is before i (or
// mark): false at the end of the input.
func (p *parser) more() bool {
	if p.r == nil {
		return false
	}
	keep := p.i
	if p.mark >= 0 {
		keep = min(keep, p.mark)
	}
	if keep > 0 {
		n := copy(p.data, p.data[keep:])
		p.data, p.off, p.i = p.data[:n], p.off+keep, p.i-keep
		if p.mark >= 0 {
			p.mark -= keep
		}
	}
	if len(p.data) == cap(p.data) { // a token larger than the window
		p.data = slices.Grow(p.data, cap(p.data))
	}
	n, err := p.r.Read(p.data[len(p.data):cap(p.data)])
	p.data = p.data[:len(p.data)+n]
	if err != nil {
		if err != io.EOF {
			p.err = err
		}
		p.r = nil
	}
	return n > 0 || p.r != nil && p.more()
}

// left is how much of the input is not read yet.
func (p *parser) left() int { return max(p.size-p.off-p.i, 0) }

func (p *parser) space() {
	for p.at(0) {
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
	if p.at(0) && p.data[p.i] == c {
		p.i++
		return true
	}
	return false
}

// null consumes a null, if it is next.
func (p *parser) null() bool {
	p.space()
	if p.at(3) && string(p.data[p.i:p.i+4]) == "null" {
		p.i += 4
		return true
	}
	return false
}

// token reads a string token, quotes included; plain says it holds no
// escape and is valid UTF-8, so that its bytes are its value. The token is
// in the window: it is good until the parser reads on.
func (p *parser) token() (tok []byte, plain bool, err error) {
	p.space()
	if !p.at(0) || p.data[p.i] != '"' {
		return nil, false, errNotFast
	}
	p.mark = p.i
	defer func() { p.mark = -1 }()
	ascii, escaped := true, false
	p.i++
	for {
		// The window is scanned byte by byte, refilled only at its end.
		i, data := p.i, p.data
		for ; i < len(data); i++ {
			switch c := data[i]; {
			case c == '"':
				p.i = i + 1
				tok = data[p.mark:p.i]
				return tok, !escaped && (ascii || utf8.Valid(tok)), nil
			case c == '\\':
				escaped = true
				i++ // the escaped byte, perhaps past the window
			case c < 0x20:
				return nil, false, errNotFast
			case c >= utf8.RuneSelf:
				ascii = false
			}
		}
		p.i = i
		if !p.at(0) {
			return nil, false, errNotFast
		}
	}
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
	p.mark = p.i
	defer func() { p.mark = -1 }()
	if p.at(0) && p.data[p.i] == '-' {
		p.i++
	}
	digits := p.i - p.mark
	for p.at(0) && p.data[p.i] >= '0' && p.data[p.i] <= '9' {
		p.i++
	}
	number := p.data[p.mark:p.i]
	if len(number) == digits || number[digits] == '0' && len(number)-digits > 1 {
		return errNotFast
	}
	n, err := strconv.ParseInt(string(number), 10, 64)
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
		if err != nil || !plain {
			return errNotFast
		}
		// The key is kept in the window past the colon; member reads it
		// before anything else.
		p.mark = p.i - len(tok)
		colon := p.take(':')
		key := p.data[p.mark+1 : p.mark+len(tok)-1]
		p.mark = -1
		if !colon {
			return errNotFast
		}
		if err := member(key); err != nil {
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

func (p *parser) incident(inc *api.Incident) error {
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

func (p *parser) change(c *api.Change) error {
	var seen uint16
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
			c.Incident = new(api.Incident)
			return p.incident(c.Incident)
		case "changed":
			if err := once(&seen, 128); err != nil {
				return err
			}
			return parseList(p, &c.Changed, 0, p.word)
		case "surface":
			return errors.Join(once(&seen, 256), p.word((*string)(&c.Surface)))
		case "model":
			if err := once(&seen, 512); err != nil {
				return err
			}
			c.Model = new(api.ChangeModel)
			return p.changeModel(c.Model)
		}
		return errNotFast
	})
}

func (p *parser) changeModel(m *api.ChangeModel) error {
	var seen uint8
	return p.object(func(key []byte) error {
		switch string(key) {
		case "id":
			return errors.Join(once(&seen, 1), p.str(&m.ID))
		case "name":
			return errors.Join(once(&seen, 2), p.str(&m.Name))
		case "date":
			return errors.Join(once(&seen, 4), p.str(&m.Date))
		}
		return errNotFast
	})
}

// skip passes over one value of any kind and returns its bytes, for
// json.Unmarshal to check; they are good until the parser reads on.
func (p *parser) skip() ([]byte, error) {
	p.space()
	p.mark = p.i
	defer func() { p.mark = -1 }()
	if err := p.pass(); err != nil {
		return nil, err
	}
	return p.data[p.mark:p.i], nil
}

// pass reads over the next value. The window keeps none of it, unless a
// mark (skip's) holds it: the change log's reader passes over the 35 MB of
// incidents before it at the retention cap, and keeping them grew the
// window to hold all of them.
func (p *parser) pass() error {
	p.space()
	if !p.at(0) {
		return errNotFast
	}
	switch p.data[p.i] {
	case '"':
		p.i++
		for p.at(0) && p.data[p.i] != '"' {
			if p.data[p.i] == '\\' {
				// The escaped byte is read in before it is passed: a refill
				// drops what is before i, which must not be past the window.
				if p.i++; !p.at(0) {
					return errNotFast
				}
			}
			p.i++
		}
	case '{', '[':
		depth, inString := 0, false
		for ; p.at(0); p.i++ {
			switch c := p.data[p.i]; {
			case inString && c == '\\':
				if p.i++; !p.at(0) { // the escaped byte, read in (as above)
					return errNotFast
				}
			case c == '"':
				inString = !inString
			case inString:
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				if depth--; depth == 0 {
					p.i++
					return nil
				}
			}
		}
		return errNotFast
	default:
		for p.at(0) && !strings.ContainsRune(",}] \t\n\r", rune(p.data[p.i])) {
			p.i++ // a number or a literal
		}
		return nil
	}
	if !p.at(0) {
		return errNotFast
	}
	p.i++ // the closing quote
	return nil
}

// ReadHistory reads the history a previous build left in dir. A missing
// folder or file is an empty history. A file that cannot be decoded, or that
// holds values no build writes (negative, overflowing, out of order), is an
// error wrapping ErrCorruptHistory; its bytes are returned so the caller can
// keep them (a usable history's are not: the file is decoded as it is
// read, never held whole). Times are checked against a clock by
// History.CheckClock.
func ReadHistory(dir string) (*History, []byte, error) {
	name := filepath.Join(dir, snapshot.FileHistory)
	f, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return New(), nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	h := &History{}
	info, err := f.Stat()
	if err == nil {
		err = fastHistory(f, int(info.Size()), readWindow, h)
	}
	f.Close()
	if err != nil {
		// Not the shape a build writes: json.Unmarshal decides, and says
		// what is wrong.
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, nil, err
		}
		h = &History{}
		if err := json.Unmarshal(data, h); err != nil {
			return nil, data, fmt.Errorf("%w: %v", ErrCorruptHistory, err)
		}
		if err := h.usable(); err != nil {
			return nil, data, err
		}
		return h, nil, nil
	}
	if err := h.usable(); err != nil {
		data, readErr := os.ReadFile(name)
		if readErr != nil {
			return nil, nil, readErr
		}
		return nil, data, err
	}
	return h, nil, nil
}

// usable checks a decoded history's version and values, and tidies what
// a build would not have written (a missing or null service).
func (h *History) usable() error {
	if h.Version != HistoryVersion {
		return fmt.Errorf("%w: version %d, want %d", ErrCorruptHistory, h.Version, HistoryVersion)
	}
	if h.Services == nil {
		h.Services = map[string]*ServiceHistory{}
	}
	for slug, sh := range h.Services {
		if sh == nil {
			delete(h.Services, slug)
		}
	}
	return h.checkValues()
}

// ErrCorruptHistory reports a history file that cannot be used.
var ErrCorruptHistory = errors.New("history file is corrupt")
