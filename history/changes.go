package history

import (
	"iter"
	"sort"
	"time"

	"github.com/aistatus/aistatus/api"
)

// The change log rules, also stated in docs/api.md and the OpenAPI description.
const (
	// KeepChanges is how long a change is kept in the history's log at least.
	KeepChanges = 90 * 24 * time.Hour
	// MaxChanges bounds the log; past it the oldest entries of the services
	// with the most go first, even when younger than KeepChanges (a flapping
	// service must not grow the history without bound, nor push out the
	// others' entries).
	MaxChanges = 50_000
	// RecentChanges and RecentChangesWindow bound changes.json, the static
	// file: the entries of the last 7 days, at most the newest 5 000. A
	// poller that comes back within a week misses nothing; the thin server
	// answers from the whole retained log.
	RecentChanges       = 5_000
	RecentChangesWindow = 7 * 24 * time.Hour
)

// firstChangeID is where a new log starts counting: the build's time in
// microseconds. Ids then never repeat even when a corrupt history is set
// aside and a new one begins, as long as the clock moves forward.
func firstChangeID(now time.Time) int64 { return now.UnixMicro() }

// AddChange appends c to the log with the next id and returns the entry.
func (h *History) AddChange(c api.Change) api.Change {
	if h.NextChangeID <= 0 {
		h.NextChangeID = firstChangeID(c.Time)
	}
	if h.ChangesSince.IsZero() {
		// The log begins now: nothing before it was recorded.
		h.ChangesSince = c.Time.UTC()
	}
	c.ID = h.NextChangeID
	h.NextChangeID++
	c.Time = c.Time.UTC()
	if n := len(h.Changes); n > 0 && c.Time.Before(h.Changes[n-1].Time) {
		// A clock that stepped back must not break the log's time order,
		// which the point-in-time reads search by.
		c.Time = h.Changes[n-1].Time
	}
	h.Changes = append(h.Changes, c)
	return c
}

// AddStatusChange appends c, a *status.changed entry, to the log and, when
// it recovers its subject from an outage (RecoveredFrom), the subject's
// *.recovered entry right after it, with the outage as its old status.
func (h *History) AddStatusChange(c api.Change) {
	from := RecoveredFrom(h.Changes, c)
	h.AddChange(c)
	if recovery, ok := c.Type.Recovery(); ok && from != "" {
		c.Type, c.OldStatus = recovery, from
		h.AddChange(c)
	}
}

// RecoveredFrom is the status c, a status change about to be logged after
// log, recovers its subject from: degraded, a partial or a major outage,
// when c moves it to operational and that was its last known status — c's
// old status or, when that is unknown (a page that could not be read for a
// while, a model with too little traffic to tell), the status before the
// unknown stretch, read in the subject's previous change of c's type. ""
// when c is no recovery: from maintenance, at a first check, or from an
// unknown the log does not explain (its entry pruned).
func RecoveredFrom(log []api.Change, c api.Change) api.Status {
	if c.NewStatus != api.Operational {
		return ""
	}
	from := c.OldStatus
	if from == api.Unknown {
		from = ""
		// Read back only for a move from unknown to operational, and only
		// as far as the subject's latest change of c's type.
		for p := range subjectBackward(log, c.Type, c) {
			if p.NewStatus == api.Unknown {
				from = p.OldStatus
			}
			break
		}
	}
	if from.AtLeast(api.Degraded) {
		return from
	}
	return ""
}

// OutageEnded is the outage rec, a *.recovered entry logged after log
// (AddStatusChange), ends: the stretch of its subject's status changes
// through degraded, partial or major outage and unknown, back from the
// status change that brought it to operational. It began (since) at the
// stretch's first change into degraded or worse, an unknown before that
// not counted; its worst status is the worst in it. false when rec is no
// recovery or the log does not reach the stretch's start (pruned).
func OutageEnded(log []api.Change, rec api.Change) (since time.Time, worst api.Status, ok bool) {
	var of api.ChangeType
	for _, t := range api.ChangeTypes {
		if r, isStatus := t.Recovery(); isStatus && r == rec.Type {
			of = t
		}
	}
	if of == "" {
		return time.Time{}, "", false
	}
	worst = rec.OldStatus
	for c := range subjectBackward(log, of, rec) {
		if c.NewStatus.AtLeast(api.Degraded) {
			since, worst = c.Time, api.Worse(worst, c.NewStatus)
		}
		if !c.OldStatus.AtLeast(api.Degraded) && c.OldStatus != api.Unknown {
			return since, worst, !since.IsZero()
		}
	}
	return time.Time{}, "", false
}

