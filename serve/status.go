package serve

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/snapshot"
)

// handleStatus serves status.json, or with ?at= (the older spelling of
// GET /status/at/{time}, kept for its callers) the status of every service
// at that time.
func (s *Server) handleStatus(w http.ResponseWriter, r *http.Request) {
	snap, q, ok := s.snapshotAndQuery(w, r)
	if !ok {
		return
	}
	if !q.Has("at") {
		snap.files[snapshot.FileStatus].serve(w, r)
		return
	}
	s.serveStatusAt(w, r, snap, q.Get("at"), "at")
}

// handleStatusAt is GET /status/at/{time}: every service at that time.
func (s *Server) handleStatusAt(w http.ResponseWriter, r *http.Request) {
	snap, _, ok := s.snapshotAndQuery(w, r)
	if !ok {
		return
	}
	s.serveStatusAt(w, r, snap, r.PathValue("time"), "time")
}

// serveStatusAt answers a point-in-time read of every service; raw is the
// instant as sent, param the name it was sent under (for the problem).
func (s *Server) serveStatusAt(w http.ResponseWriter, r *http.Request, snap *Snapshot, raw, param string) {
	at, ok := s.parseAt(w, snap, raw, param)
	if !ok {
		return
	}
	doc := api.StatusAtDoc{At: at, Services: []api.ServiceAt{}, LogStart: s.changeLog(snap).since.UTC(),
		Timestamp: snap.Manifest.GeneratedAt, License: api.License}
	for _, slug := range snap.order {
		doc.Services = append(doc.Services, snap.serviceAt(slug, at))
	}
	serveJSON(w, r, doc)
}

// handleService serves one service's document, or with ?at= (the older
// spelling of GET /services/{slug}/at/{time}) the service at that time.
func (s *Server) handleService(w http.ResponseWriter, r *http.Request) {
	snap, rep, ok := s.trackedService(w, r)
	if !ok {
		return
	}
	q, ok := parseQuery(w, r)
	if !ok {
		return
	}
	if !q.Has("at") {
		s.serviceWithReports(r.PathValue("slug"), rep, s.opts.Now()).serve(w, r)
		return
	}
	s.serveServiceAt(w, r, snap, q.Get("at"), "at")
}

// handleServiceAt is GET /services/{slug}/at/{time}.
func (s *Server) handleServiceAt(w http.ResponseWriter, r *http.Request) {
	snap, _, ok := s.trackedService(w, r)
	if !ok {
		return
	}
	if _, ok := parseQuery(w, r); !ok {
		return
	}
	s.serveServiceAt(w, r, snap, r.PathValue("time"), "time")
}

// trackedService is the snapshot and the document of the service the path
// names; it reports false after answering a 503 or a 404.
func (s *Server) trackedService(w http.ResponseWriter, r *http.Request) (*Snapshot, *representation, bool) {
	snap := s.snapshotOr503(w)
	if snap == nil {
		return nil, nil, false
	}
	slug := r.PathValue("slug")
	rep := snap.files[snapshot.ServiceFile(slug)]
	if _, tracked := snap.status[slug]; !tracked || rep == nil {
		problem(w, http.StatusNotFound, "slug", fmt.Sprintf("%q is not a tracked service: see %s for the list", api.Truncate(slug, 64), snapshot.PathStatus))
		return nil, nil, false
	}
	return snap, rep, true
}

// serveServiceAt answers a point-in-time read of the service the path names.
func (s *Server) serveServiceAt(w http.ResponseWriter, r *http.Request, snap *Snapshot, raw, param string) {
	at, ok := s.parseAt(w, snap, raw, param)
	if !ok {
		return
	}
	slug := r.PathValue("slug")
	serveJSON(w, r, api.ServiceAtDoc{At: at, Service: snap.serviceAt(slug, at), LogStart: s.changeLog(snap).since.UTC(),
		Timestamp: snap.Manifest.GeneratedAt, License: api.License})
}

// parseAt validates the instant of a point-in-time read, sent as param: an
// RFC 3339 date-time not in the future (400) and not before the retained
// log begins (404: we hold no record of then). It reports false after
// answering a problem.
func (s *Server) parseAt(w http.ResponseWriter, snap *Snapshot, v, param string) (time.Time, bool) {
	at, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(v))
	if err != nil || len(v) > 64 {
		problem(w, http.StatusBadRequest, param, fmt.Sprintf("%s %q is not an RFC 3339 date-time (2026-11-01T14:03:00Z)", param, api.Truncate(v, 64)))
		return time.Time{}, false
	}
	at = at.UTC()
	if now := s.opts.Now(); at.After(now) {
		problem(w, http.StatusBadRequest, param, fmt.Sprintf("%s %s is in the future (now %s)", param, at.Format(time.RFC3339), now.UTC().Format(time.RFC3339)))
		return time.Time{}, false
	}
	if since := s.changeLog(snap).since; since.IsZero() || at.Before(since) {
		detail := "no change log is retained yet"
		if !since.IsZero() {
			detail = "the retained change log begins " + since.UTC().Format(time.RFC3339Nano)
		}
		problem(w, http.StatusNotFound, param, fmt.Sprintf("no record of %s: %s", at.Format(time.RFC3339), detail))
		return time.Time{}, false
	}
	return at, true
}

// serviceAt rebuilds what we reported of one service at at. The incidents
// open then are found without a pass over the service's retained ones:
// those that started later are a prefix (newest first), the ended ones are
// scanned only while an older one may still have been open (latestEnd),
// and the ones still open come from their own index. At most
// api.MaxIncidentsAt are listed, the newest, and IncidentsTruncated
// says when there were more.
func (snap *Snapshot) serviceAt(slug string, at time.Time) api.ServiceAt {
	sum, log := snap.status[slug], snap.changeLog()
	st, since, ok := history.StatusAt(log.statusChanges[slug], slug, at, sum.Status)
	if !ok {
		st = api.Unknown // not checked yet then
	}
	out := api.ServiceAt{Slug: slug, Name: sum.Name, Status: st, Incidents: []api.Incident{}}
	if !since.IsZero() {
		out.Since = &since
	}
	idx, ends, open := snap.byService[slug], snap.latestEnd[slug], snap.openByService[slug]
	// Both lists are newest first: those that started after at are a prefix.
	k := sort.Search(len(idx), func(k int) bool { return !snap.incidents[idx[k]].StartedAt.After(at) })
	o := sort.Search(len(open), func(o int) bool { return !snap.incidents[open[o]].StartedAt.After(at) })
	for {
		// The next candidate, newest first: an ended incident still open at
		// at, or one still open now (global indexes ascend with age).
		for k < len(idx) && ends[k].After(at) && snap.incidents[idx[k]].EndedAt == nil {
			k++ // open now: taken from open
		}
		ended := k < len(idx) && ends[k].After(at)
		var i int
		switch {
		case ended && (o == len(open) || idx[k] < open[o]):
			i = idx[k]
			k++
		case o < len(open):
			i = open[o]
			o++
		default:
			return out
		}
		inc := &snap.incidents[i]
		if inc.EndedAt != nil && !inc.EndedAt.After(at) {
			continue // ended by then
		}
		if opened, logged := log.openedAt[inc.ID]; logged && opened.After(at) {
			continue // started earlier by its own account, but we learned of it later
		}
		if len(out.Incidents) == api.MaxIncidentsAt {
			out.IncidentsTruncated = true
			return out
		}
		out.Incidents = append(out.Incidents, *inc)
	}
}
