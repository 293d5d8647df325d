package snapshot

import (
	"path"
	"strings"

	"github.com/aistatus/aistatus/api"
)

// Header is one HTTP response header.
type Header struct{ Name, Value string }

// CacheControl is the caching policy of every successful response.
const CacheControl = "public, s-maxage=30, stale-while-revalidate=30"

// CommonHeaders is the single source of the headers every response carries,
// errors included: the thin server sets them and the static-hosting header
// file is generated from them, so the two cannot drift.
//
// The contract's three and Vary, which caches need because the thin server
// sends gzip to clients that accept it. A snapshot file's 200 adds
// Content-Type, Content-Length, ETag and, when gzipped, Content-Encoding:
// eight lines, the most net/http writes without its header map outgrowing
// Go's small map: the ninth line alone costs about 7 400 instructions per
// response, four times another (bench/HISTORY.md, "fourth round"). So these
// are not sent, each with its reason:
//   - Last-Modified: the strong ETag is the validator (RFC 9110 §13.2.2
//     has If-None-Match win), and the status documents say when their data
//     was made (timestamp);
//   - Link rel="license": License names the licence, every JSON document
//     has a license field, and the API catalog links the licence's text;
//   - X-Content-Type-Options: browsers sniff none of the types served
//     (JSON, XML, CSV, HTML, SVG, text are never sniffed as another), ORB
//     blocks cross-origin JSON as a script, and the data is public;
//   - Access-Control-Expose-Headers: only on the responses that carry a
//     header a browser client must act on (ExposeHeaders).
func CommonHeaders() []Header {
	return []Header{
		{"License", api.License},
		{"Cache-Control", CacheControl},
		{"Access-Control-Allow-Origin", "*"},
		{"Vary", "Accept-Encoding"},
	}
}

// ExposeHeaders lets browser scripts read what rate-limited and 503
// responses tell them (CORS hides all but a few headers): the budget, when
// to retry, and the ETag of the API's own responses.
const ExposeHeaders = "ETag, RateLimit, RateLimit-Policy, Retry-After"

// Content types of the files a snapshot holds.
const (
	ContentJSON    = "application/json"
	ContentProblem = "application/problem+json"
	ContentCSV     = "text/csv; charset=utf-8"
	ContentAtom    = "application/atom+xml"
	// ContentLinkset is the type of the RFC 9727 API catalog: a linkset
	// (RFC 9264) with the profile parameter RFC 9727 registers, which
	// tells a client the linkset is an API catalog.
	ContentLinkset = `application/linkset+json; profile="` + ProfileAPICatalog + `"`
	// ProfileAPICatalog is RFC 9727's profile URI for an API catalog.
	ProfileAPICatalog = "https://www.rfc-editor.org/info/rfc9727"
	// ContentJSONFeed is JSON Feed's type, for the *.feed.json files.
	ContentJSONFeed = "application/feed+json"
	ContentCalendar = "text/calendar; charset=utf-8"
	ContentText     = "text/plain; charset=utf-8"
	// ContentYAML is YAML (RFC 9512): /fallbacks' LiteLLM config.yaml.
	ContentYAML = "application/yaml"
	// ContentMetrics is the Prometheus text exposition format's type.
	ContentMetrics = "text/plain; version=0.0.4; charset=utf-8"
)

// The files whose type their extension does not tell.
const (
	// JSONFeedSuffix ends the name of every JSON Feed of a snapshot.
	JSONFeedSuffix = ".feed.json"
	// FileMetrics is the metrics exposition, served at PathMetrics too.
	FileMetrics = "metrics.txt"
)

// FileAPICatalog is the RFC 9727 discovery file, which has no extension.
const FileAPICatalog = ".well-known/api-catalog"

// contentTypes maps the extensions a snapshot holds to their media types.
// Explicit, because the system's MIME tables differ between machines.
var contentTypes = map[string]string{
	".json": ContentJSON,
	".csv":  ContentCSV,
	// The dataset's incident files (one JSON object per line).
	".ndjson": ContentNDJSON,
	".html":   "text/html; charset=utf-8",
	".txt":    "text/plain; charset=utf-8",
	".md":     "text/markdown; charset=utf-8",
	".svg":    "image/svg+xml",
	".xml":    "application/xml",
	".atom":   ContentAtom,
	".ics":    ContentCalendar,
	".css":    "text/css; charset=utf-8",
	".png":    "image/png",
	".ico":    "image/x-icon",
}

// ContentTypeOf is the media type of a snapshot file (slash-separated path),
// the same for the thin server and the static-hosting rules.
func ContentTypeOf(name string) string {
	switch {
	case name == FileAPICatalog:
		return ContentLinkset
	case name == FileMetrics:
		return ContentMetrics
	case strings.HasSuffix(name, JSONFeedSuffix):
		return ContentJSONFeed
	}
	if ct, ok := contentTypes[path.Ext(name)]; ok {
		return ct
	}
	return "application/octet-stream"
}

// ContentEventStream is the media type of Server-Sent Events.
const ContentEventStream = "text/event-stream"

// The open dataset's media type and caching.
const (
	// ContentNDJSON is the media type of the incident files.
	ContentNDJSON = "application/x-ndjson"
	// CacheImmutable is the caching of a closed month's file; CacheOpenMonth
	// that of the index and of an open month's files, which change every
	// build.
	CacheImmutable = "public, max-age=31536000, immutable"
	CacheOpenMonth = CacheControl
)
