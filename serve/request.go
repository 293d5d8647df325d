package serve

// What every computed route does with a request first: the current
// snapshot (else a 503), the query string parsed strictly (else a 400), and
// the checks of parameters that several routes share.

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	"github.com/aistatus/aistatus/api"
)

// The request caps of the computed routes.
const (
	// maxParamLen caps every query parameter value.
	maxParamLen = 256
	// maxQueryLen caps the whole query string.
	maxQueryLen = 2048
)

// snapshotOr503 returns the current snapshot, or answers 503 when there is none yet.
func (s *Server) snapshotOr503(w http.ResponseWriter) *Snapshot {
	snap := s.store.Current()
	if snap == nil {
		retry, detail := s.noSnapshotYet()
		w.Header().Set("Retry-After", strconv.Itoa(retry))
		problem(w, http.StatusServiceUnavailable, "", detail)
	}
	return snap
}

// noSnapshotYet says why there is no snapshot to answer from, and in how
// many seconds to ask again: only where a build runs in this process is one
// "being built"; a replica waits for its origin, and aistatus serve for
// whatever publishes into its folder, which may never come.
func (s *Server) noSnapshotYet() (retryAfter int, detail string) {
	switch {
	case s.opts.BuildsHere:
		return 10, "the first snapshot is still being built; try again shortly"
	case s.opts.Origin != nil:
		return 10, "no snapshot copied from the origin yet; try again shortly"
	default:
		return 60, "no snapshot has been published for this server to serve yet (its operator runs aistatus build to publish one); try again later"
	}
}

// snapshotAndQuery is the start of every handler that computes its answer:
// the current snapshot (else a 503) and the parsed query (else a 400).
func (s *Server) snapshotAndQuery(w http.ResponseWriter, r *http.Request) (*Snapshot, url.Values, bool) {
	snap := s.snapshotOr503(w)
	if snap == nil {
		return nil, nil, false
	}
	q, ok := parseQuery(w, r)
	return snap, q, ok
}

// parseQuery parses the query string strictly: a malformed or oversized one
// is a 400, not silently ignored.
func parseQuery(w http.ResponseWriter, r *http.Request) (url.Values, bool) {
	if len(r.URL.RawQuery) > maxQueryLen {
		problem(w, http.StatusBadRequest, "", fmt.Sprintf("query string longer than %d bytes", maxQueryLen))
		return nil, false
	}
	if r.URL.RawQuery == "" {
		return nil, true // read-only: Get and Has work on a nil map, at no cost per request
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		problem(w, http.StatusBadRequest, "", "malformed query string: "+err.Error())
		return nil, false
	}
	return q, true
}

// paramTooLong names the first of names whose value is longer than maxLen
// bytes, with the message for its 400; "" when none is.
func paramTooLong(q url.Values, maxLen int, names ...string) (param, msg string) {
	for _, name := range names {
		if len(q.Get(name)) > maxLen {
			return name, fmt.Sprintf("%s is longer than %d bytes", name, maxLen)
		}
	}
	return "", ""
}

// parseLimit reads the limit parameter of a listing: a whole number from 1
// to maxLimit, def when absent; anything else gets the message for its 400.
func parseLimit(q url.Values, def, maxLimit int) (limit int, msg string) {
	if !q.Has("limit") {
		return def, ""
	}
	v := q.Get("limit")
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > maxLimit {
		return 0, fmt.Sprintf("limit %q is not a whole number from 1 to %d", api.Truncate(v, 64), maxLimit)
	}
	return n, ""
}
