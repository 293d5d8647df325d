package site

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/snapshot"
)

// The Statuspage v2 façade: for every service, the documents of Atlassian
// Statuspage's public API v2 (summary.json, status.json, …) under
// p/{slug}/api/v2/, so that the menubar apps, bots and exporters that parse
// that shape read every service we track, including those whose own page is
// no Statuspage. Field names and enums are v2's; the values are ours (the
// same as services/{slug}.json), with a top-level "aistatus" object saying
// where they come from.

// StatuspageDir is the folder of a service's façade in the snapshot; its
// files are StatuspageFiles.
func StatuspageDir(slug string) string { return "p/" + slug + "/api/v2" }

// StatuspageFiles are the façade's documents, relative to StatuspageDir.
var StatuspageFiles = []string{
	"summary.json", "status.json", "components.json", "incidents.json", "incidents/unresolved.json",
	"scheduled-maintenances.json", "scheduled-maintenances/upcoming.json", "scheduled-maintenances/active.json",
}

// statuspageIncidentsMax is v2's bound on incidents.json and
// scheduled-maintenances.json: the 50 most recent.
const statuspageIncidentsMax = 50

// spIndicator maps a status to v2's page indicator and its description.
// v2 has no "unknown": an unknown status is "minor", the mildest indicator
// that is not "none", because "none" would say "all systems operational"
// when we could not tell, and anything stronger would claim an outage
// nobody saw. The description says it is unknown, and the "aistatus"
// object carries the status itself.
func spIndicator(s api.Status) (indicator, description string) {
	switch s {
	case api.Operational:
		return "none", "All Systems Operational"
	case api.Degraded:
		return "minor", "Partially Degraded Service"
	case api.PartialOutage:
		return "major", "Partial System Outage"
	case api.MajorOutage:
		return "critical", "Major System Outage"
	case api.Maintenance:
		return "maintenance", "Service Under Maintenance"
	default:
		return "minor", "Status Unknown: aistatus cannot tell whether the service is up"
	}
}

// spComponentStatus maps a status to v2's component status. Unknown becomes
// degraded_performance, the mildest status that is not "operational", for
// the reason spIndicator gives.
func spComponentStatus(s api.Status) string {
	switch s {
	case api.Operational:
		return "operational"
	case api.PartialOutage:
		return "partial_outage"
	case api.MajorOutage:
		return "major_outage"
	case api.Maintenance:
		return "under_maintenance"
	default: // degraded, unknown
		return "degraded_performance"
	}
}

// spIncidentStatus maps an incident's progress to v2's incident status. An
// ended incident is resolved whatever its last word; an open one keeps a
// v2 status it already has, and is "investigating" otherwise (our probe
// incidents say "ongoing").
func spIncidentStatus(inc api.Incident) string {
	if inc.EndedAt != nil {
		if inc.Status == "postmortem" {
			return "postmortem"
		}
		return "resolved"
	}
	switch inc.Status {
	case "investigating", "identified", "monitoring":
		return inc.Status
	}
	return "investigating"
}

type spPage struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	URL       string    `json:"url"`
	TimeZone  string    `json:"time_zone"`
	UpdatedAt time.Time `json:"updated_at"`
}

type spStatus struct {
	Indicator   string `json:"indicator"`
	Description string `json:"description"`
}

type spComponent struct {
	ID                 string    `json:"id"`
	Name               string    `json:"name"`
	Status             string    `json:"status"`
	CreatedAt          time.Time `json:"created_at"`
	UpdatedAt          time.Time `json:"updated_at"`
	Position           int       `json:"position"`
	Description        string    `json:"description"`
	Showcase           bool      `json:"showcase"`
	StartDate          *string   `json:"start_date"`
	GroupID            *string   `json:"group_id"`
	PageID             string    `json:"page_id"`
	Group              bool      `json:"group"`
	OnlyShowIfDegraded bool      `json:"only_show_if_degraded"`
}

type spIncident struct {
	ID              string        `json:"id"`
	Name            string        `json:"name"`
	Status          string        `json:"status"`
	CreatedAt       time.Time     `json:"created_at"`
	UpdatedAt       time.Time     `json:"updated_at"`
	MonitoringAt    *time.Time    `json:"monitoring_at"`
	ResolvedAt      *time.Time    `json:"resolved_at"`
	Impact          string        `json:"impact"`
	Shortlink       string        `json:"shortlink"`
	StartedAt       time.Time     `json:"started_at"`
	PageID          string        `json:"page_id"`
	IncidentUpdates []spUpdate    `json:"incident_updates"`
	Components      []spComponent `json:"components"`
	ScheduledFor    *time.Time    `json:"scheduled_for,omitempty"`
	// ScheduledFor and ScheduledUntil are set on maintenances only;
	// ScheduledUntil stays absent while a maintenance goes on (its end is
	// not known).
	ScheduledUntil *time.Time `json:"scheduled_until,omitempty"`
}

