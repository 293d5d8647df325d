package snapshot

import "path"

// Header is one HTTP response header.
type Header struct{ Name, Value string }

// CacheControl is the caching policy of every successful response.
const CacheControl = "public, s-maxage=30, stale-while-revalidate=30"

// CommonHeaders is the single source of the headers every response carries,
// errors included: the thin server sets them and the static-hosting header
// file is generated from them, so the two cannot drift.
func CommonHeaders() []Header {
	return []Header{
		{"License", License},
		{"Link", "<" + LicenseURL + `>; rel="license"`},
		{"Cache-Control", CacheControl},
		{"Access-Control-Allow-Origin", "*"},
		{"Access-Control-Expose-Headers", "License, Link, ETag, RateLimit, RateLimit-Policy, Retry-After"},
		{"X-Content-Type-Options", "nosniff"},
		{"Vary", "Accept-Encoding"},
	}
}

// Content types of the files a snapshot holds.
const (
	ContentJSON    = "application/json"
	ContentProblem = "application/problem+json"
	ContentCSV     = "text/csv; charset=utf-8"
	ContentAtom    = "application/atom+xml"
	// ContentLinkset is the type of the RFC 9727 API catalog.
	ContentLinkset = "application/linkset+json"
)

// FileAPICatalog is the RFC 9727 discovery file, which has no extension.
const FileAPICatalog = ".well-known/api-catalog"

// contentTypes maps the extensions a snapshot holds to their media types.
// Explicit, because the system's MIME tables differ between machines.
var contentTypes = map[string]string{
	".json": ContentJSON,
	".csv":  ContentCSV,
	".html": "text/html; charset=utf-8",
	".txt":  "text/plain; charset=utf-8",
	".md":   "text/markdown; charset=utf-8",
	".svg":  "image/svg+xml",
	".xml":  "application/xml",
	".atom": ContentAtom,
	".css":  "text/css; charset=utf-8",
	".png":  "image/png",
	".ico":  "image/x-icon",
}

// ContentTypeOf is the media type of a snapshot file (slash-separated path),
// the same for the thin server and the static-hosting rules.
func ContentTypeOf(name string) string {
	if name == FileAPICatalog {
		return ContentLinkset
	}
	if ct, ok := contentTypes[path.Ext(name)]; ok {
		return ct
	}
	return "application/octet-stream"
}
