package snapshot

import (
	"sort"
	"strconv"
	"strings"
	"time"
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

// ChangeType is what a change log entry records.
type ChangeType string

// The change types. A CloudEvent's type is CloudEventTypePrefix + the change type.
const (
	ChangeStatus           ChangeType = "status.changed"
	ChangeIncidentOpened   ChangeType = "incident.opened"
	ChangeIncidentUpdated  ChangeType = "incident.updated"
	ChangeIncidentResolved ChangeType = "incident.resolved"
)

// ChangeTypes lists every change type.
var ChangeTypes = []ChangeType{ChangeStatus, ChangeIncidentOpened, ChangeIncidentUpdated, ChangeIncidentResolved}

// Change is one entry of the change log: a service's status moved, or one of
// its incidents was opened, updated or resolved, as a build noticed it.
type Change struct {
	// ID is monotonic across builds and never reused (see History.NextChangeID).
	ID      int64      `json:"id"`
	Type    ChangeType `json:"type"`
	Service string     `json:"service"`
	// Time is when the build noticed the change.
	Time time.Time `json:"time"`
	// OldStatus and NewStatus are set for status.changed; OldStatus is
	// absent for a service's first check.
	OldStatus Status `json:"oldStatus,omitempty"`
	NewStatus Status `json:"newStatus,omitempty"`
	// Incident is the incident after the change, for incident.* entries.
	Incident *Incident `json:"incident,omitempty"`
	// Changed lists the fields an incident.updated changed (severity,
	// status, headline).
	Changed []string `json:"changed,omitempty"`
}

// ChangeList is changes.json and the answer of GET /changes.
type ChangeList struct {
	Changes []Change `json:"changes"`
	// LogStart is when the retained log begins: every change after it is
	// listed or can be asked for.
	LogStart time.Time `json:"logStart"`
	// LastID is the id of the newest change in the log (0 when empty): a
	// client that saw it is up to date.
	LastID int64 `json:"lastId"`
	// Truncated says more changes follow the last one listed: ask again
	// with since set to its id.
	Truncated bool      `json:"truncated"`
	Timestamp time.Time `json:"timestamp"`
	License   string    `json:"license"`
}

// FileChanges is the recent change log in a snapshot folder.
const FileChanges = "changes.json"

// firstChangeID is where a new log starts counting: the build's time in
// microseconds. Ids then never repeat even when a corrupt history is set
// aside and a new one begins, as long as the clock moves forward.
func firstChangeID(now time.Time) int64 { return now.UnixMicro() }

// AddChange appends c to the log with the next id and returns the entry.
func (h *History) AddChange(c Change) Change {
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
func ChangesAfter(log []Change, id int64) []Change {
	i := sort.Search(len(log), func(i int) bool { return log[i].ID > id })
	return log[i:]
}

// ChangesFrom returns the entries of log at or after t.
func ChangesFrom(log []Change, t time.Time) []Change {
	i := sort.Search(len(log), func(i int) bool { return !log[i].Time.Before(t) })
	return log[i:]
}

// RecentChangeList is changes.json: the entries of the last
// RecentChangesWindow, at most RecentChanges of them.
func RecentChangeList(h *History, now time.Time) ChangeList {
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
	return ChangeList{Changes: nonNil(recent), LogStart: start.UTC(), LastID: LastChangeID(h.Changes),
		Timestamp: now.UTC(), License: License}
}

// LastChangeID is the id of the newest entry of log, 0 when it is empty.
func LastChangeID(log []Change) int64 {
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
func StatusAt(log []Change, slug string, t time.Time, current Status) (s Status, since time.Time, ok bool) {
	split := sort.Search(len(log), func(i int) bool { return log[i].Time.After(t) })
	for i := split - 1; i >= 0; i-- {
		if c := &log[i]; c.Service == slug && c.Type == ChangeStatus {
			return c.NewStatus, c.Time, true
		}
	}
	for i := split; i < len(log); i++ {
		if c := &log[i]; c.Service == slug && c.Type == ChangeStatus {
			return c.OldStatus, time.Time{}, c.OldStatus != ""
		}
	}
	return current, time.Time{}, current != ""
}

// ChangeIDString is a change id as CloudEvents, SSE and webhooks spell it.
func ChangeIDString(id int64) string { return strconv.FormatInt(id, 10) }

// CloudEventTypePrefix is the namespace of aistatus's CloudEvent types.
const CloudEventTypePrefix = "ai.aistatus."

// ContentEventStream is the media type of Server-Sent Events.
const ContentEventStream = "text/event-stream"

// CloudEvent is a change as a CloudEvents 1.0 JSON event (structured mode),
// the body of a webhook and the data of a Server-Sent Event.
type CloudEvent struct {
	SpecVersion     string    `json:"specversion"`
	ID              string    `json:"id"`
	Source          string    `json:"source"`
	Type            string    `json:"type"`
	Subject         string    `json:"subject"`
	Time            time.Time `json:"time"`
	DataContentType string    `json:"datacontenttype"`
	Data            EventData `json:"data"`
}

// EventData is a CloudEvent's data: the change without its envelope.
type EventData struct {
	Service   string    `json:"service"`
	OldStatus Status    `json:"oldStatus,omitempty"`
	NewStatus Status    `json:"newStatus,omitempty"`
	Incident  *Incident `json:"incident,omitempty"`
	Changed   []string  `json:"changed,omitempty"`
}

// NewCloudEvent wraps c for the instance at baseURL (its site address).
func NewCloudEvent(c Change, baseURL string) CloudEvent {
	return CloudEvent{
		SpecVersion: "1.0", ID: ChangeIDString(c.ID), Source: strings.TrimRight(baseURL, "/") + APIBase,
		Type: CloudEventTypePrefix + string(c.Type), Subject: c.Service, Time: c.Time.UTC(),
		DataContentType: ContentJSON,
		Data:            EventData{Service: c.Service, OldStatus: c.OldStatus, NewStatus: c.NewStatus, Incident: c.Incident, Changed: c.Changed},
	}
}

// ServiceAt is what we reported of one service at a past time, rebuilt
// from the change log: its status then (and since when, null when that
// status dates from before the log), and the incidents open then.
type ServiceAt struct {
	Slug   string     `json:"slug"`
	Name   string     `json:"name"`
	Status Status     `json:"status"`
	Since  *time.Time `json:"since"`
	// Incidents are the retained incidents that had started, had been
	// reported and had not ended at that time, with their current text:
	// the newest MaxIncidentsAt of them.
	Incidents []Incident `json:"incidents"`
	// IncidentsTruncated is true when more incidents were open then than
	// Incidents lists.
	IncidentsTruncated bool `json:"incidentsTruncated,omitempty"`
}

// MaxIncidentsAt caps the incidents a point-in-time read lists per service:
// a few are open at any time, and a feed that floods its page with
// thousands must not make every ?at= answer megabytes long.
const MaxIncidentsAt = 100

// StatusAtDoc is the answer of GET /status/at/{time} (and /status?at=).
type StatusAtDoc struct {
	At       time.Time   `json:"at"`
	Services []ServiceAt `json:"services"`
	// LogStart is how far back an at may go.
	LogStart  time.Time `json:"logStart"`
	Timestamp time.Time `json:"timestamp"`
	License   string    `json:"license"`
}

// ServiceAtDoc is the answer of GET /services/{slug}/at/{time} (and ?at=).
type ServiceAtDoc struct {
	At        time.Time `json:"at"`
	Service   ServiceAt `json:"service"`
	LogStart  time.Time `json:"logStart"`
	Timestamp time.Time `json:"timestamp"`
	License   string    `json:"license"`
}
