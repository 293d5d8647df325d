package serve

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/snapshot"
)

// representation is one response body ready to send, with its gzip variant
// (nil when compression does not pay) and a strong ETag for each: the only
// validator sent (no Last-Modified, see snapshot.CommonHeaders).
type representation struct {
	// body is the content; nil when it is read from file instead.
	body []byte
	// file, when set, holds the content, size bytes, read with ReadAt (safe
	// for concurrent requests): a large file of a snapshot folder that the
	// server only sends (see heldOnDisk). The open descriptor keeps the
	// file of this snapshot even after a build swapped the folder out and
	// removed it; the os.File's cleanup closes it once the snapshot is
	// collected.
	file         *os.File
	size         int64
	etag, gzEtag string
	contentType  string
	// hdr holds a snapshot file's header values, built once when the
	// snapshot is loaded; nil for a response computed per request.
	hdr *repHeaders
	// gz is the gzip variant. A snapshot file's is made by the first
	// request that accepts gzip (gzipped), not at load: compressing every
	// file of a full-retention snapshot took most of a second and held
	// tens of MB for files most clients never fetch compressed
	// (BenchmarkLoadFullRetention). gzOnce guards it: read it through
	// gzipped only.
	gz     []byte
	gzOnce sync.Once
}

// repHeaders are header values as net/http stores them. Assigning them to
// the header map saves, on every response, a key canonicalisation per
// header and the allocation of formatting the lengths: on the static path,
// next to a minimal handler, that work was measurable (bench/README.md).
// The slices are shared and never modified in place.
type repHeaders struct {
	contentType, etag, gzEtag, length, gzLength []string
	// cacheControl, when set, replaces the common Cache-Control: the
	// dataset's closed files are immutable.
	cacheControl []string
}

var gzipValue = []string{"gzip"}

// gzipMinSize is the size below which a body is sent uncompressed: the gzip
// framing would cost about as much as it saves.
const gzipMinSize = 512

var gzipWriters = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return w
}}

func newRepresentation(body []byte, contentType string) *representation {
	return withHeaders(&representation{body: body, size: int64(len(body)), etag: etagOf(body), contentType: contentType})
}

// newFileRepresentation is a representation whose content stays in f,
// size bytes, read once here for its ETag.
func newFileRepresentation(f *os.File, size int64, contentType string) (*representation, error) {
	h := sha256.New()
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, size)); err != nil {
		return nil, err
	}
	return withHeaders(&representation{file: f, size: size, etag: etagOfSum(h.Sum(nil)), contentType: contentType}), nil
}

// withHeaders completes a snapshot file's representation: the gzip ETag
// and the header values.
func withHeaders(rep *representation) *representation {
	rep.gzEtag = gzipETag(rep.etag)
	rep.hdr = &repHeaders{
		contentType: []string{rep.contentType},
		etag:        []string{rep.etag},
		gzEtag:      []string{rep.gzEtag},
		length:      []string{strconv.FormatInt(rep.size, 10)},
	}
	return rep
}

// content reads the identity variant from its start.
func (rep *representation) content() io.ReadSeeker {
	if rep.file != nil {
		return io.NewSectionReader(rep.file, 0, rep.size)
	}
	return bytes.NewReader(rep.body)
}

// gzipETag is the ETag of the gzip variant of the representation with etag:
// a different representation needs its own (RFC 9110), and deriving it
// saves hashing the body twice.
func gzipETag(etag string) string { return etag[:len(etag)-1] + `-gzip"` }

// gzipped returns the gzip variant, made on the first call (nil when
// compression does not pay). Safe for concurrent use: the requests that
// arrive while it is being made wait for it rather than compress too.
func (rep *representation) gzipped() []byte {
	rep.gzOnce.Do(rep.makeGzip)
	return rep.gz
}

// makeGzip sets the gzip variant when it pays; gzOnce runs it.
func (rep *representation) makeGzip() {
	size := rep.size
	if rep.file == nil {
		size = int64(len(rep.body)) // a computed response sets only the body
	}
	if size >= gzipMinSize && compressible(rep.contentType) {
		var buf bytes.Buffer
		zw := gzipWriters.Get().(*gzip.Writer)
		zw.Reset(&buf)
		_, err := io.Copy(zw, rep.content())
		zw.Close()
		gzipWriters.Put(zw)
		if err == nil && int64(buf.Len()) < size {
			rep.gz = buf.Bytes()
			if rep.hdr != nil {
				rep.hdr.gzLength = []string{strconv.Itoa(len(rep.gz))}
			}
		}
	}
}

