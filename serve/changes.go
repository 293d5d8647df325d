package serve

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/snapshot"
)

// The /changes paging rules (also in docs/api.md and the OpenAPI description).
const (
	DefaultChangeLimit = 100
	MaxChangeLimit     = 1000
	// maxChangesParamLen caps since and limit (the OpenAPI's maxLength).
	maxChangesParamLen = 64
)

// parseChangeSince reads since as a change id (digits), or as a time the
// way /incidents reads its since: an RFC 3339 date-time or a plain date
// (midnight UTC).
func parseChangeSince(v string) (id int64, t time.Time, isID bool, err error) {
	v = strings.TrimSpace(v)
	if v != "" && strings.Trim(v, "0123456789") == "" {
		id, err = strconv.ParseInt(v, 10, 64)
		return id, time.Time{}, true, err
	}
	t, err = parseSince(v)
	return 0, t, false, err
}

// handleChanges answers /changes: without since, the recent log of
// changes.json (what a static host serves); with since, the entries after
// that id or at or after that time, oldest first, limit at a time.
func (s *Server) handleChanges(w http.ResponseWriter, r *http.Request) {
	snap, q, ok := s.snapshotAndQuery(w, r)
	if !ok {
		return
	}
	if rep := snap.files[snapshot.FileChanges]; rep != nil && !q.Has("since") && !q.Has("limit") {
		rep.serve(w, r)
		return
	}
	// A folder written before the change log existed has no changes.json:
	// it is answered from the (empty) log like any query.
	if param, msg := paramTooLong(q, maxChangesParamLen, "since", "limit"); param != "" {
		problem(w, http.StatusBadRequest, param, msg)
		return
	}
	log := s.changeLog(snap)
	entries := log.changes
	if q.Has("since") {
		v := q.Get("since")
		id, t, isID, err := parseChangeSince(v)
		switch {
		case err != nil:
			problem(w, http.StatusBadRequest, "since", fmt.Sprintf("since %q is neither a change id (a whole number) nor an RFC 3339 date-time (2026-11-01T14:03:00Z) or a date (2026-11-01)", api.Truncate(v, 64)))
			return
		case isID:
			entries = history.ChangesAfter(entries, id)
		default:
			entries = history.ChangesFrom(entries, t)
		}
	}
	limit, msg := parseLimit(q, DefaultChangeLimit, MaxChangeLimit)
	if msg != "" {
		problem(w, http.StatusBadRequest, "limit", msg)
		return
	}
	truncated := len(entries) > limit
	if truncated {
		entries = entries[:limit]
	}
	serveJSON(w, r, api.ChangeList{
		Changes: append([]api.Change{}, entries...), LogStart: log.since.UTC(),
		LastID: history.LastChangeID(log.changes), Truncated: truncated,
		Timestamp: snap.Manifest.GeneratedAt, License: api.License,
	})
}
