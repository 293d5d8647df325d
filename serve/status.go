package serve

import (
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/aistatus/aistatus/snapshot"
)

// handleStatus serves status.json, or with ?at= the status of every
// service at that time.
func (s *Server) handleStatus(w http.ResponseWriter, r *http.Request) {
	snap, q, ok := s.snapshotAndQuery(w, r)
	if !ok {
		return
	}
	if !q.Has("at") {
		snap.files[snapshot.FileStatus].serve(w, r)
		return
	}
	at, ok := s.parseAt(w, snap, q)
	if !ok {
		return
	}
	doc := snapshot.StatusAtDoc{At: at, Services: []snapshot.ServiceAt{}, LogStart: snap.changesSince.UTC(),
		Timestamp: snap.Manifest.GeneratedAt, License: snapshot.License}
	for _, slug := range snap.order {
		doc.Services = append(doc.Services, snap.serviceAt(slug, at))
	}
	serveJSON(w, r, doc)
}

func (s *Server) handleService(w http.ResponseWriter, r *http.Request) {
	snap := s.snapshotOr503(w)
	if snap == nil {
		return
	}
	slug := r.PathValue("slug")
	rep := snap.files[snapshot.ServiceFile(slug)]
	if _, tracked := snap.status[slug]; !tracked || rep == nil {
		problem(w, http.StatusNotFound, "slug", fmt.Sprintf("%q is not a tracked service: see %s for the list", snapshot.Truncate(slug, 64), snapshot.PathStatus))
		return
	}
	q, ok := parseQuery(w, r)
	if !ok {
		return
	}
	if !q.Has("at") {
		s.serviceWithReports(slug, rep, s.opts.Now()).serve(w, r)
		return
	}
	at, ok := s.parseAt(w, snap, q)
	if !ok {
		return
	}
	serveJSON(w, r, snapshot.ServiceAtDoc{At: at, Service: snap.serviceAt(slug, at), LogStart: snap.changesSince.UTC(),
		Timestamp: snap.Manifest.GeneratedAt, License: snapshot.License})
}

// parseAt validates ?at= for a point-in-time read: an RFC 3339 date-time
// not in the future (400) and not before the retained log begins (404: we
// hold no record of then). It reports false after answering a problem.
func (s *Server) parseAt(w http.ResponseWriter, snap *Snapshot, q url.Values) (time.Time, bool) {
	v := q.Get("at")
	at, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(v))
	if err != nil || len(v) > 64 {
		problem(w, http.StatusBadRequest, "at", fmt.Sprintf("at %q is not an RFC 3339 date-time (2026-11-01T14:03:00Z)", snapshot.Truncate(v, 64)))
		return time.Time{}, false
	}
	at = at.UTC()
	if now := s.opts.Now(); at.After(now) {
		problem(w, http.StatusBadRequest, "at", fmt.Sprintf("at %s is in the future (now %s)", at.Format(time.RFC3339), now.UTC().Format(time.RFC3339)))
		return time.Time{}, false
	}
	if snap.changesSince.IsZero() || at.Before(snap.changesSince) {
		detail := "no change log is retained yet"
		if !snap.changesSince.IsZero() {
			detail = "the retained change log begins " + snap.changesSince.UTC().Format(time.RFC3339Nano)
		}
		problem(w, http.StatusNotFound, "at", fmt.Sprintf("no record of %s: %s", at.Format(time.RFC3339), detail))
		return time.Time{}, false
	}
	return at, true
}

// serviceAt rebuilds what we reported of one service at at. The incidents
// open then are found without a pass over the service's retained ones:
// those that started later are a prefix (newest first), the ended ones are
// scanned only while an older one may still have been open (latestEnd),
// and the ones still open come from their own index. At most
// snapshot.MaxIncidentsAt are listed, the newest, and IncidentsTruncated
// says when there were more.
func (snap *Snapshot) serviceAt(slug string, at time.Time) snapshot.ServiceAt {
	sum := snap.status[slug]
	st, since, ok := snapshot.StatusAt(snap.statusChanges[slug], slug, at, sum.Status)
	if !ok {
		st = snapshot.Unknown // not checked yet then
	}
	out := snapshot.ServiceAt{Slug: slug, Name: sum.Name, Status: st, Incidents: []snapshot.Incident{}}
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
		if opened, logged := snap.openedAt[inc.ID]; logged && opened.After(at) {
			continue // started earlier by its own account, but we learned of it later
		}
		if len(out.Incidents) == snapshot.MaxIncidentsAt {
			out.IncidentsTruncated = true
			return out
		}
		out.Incidents = append(out.Incidents, *inc)
	}
}
