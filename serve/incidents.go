package serve

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/aistatus/aistatus/snapshot"
)

// The /incidents paging rules (also in the README and OpenAPI description).
const (
	// DefaultIncidentWindow applies when since is not sent.
	DefaultIncidentWindow = 30 * 24 * time.Hour
	DefaultIncidentLimit  = 100
	MaxIncidentLimit      = 1000
	// maxParamLen caps every query parameter value.
	maxParamLen = 256
	// maxQueryLen caps the whole query string.
	maxQueryLen = 2048
)

// parseQuery parses the query string strictly: a malformed or oversized one
// is a 400, not silently ignored.
func parseQuery(w http.ResponseWriter, r *http.Request) (url.Values, bool) {
	if len(r.URL.RawQuery) > maxQueryLen {
		problem(w, http.StatusBadRequest, "", fmt.Sprintf("query string longer than %d bytes", maxQueryLen))
		return nil, false
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		problem(w, http.StatusBadRequest, "", "malformed query string: "+err.Error())
		return nil, false
	}
	return q, true
}

// incidentQuery is a validated /incidents request.
type incidentQuery struct {
	filters  snapshot.Filters
	since    time.Time
	severity snapshot.Severity
	service  string
	limit    int
}

// parseIncidentQuery validates the filters; on a bad one it returns the
// parameter's name and a message for the 400.
func parseIncidentQuery(q url.Values, snap *Snapshot, now time.Time) (iq incidentQuery, param, msg string) {
	iq.limit = DefaultIncidentLimit
	iq.since = now.Add(-DefaultIncidentWindow)
	for _, name := range []string{"since", "severity", "service", "limit"} {
		if len(q.Get(name)) > maxParamLen {
			return iq, name, fmt.Sprintf("%s is longer than %d bytes", name, maxParamLen)
		}
	}
	if q.Has("since") {
		v := q.Get("since")
		t, err := parseSince(v)
		if err != nil {
			return iq, "since", fmt.Sprintf("since %q is not an RFC 3339 date-time (2026-11-01T00:00:00Z) or a date (2026-11-01)", truncate(v, 64))
		}
		iq.since, iq.filters.Since = t, &v
	}
	if q.Has("severity") {
		v := q.Get("severity")
		if !snapshot.Severity(v).Valid() {
			return iq, "severity", fmt.Sprintf("severity %q is not one of minor, major, critical", truncate(v, 64))
		}
		iq.severity, iq.filters.Severity = snapshot.Severity(v), &v
	}
	if q.Has("service") {
		v := q.Get("service")
		if _, ok := snap.status[v]; !ok {
			return iq, "service", fmt.Sprintf("service %q is not a tracked slug: see /api/v1/status for the list", truncate(v, 64))
		}
		iq.service, iq.filters.Service = v, &v
	}
	if q.Has("limit") {
		v := q.Get("limit")
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxIncidentLimit {
			return iq, "limit", fmt.Sprintf("limit %q is not a whole number from 1 to %d", truncate(v, 64), MaxIncidentLimit)
		}
		iq.limit = n
	}
	return iq, "", ""
}

// parseSince accepts an RFC 3339 date-time (any offset) or a plain date,
// which means midnight UTC.
func parseSince(v string) (time.Time, error) {
	v = strings.TrimSpace(v)
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t.UTC(), nil
	}
	t, err := time.Parse(time.DateOnly, v)
	return t.UTC(), err
}

func (s *Server) handleIncidents(w http.ResponseWriter, r *http.Request) {
	snap := s.snapshotOr503(w)
	if snap == nil {
		return
	}
	q, ok := parseQuery(w, r)
	if !ok {
		return
	}
	iq, param, msg := parseIncidentQuery(q, snap, snap.Manifest.GeneratedAt)
	if msg != "" {
		problem(w, http.StatusBadRequest, param, msg)
		return
	}
	serveJSON(w, r, snap.filterIncidents(iq), snap.Manifest.GeneratedAt)
}

// incidentPage is the /incidents response with pre-encoded incidents.
type incidentPage struct {
	Incidents []rawJSON        `json:"incidents"`
	Timestamp time.Time        `json:"timestamp"`
	Filters   snapshot.Filters `json:"filters"`
	Window    snapshot.Window  `json:"window"`
	License   string           `json:"license"`
}

// filterIncidents applies a validated query. Incidents are sorted newest
// startedAt first, so the since bound is a binary search and the scan stops
// as soon as limit+1 matches are found.
func (snap *Snapshot) filterIncidents(iq incidentQuery) incidentPage {
	end := sort.Search(len(snap.incidents), func(i int) bool { return snap.incidents[i].StartedAt.Before(iq.since) })
	page := incidentPage{
		Incidents: []rawJSON{},
		Timestamp: snap.Manifest.GeneratedAt,
		Filters:   iq.filters,
		Window:    snapshot.Window{Since: iq.since, Limit: iq.limit},
		License:   snapshot.License,
	}
	for i := 0; i < end; i++ {
		inc := &snap.incidents[i]
		if (iq.severity != "" && inc.Severity != iq.severity) || (iq.service != "" && inc.Service != iq.service) {
			continue
		}
		if len(page.Incidents) == iq.limit {
			page.Window.Truncated = true
			break
		}
		page.Incidents = append(page.Incidents, rawJSON(snap.incidentsJSON[i]))
	}
	return page
}

// rawJSON is pre-encoded JSON that is written as is.
type rawJSON []byte

func (r rawJSON) MarshalJSON() ([]byte, error) { return r, nil }
