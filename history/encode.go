package history

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// The largest documents, written fast. At the retention caps a build writes
// 100 000 incidents into history.json, incidents.json, the service
// documents (twice each: the service's list and its API surface's) and the
// dataset, and 50 000 changes into history.json; encoding/json's reflection
// over them was a third of the build's CPU, and each document was held
// whole before it was written. Here each incident and change is appended by
// hand, byte for byte what encoding/json writes for it (TestAppendIncident
// and TestWriteDocuments compare the two over every field), the rest of the
// document is encoded by encoding/json with its lists left out, and the
// lists are spliced in as the document is streamed to its file.

// AppendIncident appends inc as encoding/json encodes it.
func AppendIncident(dst []byte, inc api.Incident) ([]byte, error) {
	dst = append(dst, `{"id":`...)
	dst = appendString(dst, inc.ID)
	dst = append(dst, `,"service":`...)
	dst = appendString(dst, inc.Service)
	dst = append(dst, `,"headline":`...)
	dst = appendString(dst, inc.Headline)
	dst = append(dst, `,"severity":`...)
	dst = appendString(dst, string(inc.Severity))
	dst = append(dst, `,"startedAt":`...)
	dst, err := appendTime(dst, inc.StartedAt)
	if err != nil {
		return nil, err
	}
	dst = append(dst, `,"endedAt":`...)
	if inc.EndedAt == nil {
		dst = append(dst, "null"...)
	} else if dst, err = appendTime(dst, *inc.EndedAt); err != nil {
		return nil, err
	}
	dst = append(dst, `,"status":`...)
	dst = appendString(dst, inc.Status)
	dst = append(dst, `,"source":`...)
	dst = appendString(dst, inc.Source)
	if inc.URL != "" {
		dst = append(dst, `,"url":`...)
		dst = appendString(dst, inc.URL)
	}
	dst = append(dst, `,"updatedAt":`...)
	if dst, err = appendTime(dst, inc.UpdatedAt); err != nil {
		return nil, err
	}
	return append(dst, '}'), nil
}

// AppendChange appends c as encoding/json encodes it.
func AppendChange(dst []byte, c api.Change) ([]byte, error) {
	dst = append(dst, `{"id":`...)
	dst = strconv.AppendInt(dst, c.ID, 10)
	dst = append(dst, `,"type":`...)
	dst = appendString(dst, string(c.Type))
	dst = append(dst, `,"service":`...)
	dst = appendString(dst, c.Service)
	if c.Surface != "" {
		dst = append(dst, `,"surface":`...)
		dst = appendString(dst, string(c.Surface))
	}
	dst = append(dst, `,"time":`...)
	dst, err := appendTime(dst, c.Time)
	if err != nil {
		return nil, err
	}
	if c.OldStatus != "" {
		dst = append(dst, `,"oldStatus":`...)
		dst = appendString(dst, string(c.OldStatus))
	}
	if c.NewStatus != "" {
		dst = append(dst, `,"newStatus":`...)
		dst = appendString(dst, string(c.NewStatus))
	}
	if c.Incident != nil {
		dst = append(dst, `,"incident":`...)
		if dst, err = AppendIncident(dst, *c.Incident); err != nil {
			return nil, err
		}
	}
	if len(c.Changed) > 0 {
		dst = append(dst, `,"changed":[`...)
		for i, f := range c.Changed {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendString(dst, f)
		}
		dst = append(dst, ']')
	}
	if m := c.Model; m != nil {
		dst = append(dst, `,"model":{"id":`...)
		dst = appendString(dst, m.ID)
		dst = append(dst, `,"name":`...)
		dst = appendString(dst, m.Name)
		if m.Date != "" {
			dst = append(dst, `,"date":`...)
			dst = appendString(dst, m.Date)
		}
		dst = append(dst, '}')
	}
	return append(dst, '}'), nil
}

// appendString appends s as a JSON string. Plain text — printable ASCII
// but for the characters encoding/json escapes (", \, and <, > and & for
// HTML), and valid UTF-8 but for U+2028 and U+2029 — is copied; anything
// else is left to encoding/json, so its escapes are encoding/json's.
func appendString(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if !plainASCII[c] {
				return appendMarshalled(dst, s)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			return appendMarshalled(dst, s)
		}
		i += size
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}

// plainASCII marks the ASCII bytes appendString copies: one lookup a byte,
// where six comparisons were a twelfth of a build's CPU.
var plainASCII = func() (plain [utf8.RuneSelf]bool) {
	for c := range plain {
		plain[c] = c >= 0x20 && !strings.ContainsRune(`"\<>&`, rune(c))
	}
	return plain
}()

func appendMarshalled(dst []byte, s string) []byte {
	data, _ := json.Marshal(s) // a string always encodes
	return append(dst, data...)
}

// appendTime appends t as time.Time.MarshalJSON does: RFC 3339 with
// nanoseconds, for a UTC time of years 0–9999 (every time a build keeps);
// any other is left to MarshalJSON, with its checks and its errors.
func appendTime(dst []byte, t time.Time) ([]byte, error) {
	if y := t.Year(); t.Location() != time.UTC || y < 0 || y > 9999 {
		data, err := t.MarshalJSON()
		if err != nil {
			return nil, err
		}
		return append(dst, data...), nil
	}
	dst = append(dst, '"')
	dst = t.AppendFormat(dst, time.RFC3339Nano)
	return append(dst, '"'), nil
}

// chunkSize is how much a streamed document gathers before writing it on.
const chunkSize = 256 << 10

// listWriter streams a document: bytes appended to buf go to w in chunks;
// with no w, they stay in buf.
type listWriter struct {
	w   io.Writer
	buf []byte
}