type spUpdate struct {
	ID                   string    `json:"id"`
	Status               string    `json:"status"`
	Body                 string    `json:"body"`
	IncidentID           string    `json:"incident_id"`
	CreatedAt            time.Time `json:"created_at"`
	UpdatedAt            time.Time `json:"updated_at"`
	DisplayAt            time.Time `json:"display_at"`
	AffectedComponents   *[]any    `json:"affected_components"`
	DeliverNotifications bool      `json:"deliver_notifications"`
	CustomTweet          *string   `json:"custom_tweet"`
	TweetID              *string   `json:"tweet_id"`
}

// spSource is the façade's own addition: what the v2 values rest on.
type spSource struct {
	Status api.Status `json:"status"`
	Basis  api.Basis  `json:"basis"`
	// Document is the aistatus document the façade is rendered from.
	Document string `json:"document"`
	Note     string `json:"note"`
	License  string `json:"license"`
}

// statuspageNote is the aistatus object's note, the mapping in one sentence.
const statuspageNote = "A Statuspage v2 rendering of aistatus's status, not the service's own page. " +
	"v2 has no unknown: an unknown status is indicator minor and component degraded_performance, never operational. " +
	"Scheduled maintenances are the maintenance windows aistatus observed; announced schedules are not read, so upcoming is empty."

// statuspage renders a service's façade: path → content.
func (m *model) statuspage(svc *service, windows []maintenanceWindow) (map[string][]byte, error) {
	page := spPage{ID: svc.Slug, Name: svc.Name, URL: m.base + "/services/" + svc.Slug, TimeZone: "Etc/UTC", UpdatedAt: m.now}
	indicator, description := spIndicator(svc.Status)
	status := spStatus{Indicator: indicator, Description: description}
	source := spSource{Status: svc.Status, Basis: svc.Basis, Document: m.base + strings.ReplaceAll(snapshot.PathService, snapshot.SlugParam, svc.Slug),
		Note: statuspageNote, License: api.License}
	components := m.spComponents(svc)

	var all, unresolved []spIncident
	for i, inc := range svc.Incidents {
		// Only the newest are listed, and the open ones: the rest, most
		// of up to thousands, are not made.
		if i >= statuspageIncidentsMax && !inc.Open() {
			continue
		}
		v := m.spIncident(svc, inc)
		if len(all) < statuspageIncidentsMax {
			all = append(all, v)
		}
		if inc.Open() {
			unresolved = append(unresolved, v)
		}
	}
	var maintenances, active []spIncident
	for i := len(windows) - 1; i >= 0; i-- { // newest first
		v := m.spMaintenance(svc, windows[i])
		if len(maintenances) < statuspageIncidentsMax {
			maintenances = append(maintenances, v)
		}
		if windows[i].Open() {
			active = append(active, v)
		}
	}
	orEmpty := func(l []spIncident) []spIncident {
		if l == nil {
			return []spIncident{}
		}
		return l
	}
	docs := map[string]any{
		"summary.json": map[string]any{"page": page, "components": components, "incidents": orEmpty(unresolved),
			"scheduled_maintenances": orEmpty(active), "status": status, "aistatus": source},
		"status.json":                          map[string]any{"page": page, "status": status, "aistatus": source},
		"components.json":                      map[string]any{"page": page, "components": components, "aistatus": source},
		"incidents.json":                       map[string]any{"page": page, "incidents": orEmpty(all), "aistatus": source},
		"incidents/unresolved.json":            map[string]any{"page": page, "incidents": orEmpty(unresolved), "aistatus": source},
		"scheduled-maintenances.json":          map[string]any{"page": page, "scheduled_maintenances": orEmpty(maintenances), "aistatus": source},
		"scheduled-maintenances/upcoming.json": map[string]any{"page": page, "scheduled_maintenances": []spIncident{}, "aistatus": source},
		"scheduled-maintenances/active.json":   map[string]any{"page": page, "scheduled_maintenances": orEmpty(active), "aistatus": source},
	}
	files := map[string][]byte{}
	for _, name := range StatuspageFiles {
		data, err := json.Marshal(docs[name])
		if err != nil {
			return nil, fmt.Errorf("render %s/%s: %w", StatuspageDir(svc.Slug), name, err)
		}
		files[StatuspageDir(svc.Slug)+"/"+name] = append(data, '\n')
	}
	return files, nil
}