func compressible(contentType string) bool {
	return strings.HasPrefix(contentType, "text/") || strings.Contains(contentType, "json") ||
		strings.Contains(contentType, "xml")
}

// etagOf is a strong ETag derived from the content: the first 128 bits of
// its SHA-256. /incidents and /check hash every response they compute, and
// SHA-256, hardware-accelerated on current CPUs, is many times faster than
// the FNV-128a used before (see bench/README.md).
func etagOf(body []byte) string {
	sum := sha256.Sum256(body)
	return etagOfSum(sum[:])
}

// etagOfSum is etagOf of the content whose SHA-256 is sum.
func etagOfSum(sum []byte) string {
	return `"` + base64.RawURLEncoding.EncodeToString(sum[:16]) + `"`
}

// commonHeaders is snapshot.CommonHeaders as canonical keys and value
// slices, built once: every response sets them, and assigning a shared slice
// saves a key canonicalisation and an allocation per header. The slices are
// never modified in place — Set and Del replace a map entry, and Add appends
// to a full slice, which copies it. A slice, not a map: ranging over a map
// costs more than the assignments.
var commonHeaders = func() []headerField {
	var hs []headerField
	for _, ch := range snapshot.CommonHeaders() {
		hs = append(hs, headerField{http.CanonicalHeaderKey(ch.Name), []string{ch.Value}})
	}
	return hs
}()

// exposeHeaders is set on the responses that carry RateLimit or
// Retry-After, which a browser script needs to read to back off.
var exposeHeaders = []string{snapshot.ExposeHeaders}

// headerField is a header's canonical name and its values, ready to assign.
type headerField struct {
	name   string
	values []string
}

// setCommonHeaders writes the headers every response carries, from the one
// table in snapshot.CommonHeaders.
func setCommonHeaders(h http.Header) {
	for _, ch := range commonHeaders {
		h[ch.name] = ch.values
	}
}

// serve sends rep, honouring If-None-Match (304), Range, HEAD and
// Accept-Encoding: gzip.
func (rep *representation) serve(w http.ResponseWriter, r *http.Request) {
	body, etag, gzipped := rep.body, rep.etag, false
	var content io.ReadSeeker // the body, when it is not in memory
	if rep.file != nil {
		content = rep.content()
	}
	if acceptsGzip(r) {
		if gz := rep.gzipped(); gz != nil {
			body, etag, gzipped, content = gz, rep.gzEtag, true, nil
		}
	}
	if notModified(w, r, etag) {
		return
	}
	h := w.Header()
	hdr := rep.hdr
	if hdr != nil {
		h["Content-Type"] = hdr.contentType
		if hdr.cacheControl != nil {
			h["Cache-Control"] = hdr.cacheControl
		}
		if gzipped {
			h["Content-Encoding"], h["Etag"] = gzipValue, hdr.gzEtag
		} else {
			h["Etag"] = hdr.etag
		}
	} else {
		h.Set("Content-Type", rep.contentType)
		if gzipped {
			h.Set("Content-Encoding", "gzip")
		}
		h.Set("ETag", etag)
	}
	if strings.Contains(first(r.Header, "Range"), ",") {
		// Only single ranges are served. A multi-range request is answered
		// with the whole body, which RFC 9110 §14.2 allows: 2 000 one-byte
		// ranges of a 7 KB document made a 274 KB multipart answer.
		r = r.Clone(r.Context())
		r.Header.Del("Range")
	}
	// If-Modified-Since and If-Unmodified-Since are ignored: there is no
	// modification date to compare with (RFC 9110 §13.1.3, §13.1.4).
	if first(r.Header, "Range") != "" || first(r.Header, "If-Match") != "" {
		if content == nil {
			content = bytes.NewReader(body)
		}
		http.ServeContent(w, r, "", time.Time{}, content)
		return
	}
	// Every other request is a plain 200 with the headers ServeContent would
	// send but Accept-Ranges. One Write of the whole body lets net/http hand
	// it to the kernel at once; ServeContent copies it through 32 KB buffers,
	// which took 15–25 % more CPU per request for a 1.2 MB service document
	// (bench/README.md). Accept-Ranges is optional (RFC 9110 §14.3): a client
	// may ask for a range regardless, and is answered by ServeContent above,
	// which says it there. Advertised on every response, it cost net/http
	// about 3 % of a static response's user-space instructions.
	switch {
	case hdr != nil && gzipped:
		h["Content-Length"] = hdr.gzLength
	case hdr != nil:
		h["Content-Length"] = hdr.length
	default:
		h.Set("Content-Length", strconv.Itoa(len(body)))
	}
	w.WriteHeader(http.StatusOK)
	switch {
	case r.Method == http.MethodHead:
	case content != nil:
		io.Copy(w, content)
	default:
		w.Write(body)
	}
}