func (lw *listWriter) flush(force bool) error {
	if lw.w == nil || len(lw.buf) == 0 || !force && len(lw.buf) < chunkSize {
		return nil
	}
	_, err := lw.w.Write(lw.buf)
	lw.buf = lw.buf[:0]
	return err
}

// incidents appends list as a JSON array (null when nil), flushing as it goes.
func (lw *listWriter) incidents(list []api.Incident) error {
	return writeArray(lw, list, AppendIncident)
}

// writeArray appends list as a JSON array (null when nil), each element by
// appendOne, flushing as it goes.
func writeArray[T any](lw *listWriter, list []T, appendOne func([]byte, T) ([]byte, error)) error {
	if list == nil {
		lw.buf = append(lw.buf, "null"...)
		return nil
	}
	lw.buf = append(lw.buf, '[')
	for i, v := range list {
		if i > 0 {
			lw.buf = append(lw.buf, ',')
		}
		var err error
		if lw.buf, err = appendOne(lw.buf, v); err != nil {
			return err
		}
		if err := lw.flush(false); err != nil {
			return err
		}
	}
	lw.buf = append(lw.buf, ']')
	return nil
}

// appendArray appends list as a JSON array (null when nil), whole.
func appendArray[T any](dst []byte, list []T, appendOne func([]byte, T) ([]byte, error)) ([]byte, error) {
	lw := &listWriter{buf: slices.Grow(dst, 400*len(list))} // an incident is about 350 bytes
	if err := writeArray(lw, list, appendOne); err != nil {
		return nil, err
	}
	return lw.buf, nil
}

// placeholder is where encoding/json writes a list left nil.
var placeholder = []byte(`"incidents":null`)

// writeSpliced streams doc, encoding/json's encoding of a document whose
// incident lists were left nil, into w with each "incidents":null, in
// order, replaced by the next of fill, and a newline at the end. The
// caller picks documents in which those are the first such keys.
func writeSpliced(w io.Writer, doc []byte, fill ...func(*listWriter) error) error {
	lw := &listWriter{w: w, buf: make([]byte, 0, chunkSize+4096)}
	for _, f := range fill {
		i := bytes.Index(doc, placeholder)
		if i < 0 {
			return errors.New("encode: no incident list where one was expected")
		}
		lw.buf = append(lw.buf, doc[:i+len(placeholder)-len("null")]...)
		if err := f(lw); err != nil {
			return err
		}
		doc = doc[i+len(placeholder):]
	}
	lw.buf = append(append(lw.buf, doc...), '\n')
	return lw.flush(true)
}

// WriteHistory writes history.json, as encoding/json encodes h, and a
// newline.
func WriteHistory(w io.Writer, h *History) error {
	rest := *h
	rest.Incidents, rest.Changes = nil, nil
	doc, err := json.Marshal(&rest)
	if err != nil {
		return err
	}
	return writeSpliced(w, doc, func(lw *listWriter) error {
		if err := lw.incidents(h.Incidents); err != nil {
			return err
		}
		if len(h.Changes) == 0 {
			return nil // omitempty
		}
		lw.buf = append(lw.buf, `,"changes":`...)
		return writeArray(lw, h.Changes, AppendChange)
	})
}

// WriteIncidentList writes an incident list (incidents.json), as
// encoding/json encodes it, and a newline.
func WriteIncidentList(w io.Writer, list api.IncidentList) error {
	rest := list
	rest.Incidents = nil
	doc, err := json.Marshal(rest)
	if err != nil {
		return err
	}
	return writeSpliced(w, doc, func(lw *listWriter) error { return lw.incidents(list.Incidents) })
}

// WriteServiceDoc writes a service's document, as encoding/json encodes
// it, and a newline. Its API surface lists the service's own incidents
// again: they are encoded once for both.
func WriteServiceDoc(w io.Writer, doc api.ServiceDoc) error {
	rest := doc
	rest.Incidents = nil
	own, err := appendArray(nil, doc.Incidents, AppendIncident)
	if err != nil {
		return err
	}
	lists := [][]byte{own}
	if len(doc.Surfaces) > 0 && doc.Surfaces[0].ID == catalog.SurfaceAPI {
		api := doc.Surfaces[0].Incidents
		rest.Surfaces = slices.Clone(doc.Surfaces)
		rest.Surfaces[0].Incidents = nil
		if !sameList(api, doc.Incidents) {
			if own, err = appendArray(nil, api, AppendIncident); err != nil {
				return err
			}
		}
		lists = append(lists, own)
	}
	data, err := json.Marshal(rest)
	if err != nil {
		return err
	}
	fill := make([]func(*listWriter) error, len(lists))
	for i, list := range lists {
		fill[i] = func(lw *listWriter) error {
			lw.buf = append(lw.buf, list...)
			return lw.flush(false)
		}
	}
	return writeSpliced(w, data, fill...)
}

// sameList reports whether a and b are the same slice, not merely equal.
func sameList(a, b []api.Incident) bool {
	return len(a) == len(b) && (a == nil) == (b == nil) && (len(a) == 0 || &a[0] == &b[0])
}

// WriteNDJSON writes incidents as NDJSON, one per line, as
// json.Encoder.Encode writes each.
func WriteNDJSON(w io.Writer, list []api.Incident) error {
	lw := &listWriter{w: w, buf: make([]byte, 0, chunkSize+4096)}
	for _, inc := range list {
		var err error
		if lw.buf, err = AppendIncident(lw.buf, inc); err != nil {
			return err
		}
		lw.buf = append(lw.buf, '\n')
		if err := lw.flush(false); err != nil {
			return err
		}
	}
	return lw.flush(true)
}
