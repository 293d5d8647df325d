package serve

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/snapshot"
)

// incidentQuery is a validated /incidents request.
type incidentQuery struct {
	filters  api.Filters
	since    time.Time
	severity api.Severity
	service  string
	limit    int
}

// parseIncidentQuery validates the filters; on a bad one it returns the
// parameter's name and a message for the 400.
func parseIncidentQuery(q url.Values, snap *Snapshot, now time.Time) (iq incidentQuery, param, msg string) {
	iq.since = now.Add(-snapshot.DefaultIncidentWindow)
	if param, msg := paramTooLong(q, maxParamLen, "since", "severity", "service", "limit"); param != "" {
		return iq, param, msg
	}
	if q.Has("since") {
		v := q.Get("since")
		t, err := parseSince(v)
		if err != nil {
			return iq, "since", fmt.Sprintf("since %q is not an RFC 3339 date-time (2026-11-01T00:00:00Z) or a date (2026-11-01)", api.Truncate(v, 64))
		}
		iq.since, iq.filters.Since = t, &v
	}
	if q.Has("severity") {
		v := q.Get("severity")
		if !api.Severity(v).Valid() {
			return iq, "severity", fmt.Sprintf("severity %q is not one of minor, major, critical", api.Truncate(v, 64))
		}
		iq.severity, iq.filters.Severity = api.Severity(v), &v
	}
	if q.Has("service") {
		v := q.Get("service")
		if _, ok := snap.status[v]; !ok {
			return iq, "service", fmt.Sprintf("service %q is not a tracked slug: see %s for the list", api.Truncate(v, 64), snapshot.PathStatus)
		}
		iq.service, iq.filters.Service = v, &v
	}
	if iq.limit, msg = parseLimit(q, snapshot.DefaultIncidentLimit, snapshot.MaxIncidentLimit); msg != "" {
		return iq, "limit", msg
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
	snap, q, ok := s.snapshotAndQuery(w, r)
	if !ok {
		return
	}
	iq, param, msg := parseIncidentQuery(q, snap, snap.Manifest.GeneratedAt)
	if msg != "" {
		problem(w, http.StatusBadRequest, param, msg)
		return
	}
	serveComputed(w, r, snap.incidentsETag(iq, s.opts.Version),
		func() ([]byte, error) { return snap.filterIncidents(iq) })
}

// incidentsETag is the ETag of the response to iq. The response is a
// function of the snapshot's incidents, its generation time and the query
// (the filters as sent, which determine the rest, and the limit), encoded by
// this version of the server; its ETag is derived from those instead of
// from the body. So a revalidation is answered before anything is filtered
// or encoded, and a 200 does not hash a body of up to 1 000 incidents,
// which cost more than building it.
func (snap *Snapshot) incidentsETag(iq incidentQuery, version string) string {
	filters, _ := json.Marshal(iq.filters) // three *string: cannot fail
	return etagOf(fmt.Appendf(nil, "%q %s %s %d %s", version, snap.files[snapshot.FileIncidents].etag,
		snap.Manifest.GeneratedAt.Format(time.RFC3339Nano), iq.limit, filters))
}

// incidentPageTail is the /incidents response after its incidents, in the
// field order of api.IncidentList.
type incidentPageTail struct {
	Timestamp time.Time   `json:"timestamp"`
	Filters   api.Filters `json:"filters"`
	Window    api.Window  `json:"window"`
	License   string      `json:"license"`
}

// filterIncidents applies a validated query and returns the encoded
// response. Incidents are sorted newest startedAt first, so the since bound
// is a binary search and the scan, of one service's incidents when the query
// names one, stops as soon as limit+1 matches are found. The incidents are
// already compact JSON and are copied as they are:
// json.Marshal would re-validate and re-compact every byte, which cost more
// than all the rest of the request. The bytes are the same json.Marshal
// would write (TestIncidentsEncoding).
func (snap *Snapshot) filterIncidents(iq incidentQuery) ([]byte, error) {
	// at(k) is the index in snap.incidents of the k-th candidate.
	n, at := len(snap.incidents), func(k int) int { return k }
	if iq.service != "" {
		idx := snap.byService[iq.service]
		n, at = len(idx), func(k int) int { return idx[k] }
	}
	end := sort.Search(n, func(k int) bool { return snap.incidents[at(k)].StartedAt.Before(iq.since) })
	tail := incidentPageTail{
		Timestamp: snap.Manifest.GeneratedAt,
		Filters:   iq.filters,
		Window:    api.Window{Since: iq.since, Limit: iq.limit},
		License:   api.License,
	}
	var matched []int
	size := 0
	for k := range end {
		i := at(k)
		if iq.severity != "" && snap.incidents[i].Severity != iq.severity {
			continue
		}
		if len(matched) == iq.limit {
			tail.Window.Truncated = true
			break
		}
		matched = append(matched, i)
		size += len(snap.incidentsJSON[i]) + 1
	}
	tailJSON, err := json.Marshal(tail)
	if err != nil {
		return nil, err
	}
	body := make([]byte, 0, len(`{"incidents":[],`)+size+len(tailJSON))
	body = append(body, `{"incidents":[`...)
	for n, i := range matched {
		if n > 0 {
			body = append(body, ',')
		}
		body = append(body, snap.incidentsJSON[i]...)
	}
	body = append(body, "],"...)
	body = append(body, tailJSON[1:]...) // without its opening brace
	return append(body, '\n'), nil
}