// notModified answers 304 when If-None-Match lists etag: revalidation by
// browsers and CDNs, the common conditional request, answered without
// http.ServeContent's general precondition handling, which cost as much as
// the rest of the 304. A request that also carries If-Match, evaluated
// first (RFC 9110 §13.2.2), is left to ServeContent, as is every request
// whose tag does not match.
func notModified(w http.ResponseWriter, r *http.Request, etag string) bool {
	inm := first(r.Header, "If-None-Match")
	if inm == "" || (r.Method != http.MethodGet && r.Method != http.MethodHead) ||
		first(r.Header, "If-Match") != "" || !etagListed(inm, etag) {
		return false
	}
	// The headers http.ServeContent sends with a 304: no Content-Type or
	// Content-Encoding (the ETag validates).
	w.Header().Set("ETag", etag)
	w.WriteHeader(http.StatusNotModified)
	return true
}

// first is r.Header.Get for a name already in canonical form, without
// canonicalising it again: the static path reads six of them per request.
func first(h http.Header, canonical string) string {
	if v := h[canonical]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// etagListed reports whether an If-None-Match value lists etag or is "*",
// comparing weakly as RFC 9110 §13.1.2 asks.
func etagListed(list, etag string) bool {
	for list != "" {
		var tag string
		tag, list, _ = strings.Cut(list, ",")
		if tag = strings.TrimSpace(tag); tag == "*" || strings.TrimPrefix(tag, "W/") == etag {
			return true
		}
	}
	return false
}

// acceptsGzip reports whether the client accepts gzip (RFC 9110 §12.5.3):
// gzip (or its alias x-gzip) is listed with a q-value above 0, or is not
// listed and "*" is. Parameter names are case-insensitive ("Q=0"), q need
// not be the first parameter, every Accept-Encoding field line counts, and
// an entry with a malformed q-value is ignored rather than guessed at.
func acceptsGzip(r *http.Request) bool {
	gzipQ, anyQ := -1, -1 // thousandths; -1 when not listed
	for _, field := range r.Header["Accept-Encoding"] {
		for entry := range strings.SplitSeq(field, ",") {
			name, params, _ := strings.Cut(entry, ";")
			q, ok := qValue(params)
			if !ok {
				continue
			}
			switch name = strings.TrimSpace(name); {
			case strings.EqualFold(name, "gzip") || strings.EqualFold(name, "x-gzip"):
				gzipQ = max(gzipQ, q)
			case name == "*":
				anyQ = max(anyQ, q)
			}
		}
	}
	if gzipQ >= 0 {
		return gzipQ > 0
	}
	return anyQ > 0
}

// qValue returns the weight of an Accept-Encoding entry from its
// parameters (";q=0.5;…"), in thousandths: 1000 when there is no q.
func qValue(params string) (int, bool) {
	for param := range strings.SplitSeq(params, ";") {
		name, value, _ := strings.Cut(param, "=")
		if strings.EqualFold(strings.TrimSpace(name), "q") {
			return parseQValue(strings.TrimSpace(value))
		}
	}
	return 1000, true
}

// parseQValue parses an RFC 9110 qvalue: "0" or "1", optionally followed by
// "." and up to three digits, at most 1.
func parseQValue(s string) (int, bool) {
	if s == "" || (s[0] != '0' && s[0] != '1') {
		return 0, false
	}
	q := int(s[0]-'0') * 1000
	if rest := s[1:]; rest != "" {
		digits, ok := strings.CutPrefix(rest, ".")
		if !ok || len(digits) > 3 {
			return 0, false
		}
		scale := 100
		for _, c := range []byte(digits) {
			if c < '0' || c > '9' {
				return 0, false
			}
			q += int(c-'0') * scale
			scale /= 10
		}
	}
	return q, q <= 1000
}

// serveJSON encodes v and sends it as a 200 with ETag and gzip support.
func serveJSON(w http.ResponseWriter, r *http.Request, v any) {
	body, etag, err := encodeJSON(v)
	if err != nil {
		problem(w, http.StatusInternalServerError, "", "the response could not be encoded")
		return
	}
	serveComputed(w, r, etag, func() ([]byte, error) { return body, nil })
}

// encodeJSON is v as a computed response's body, newline included, and
// its ETag.
func encodeJSON(v any) (body []byte, etag string, err error) {
	if body, err = json.Marshal(v); err != nil {
		return nil, "", err
	}
	body = append(body, '\n')
	return body, etagOf(body), nil
}

// serveComputed sends a JSON body computed for this request, whose ETag
// (identity variant) is known before compute runs. A client revalidating
// the variant it would be sent gets its 304 before the body is computed or
// compressed; the one case that needs the body — a small one, which is sent
// uncompressed even to a gzip client — is left to serve.
func serveComputed(w http.ResponseWriter, r *http.Request, etag string, compute func() ([]byte, error)) {
	serveComputedAs(w, r, snapshot.ContentJSON, etag, compute)
}

// serveBody sends a body computed for this request in contentType, with
// its ETag and gzip support.
func serveBody(w http.ResponseWriter, r *http.Request, contentType string, body []byte) {
	serveComputedAs(w, r, contentType, etagOf(body), func() ([]byte, error) { return body, nil })
}

// serveComputedAs is serveComputed for a body of another media type.
func serveComputedAs(w http.ResponseWriter, r *http.Request, contentType, etag string, compute func() ([]byte, error)) {
	rep := &representation{etag: etag, gzEtag: gzipETag(etag), contentType: contentType}
	gzip := acceptsGzip(r)
	if (gzip && notModified(w, r, rep.gzEtag)) || (!gzip && notModified(w, r, rep.etag)) {
		return
	}
	body, err := compute()
	if err != nil {
		problem(w, http.StatusInternalServerError, "", "the response could not be encoded")
		return
	}
	rep.body = body
	rep.serve(w, r)
}

// problem sends an RFC 9457 problem details response, or, on a route that
// answers plain text (textRefusals), the detail alone as one line.
func problem(w http.ResponseWriter, status int, param, detail string) {
	var body []byte
	h := w.Header()
	if _, text := w.(textRefusals); text {
		body = []byte(strings.NewReplacer("\r", " ", "\n", " ").Replace(detail))
		h.Set("Content-Type", snapshot.ContentText)
	} else {
		body, _ = json.Marshal(api.Problem{
			Type: "about:blank", Title: http.StatusText(status), Status: status, Detail: detail, Param: param,
		})
		h.Set("Content-Type", snapshot.ContentProblem)
	}
	h.Del("ETag")
	h.Del("Content-Encoding")
	h.Set("Content-Length", strconv.Itoa(len(body)+1))
	if status == http.StatusTooManyRequests || status >= 500 {
		// Never let a CDN cache a refusal or a failure for everyone behind it.
		h.Set("Cache-Control", "no-store")
	}
	if h["Retry-After"] != nil {
		h["Access-Control-Expose-Headers"] = exposeHeaders
	}
	w.WriteHeader(status)
	w.Write(append(body, '\n'))
}

// textRefusals is the writer of a route that answers plain text: the
// statusline, which a shell prompt or a status bar prints as it comes.
// problem writes its refusals (a 429, a 400, a 503) as one line of
// text/plain, the detail alone: a problem's JSON, status code and type
// would land in the prompt as they are.
type textRefusals struct{ http.ResponseWriter }

// refuseInText hands next a textRefusals writer.
func refuseInText(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(textRefusals{w}, r)
	})
}
