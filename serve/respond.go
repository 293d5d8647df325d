package serve

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"hash/fnv"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aistatus/aistatus/snapshot"
)

// representation is one response body ready to send, with its gzip variant
// (nil when compression does not pay) and a strong ETag for each.
type representation struct {
	body, gz     []byte
	etag, gzEtag string
	contentType  string
	modTime      time.Time
}

// gzipMinSize is the size below which a body is sent uncompressed: the gzip
// framing would cost about as much as it saves.
const gzipMinSize = 512

var gzipWriters = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return w
}}

func newRepresentation(body []byte, contentType string, modTime time.Time) *representation {
	return &representation{body: body, etag: etagOf(body, ""), contentType: contentType, modTime: modTime}
}

// compress adds the gzip variant when it pays.
func (rep *representation) compress() *representation {
	if body := rep.body; len(body) >= gzipMinSize && compressible(rep.contentType) {
		var buf bytes.Buffer
		zw := gzipWriters.Get().(*gzip.Writer)
		zw.Reset(&buf)
		zw.Write(body)
		zw.Close()
		gzipWriters.Put(zw)
		if buf.Len() < len(body) {
			rep.gz = buf.Bytes()
			rep.gzEtag = etagOf(body, "-gzip")
		}
	}
	return rep
}

func compressible(contentType string) bool {
	return strings.HasPrefix(contentType, "text/") || strings.Contains(contentType, "json") ||
		strings.Contains(contentType, "xml")
}

// etagOf is a strong ETag derived from the content; the gzip variant gets its
// own, as RFC 9110 requires for a different representation.
func etagOf(body []byte, suffix string) string {
	h := fnv.New128a()
	h.Write(body)
	return `"` + base64.RawURLEncoding.EncodeToString(h.Sum(nil)) + suffix + `"`
}

// setCommonHeaders writes the headers every response carries, from the one
// table in snapshot.CommonHeaders.
func setCommonHeaders(h http.Header) {
	for _, ch := range snapshot.CommonHeaders() {
		h.Set(ch.Name, ch.Value)
	}
}

// serve sends rep, honouring If-None-Match (304), Range, HEAD and
// Accept-Encoding: gzip.
func (rep *representation) serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", rep.contentType)
	body, etag := rep.body, rep.etag
	if rep.gz != nil && acceptsGzip(r) {
		body, etag = rep.gz, rep.gzEtag
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("ETag", etag)
	http.ServeContent(w, r, "", rep.modTime, bytes.NewReader(body))
}

// acceptsGzip reports whether the client accepts gzip (and did not refuse it
// with q=0).
func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
			continue
		}
		q := strings.TrimSpace(params)
		if v, ok := strings.CutPrefix(q, "q="); ok {
			if f, err := strconv.ParseFloat(v, 64); err == nil && f == 0 {
				return false
			}
		}
		return true
	}
	return false
}

// serveJSON encodes v and sends it as a 200 with ETag and gzip support.
func serveJSON(w http.ResponseWriter, r *http.Request, v any, modTime time.Time) {
	body, err := json.Marshal(v)
	if err != nil {
		problem(w, http.StatusInternalServerError, "", "the response could not be encoded")
		return
	}
	rep := newRepresentation(append(body, '\n'), snapshot.ContentJSON, modTime)
	if acceptsGzip(r) {
		rep.compress()
	}
	rep.serve(w, r)
}

// problem sends an RFC 9457 problem details response.
func problem(w http.ResponseWriter, status int, param, detail string) {
	body, _ := json.Marshal(snapshot.Problem{
		Type: "about:blank", Title: http.StatusText(status), Status: status, Detail: detail, Param: param,
	})
	h := w.Header()
	h.Del("ETag")
	h.Del("Content-Encoding")
	h.Set("Content-Type", snapshot.ContentProblem)
	h.Set("Content-Length", strconv.Itoa(len(body)+1))
	if status == http.StatusTooManyRequests || status >= 500 {
		// Never let a CDN cache a refusal or a failure for everyone behind it.
		h.Set("Cache-Control", "no-store")
	}
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}