// subjectBackward yields the entries of log of type typ about c's
// subject, newest first: the one walk back through a subject's status
// changes that RecoveredFrom and OutageEnded both make.
func subjectBackward(log []api.Change, typ api.ChangeType, c api.Change) iter.Seq[api.Change] {
	return func(yield func(api.Change) bool) {
		for i := len(log) - 1; i >= 0; i-- {
			if p := log[i]; p.Type == typ && sameSubject(p, c) && !yield(p) {
				return
			}
		}
	}
}

// sameSubject reports whether a and b are about the same service, surface
// or model (Change.Subject, without building the strings).
func sameSubject(a, b api.Change) bool {
	if (a.Model == nil) != (b.Model == nil) || (a.Model != nil && a.Model.ID != b.Model.ID) {
		return false
	}
	return a.Service == b.Service && a.Surface == b.Surface
}

// StartChangeLog marks the log as begun at now when it has not begun yet,
// so that a build that noticed no change still dates the log's start.
func (h *History) StartChangeLog(now time.Time) {
	if h.ChangesSince.IsZero() {
		h.ChangesSince = now.UTC()
	}
	if h.NextChangeID <= 0 {
		h.NextChangeID = firstChangeID(now)
	}
}

// ChangesAfter returns the entries of log (in id order) with an id above id.
func ChangesAfter(log []api.Change, id int64) []api.Change {
	i := sort.Search(len(log), func(i int) bool { return log[i].ID > id })
	return log[i:]
}

// ChangesFrom returns the entries of log at or after t.
func ChangesFrom(log []api.Change, t time.Time) []api.Change {
	i := sort.Search(len(log), func(i int) bool { return !log[i].Time.Before(t) })
	return log[i:]
}

// RecentChangeList is changes.json: the entries of the last
// RecentChangesWindow, at most RecentChanges of them.
func RecentChangeList(h *History, now time.Time) api.ChangeList {
	from := now.Add(-RecentChangesWindow)
	recent := ChangesFrom(h.Changes, from)
	start := h.ChangesSince
	if from.After(start) {
		start = from
	}
	if len(recent) > RecentChanges {
		// The file is complete only from its own first entry on.
		recent = recent[len(recent)-RecentChanges:]
		start = recent[0].Time
	}
	return api.ChangeList{Changes: nonNil(recent), LogStart: start.UTC(), LastID: LastChangeID(h.Changes),
		Timestamp: now.UTC(), License: api.License}
}

// LastChangeID is the id of the newest entry of log, 0 when it is empty.
func LastChangeID(log []api.Change) int64 {
	if len(log) == 0 {
		return 0
	}
	return log[len(log)-1].ID
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// StatusAt is the status the log says a service had at t, and since when
// (zero when it dates from before the log). It relies on the log being
// complete after t and in time order, as a history keeps it: the newest
// change at or before t gives the status; with none, the first change after
// t says what the status was before it; with no change at all, current is
// the status. ok is false when the service was never checked by t.
//
// t is found by binary search, and the service's changes nearest it by a
// walk from there: given only the service's status changes, as the server
// keeps them, an answer costs a logarithm of the log, not a pass over it.
func StatusAt(log []api.Change, slug string, t time.Time, current api.Status) (s api.Status, since time.Time, ok bool) {
	split := sort.Search(len(log), func(i int) bool { return log[i].Time.After(t) })
	for i := split - 1; i >= 0; i-- {
		if c := &log[i]; c.Service == slug && c.Type == api.ChangeStatus {
			return c.NewStatus, c.Time, true
		}
	}
	for i := split; i < len(log); i++ {
		if c := &log[i]; c.Service == slug && c.Type == api.ChangeStatus {
			return c.OldStatus, time.Time{}, c.OldStatus != ""
		}
	}
	return current, time.Time{}, current != ""
}
