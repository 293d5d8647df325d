package api

import (
	"strconv"
	"time"

	"github.com/aistatus/aistatus/catalog"
)

// ChangeType is what a change log entry records.
type ChangeType string

// The change types. A CloudEvent's type is CloudEventTypePrefix + the change type.
const (
	ChangeStatus           ChangeType = "status.changed"
	ChangeIncidentOpened   ChangeType = "incident.opened"
	ChangeIncidentUpdated  ChangeType = "incident.updated"
	ChangeIncidentResolved ChangeType = "incident.resolved"
	// ChangeSurfaceStatus is a status transition of a surface other than
	// the API (claude.ai, Claude Code): the service's own status.changed
	// says nothing of them.
	ChangeSurfaceStatus ChangeType = "surface.status.changed"
	// ChangeModelStatus is a transition of a watched model's status (the
	// best of its providers'), which no service's status says.
	ChangeModelStatus ChangeType = "model.status.changed"
	// The lifecycle of a watched model: found in a gateway's list and
	// watched, announced to be retired on a date, retired.
	ChangeModelAdded    ChangeType = "model.added"
	ChangeModelRetiring ChangeType = "model.retiring"
	ChangeModelRetired  ChangeType = "model.retired"
	// The recoveries: a service, a surface or a watched model back to
	// operational from an outage or degradation, logged right after the
	// status change that brought it back (history.RecoveredFrom has the
	// rule). A client that stopped calling during an outage resumes on
	// one event of its subject, without reading every status change.
	ChangeServiceRecovered ChangeType = "service.recovered"
	ChangeSurfaceRecovered ChangeType = "surface.recovered"
	ChangeModelRecovered   ChangeType = "model.recovered"
)

// ChangeTypes lists every change type.
var ChangeTypes = []ChangeType{ChangeStatus, ChangeIncidentOpened, ChangeIncidentUpdated, ChangeIncidentResolved,
	ChangeSurfaceStatus, ChangeModelStatus,
	ChangeModelAdded, ChangeModelRetiring, ChangeModelRetired,
	ChangeServiceRecovered, ChangeSurfaceRecovered, ChangeModelRecovered}

// Recovery is the change type that marks a recovery of the subject of a
// status change of type t (service.recovered for a status.changed); false
// for a type that is no status change.
func (t ChangeType) Recovery() (ChangeType, bool) {
	switch t {
	case ChangeStatus:
		return ChangeServiceRecovered, true
	case ChangeSurfaceStatus:
		return ChangeSurfaceRecovered, true
	case ChangeModelStatus:
		return ChangeModelRecovered, true
	}
	return "", false
}

// Change is one entry of the change log: a service's, a surface's or a
// watched model's status moved (or it recovered), or an incident was
// opened, updated or resolved, as a build noticed it.
type Change struct {
	// ID is monotonic across builds and never reused (see history.History.NextChangeID).
	ID   int64      `json:"id"`
	Type ChangeType `json:"type"`
	// Service is the service's slug; for a model.* entry, the
	// model's maker's tracked service, "" for a model of no tracked maker
	// (an open-weight model served by others).
	Service string `json:"service"`
	// Surface is the surface of a surface.status.changed or
	// surface.recovered.
	Surface catalog.SurfaceID `json:"surface,omitempty"`
	// Time is when the build noticed the change.
	Time time.Time `json:"time"`
	// OldStatus and NewStatus are set for the *status.changed types;
	// OldStatus is absent for a service's or a surface's first check. A
	// *.recovered entry has the outage it recovered from as OldStatus
	// (the status before any stretch of unknown) and operational as
	// NewStatus.
	OldStatus Status `json:"oldStatus,omitempty"`
	NewStatus Status `json:"newStatus,omitempty"`
	// Incident is the incident after the change, for incident.* entries.
	Incident *Incident `json:"incident,omitempty"`
	// Changed lists the fields an incident.updated changed (severity,
	// status, headline).
	Changed []string `json:"changed,omitempty"`
	// Model is the watched model of a model.* entry (model.status.changed,
	// model.recovered and the lifecycle's); Service is then its maker's
	// service.
	Model *ChangeModel `json:"model,omitempty"`
}

// ChangeModel is the model a model.* change is about.
type ChangeModel struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Date is the retirement's date (model.retiring, model.retired).
	Date string `json:"date,omitempty"`
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

// ModelSubjectPrefix starts the subject id of a watched model
// ("model:anthropic/claude-sonnet-4.5"), which a model id alone would make
// look like a surface's ("anthropic/app").
const ModelSubjectPrefix = "model:"

// Subject is the id of what the change is about: the service's slug
// ("anthropic"), a surface's "<slug>/<surface>" ("anthropic/app") or a
// model's "model:<id>" (every model.* entry). It is
// the CloudEvent's subject.
func (c Change) Subject() string {
	switch {
	case c.Model != nil:
		return ModelSubjectPrefix + c.Model.ID
	case c.Surface != "":
		return c.Service + "/" + string(c.Surface)
	}
	return c.Service
}

// ChangeIDString is a change id as CloudEvents, SSE and webhooks spell it.
func ChangeIDString(id int64) string { return strconv.FormatInt(id, 10) }

// CloudEventTypePrefix is the namespace of aistatus's CloudEvent types.
const CloudEventTypePrefix = "ai.aistatus."

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
	Service   string            `json:"service"`
	Surface   catalog.SurfaceID `json:"surface,omitempty"`
	OldStatus Status            `json:"oldStatus,omitempty"`
	NewStatus Status            `json:"newStatus,omitempty"`
	Incident  *Incident         `json:"incident,omitempty"`
	Changed   []string          `json:"changed,omitempty"`
	Model     *ChangeModel      `json:"model,omitempty"`
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