// spComponents are the façade's components: first the service itself, with
// the status aistatus decided (official page and probe together, the one
// the indicator shows), then the in-scope components of the official page
// as last read. The service's surfaces (API, app, agent, console) are to
// become components here once the catalog has them.
func (m *model) spComponents(svc *service) []spComponent {
	created := m.now
	if svc.DataSince != nil {
		created = svc.DataSince.UTC()
	}
	updated := m.now
	if svc.LastChecked != nil {
		updated = svc.LastChecked.UTC()
	}
	list := []spComponent{{
		ID: svc.Slug, Name: svc.Name + " API", Status: spComponentStatus(svc.Status), CreatedAt: created, UpdatedAt: updated,
		Position: 1, Description: "aistatus's status of the " + svc.Name + " API (" + string(svc.Status) +
			"): the official status page's word for the API, checked by aistatus's own probe.",
		Showcase: true, PageID: svc.Slug,
	}}
	for _, c := range svc.Components {
		if !c.InScope {
			continue
		}
		list = append(list, spComponent{
			ID: c.ID, Name: c.Name, Status: spComponentStatus(c.Status),
			CreatedAt: created, UpdatedAt: updated, Position: len(list) + 1,
			Description: "As read from the official status page (" + svc.StatusPage + ") by aistatus.",
			Showcase:    true, PageID: svc.Slug,
		})
	}
	return list
}

func (m *model) spIncident(svc *service, inc api.Incident) spIncident {
	status := spIncidentStatus(inc)
	updated := inc.UpdatedAt
	if updated.IsZero() {
		updated = inc.StartedAt
	}
	link := inc.URL
	if link == "" {
		link = m.base + "/services/" + svc.Slug
	}
	body := "Severity " + string(inc.Severity) + ". From the official status page."
	if inc.Source == api.SourceProbe {
		body = "Severity " + string(inc.Severity) + ". Detected by aistatus's own probe of the API host, not reported by the service."
	}
	v := spIncident{
		ID: inc.ID, Name: inc.Headline, Status: status, CreatedAt: inc.StartedAt.UTC(), UpdatedAt: updated.UTC(),
		ResolvedAt: utcPtr(inc.EndedAt), Impact: string(inc.Severity), Shortlink: link, StartedAt: inc.StartedAt.UTC(),
		PageID: svc.Slug, Components: []spComponent{},
		// One update: the incident as last read. The official updates'
		// texts are not kept.
		IncidentUpdates: []spUpdate{{
			ID: inc.ID + "-latest", Status: status, Body: body, IncidentID: inc.ID,
			CreatedAt: updated.UTC(), UpdatedAt: updated.UTC(), DisplayAt: updated.UTC(),
		}},
	}
	if status == "monitoring" {
		v.MonitoringAt = &v.UpdatedAt
	}
	return v
}

// spMaintenance renders an observed maintenance window as a v2 scheduled
// maintenance: in_progress while open, completed once closed.
func (m *model) spMaintenance(svc *service, w maintenanceWindow) spIncident {
	status, updated := "in_progress", w.Start
	if w.End != nil {
		status, updated = "completed", *w.End
	}
	body := "aistatus observed " + svc.Name + " under maintenance from " + rfc3339(w.Start)
	if w.End != nil {
		body += " to " + rfc3339(*w.End)
	}
	body += " (the status it published). Announced schedules are not read."
	return spIncident{
		ID: w.ID(), Name: svc.Name + " under maintenance", Status: status, CreatedAt: w.Start, UpdatedAt: updated,
		ResolvedAt: w.End, Impact: "maintenance", Shortlink: m.base + "/services/" + svc.Slug, StartedAt: w.Start,
		PageID: svc.Slug, Components: []spComponent{}, ScheduledFor: &w.Start, ScheduledUntil: w.End,
		IncidentUpdates: []spUpdate{{
			ID: w.ID() + "-latest", Status: status, Body: body, IncidentID: w.ID(),
			CreatedAt: updated, UpdatedAt: updated, DisplayAt: updated,
		}},
	}
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
