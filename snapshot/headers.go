package snapshot

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
)
