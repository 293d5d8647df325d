package site

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/snapshot"
)

// The Statuspage v2 façade: for every service, the documents of Atlassian
// Statuspage's public API v2 (summary.json, status.json, …) under
// p/{slug}/api/v2/, so that the menubar apps, bots and exporters that parse
// that shape read every service we track, including those whose own page is
// no Statuspage. Field names and enums are v2's; the values are ours (the
// same as services/{slug}.json), with a top-level "aistatus" object saying
// where they come from.
//
// Each surface of the service (its API, and the app, agent or console its
// page lists) is a component group with the page's components in its
// scope, and the page's indicator is the worst of those groups: a client
// that reads the façade instead of status.claude.com must see a claude.ai
// outage while the API is up, not "All Systems Operational". A surface
// other than the API whose status is unknown (the page has no component of
// it on this read) is left out of the components and of the indicator,
// and named in the "aistatus" object: v2 would show it degraded, and a
// client would tell its users that a service we know to be up is not.

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
// v2 has no "unknown": an unknown status of the API (a surface's is not
// shown) is "minor", the mildest indicator that is not "none", because
// "none" would say "all systems operational" when we could not tell, and
// anything stronger would claim an outage nobody saw. The description says
// it is unknown, and the "aistatus" object carries the status itself.
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

// spWorst is the worse of a and b as the façade shows them, for its
// indicator: the order of trouble as it stands (api.MoreTrouble), without
// Worse's rule that unknown loses to any known status. Unknown is shown as
// degraded_performance, so it ranks above operational (a page that shows
// a component not operational must not say "All Systems Operational") and
// below every status that is known to be trouble.
func spWorst(a, b api.Status) api.Status { return api.MoreTrouble(a, b) }

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
	// Components are a group's members, by id, as v2 lists them.
	Components []string `json:"components,omitempty"`
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
	// API is the subject id of the service's API (its slug), which is also
	// the id of its component group; Status and Basis are the API's, as in
	// services/{slug}.json.
	API    string     `json:"api"`
	Status api.Status `json:"status"`
	Basis  api.Basis  `json:"basis"`
	// Surfaces are the service's other surfaces by subject id
	// ("anthropic/app"), the id of each one's component group; empty for a
	// service whose page lists only its API.
	Surfaces map[string]spSurface `json:"surfaces"`
	// UnknownSurfaces are the subject ids of the surfaces left out of the
	// components and the indicator because their status is unknown; empty
	// when every surface is shown.
	UnknownSurfaces []string `json:"unknownSurfaces"`
	// Document is the aistatus document the façade is rendered from.
	Document string `json:"document"`
	Note     string `json:"note"`
	License  string `json:"license"`
}

// spSurface is a surface other than the API in the aistatus object.
type spSurface struct {
	Status api.Status `json:"status"`
	Basis  api.Basis  `json:"basis"`
}

// statuspageNote is the aistatus object's note, the mapping in one sentence.
const statuspageNote = "A Statuspage v2 rendering of aistatus's status, not the service's own page. " +
	"Each surface (the API, and the app, agent or console where the page lists them) is a component, a group of the page's components in its scope; the indicator is the worst of them. " +
	"v2 has no unknown: an unknown status of the API is indicator minor and component degraded_performance, never operational; " +
	"a surface other than the API whose status is unknown is left out of the components and the indicator, and listed in unknownSurfaces. " +
	"Scheduled maintenances are the maintenance windows aistatus observed; announced schedules are not read, so upcoming is empty."

// statuspage renders a service's façade: path → content.
func (m *model) statuspage(svc *service, windows []maintenanceWindow) (map[string][]byte, error) {
	page := spPage{ID: svc.Slug, Name: svc.Name, URL: m.base + "/services/" + svc.Slug, TimeZone: "Etc/UTC", UpdatedAt: m.now}
	subjects := svc.subjects()
	worst := api.Operational
	// The statuses and the indicator are the situation's (subjects).
	source := spSource{API: svc.Slug, Status: svc.State.Key, Basis: svc.said.basis(svc.Slug), Surfaces: map[string]spSurface{},
		UnknownSurfaces: []string{},
		Document:        m.base + strings.ReplaceAll(snapshot.PathService, snapshot.SlugParam, svc.Slug),
		Note:            statuspageNote, License: api.License}
	var shown []api.SurfaceDoc
	for _, sf := range subjects {
		if sf.ID != catalog.SurfaceAPI {
			source.Surfaces[api.SubjectID(svc.Slug, sf.ID)] = spSurface{Status: sf.Status, Basis: sf.Basis}
			if sf.Status == api.Unknown {
				source.UnknownSurfaces = append(source.UnknownSurfaces, api.SubjectID(svc.Slug, sf.ID))
				continue
			}
		}
		shown = append(shown, sf)
		worst = spWorst(worst, sf.Status)
	}
	indicator, description := spIndicator(worst)
	status := spStatus{Indicator: indicator, Description: description}
	components, groups := m.spComponents(svc, shown)

	var all, unresolved []spIncident
	incidents, on := spIncidents(subjects)
	for _, inc := range incidents {
		v := m.spIncident(svc, inc)
		for _, id := range on[inc.ID] {
			if g, ok := groups[id]; ok { // not a surface left out
				v.Components = append(v.Components, g)
			}
		}
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

// spIncidents are the incidents the façade lists, newest first: the
// newest statuspageIncidentsMax of every surface's together, and every
// open one, each once; on are the surfaces each belongs to.
func spIncidents(subjects []api.SurfaceDoc) (list []api.Incident, on map[string][]catalog.SurfaceID) {
	on = map[string][]catalog.SurfaceID{}
	for _, sf := range subjects {
		for i, inc := range sf.Incidents {
			// A service keeps up to thousands: only the newest and the
			// open ones can be listed, the rest are not looked at.
			if i >= statuspageIncidentsMax && !inc.Open() {
				continue
			}
			if len(on[inc.ID]) == 0 {
				list = append(list, inc)
			}
			on[inc.ID] = append(on[inc.ID], sf.ID)
		}
	}
	api.SortIncidents(list)
	return list, on
}

// spComponents are the façade's components: for each surface, the API
// first, a group with the status aistatus decided for it (for the API, the
// official page and our probe together), followed by its members, the
// page's components in the surface's scope as last read. A surface the
// page has no component for is a single component rather than an empty
// group. A page component already listed under an earlier surface is not
// listed again: v2 gives a component one group. groups are the surfaces'
// own components, by surface, for the incidents that name them.
func (m *model) spComponents(svc *service, subjects []api.SurfaceDoc) (list []spComponent, groups map[catalog.SurfaceID]spComponent) {
	created := m.now
	if svc.DataSince != nil {
		created = svc.DataSince.UTC()
	}
	updated := m.now
	if svc.LastChecked != nil {
		updated = svc.LastChecked.UTC()
	}
	groups = map[catalog.SurfaceID]spComponent{}
	listed := map[string]bool{}
	for _, sf := range subjects {
		listed[api.SubjectID(svc.Slug, sf.ID)] = true
	}
	for _, sf := range subjects {
		id := api.SubjectID(svc.Slug, sf.ID)
		description := "aistatus's status of " + sf.Name + " (" + string(sf.Status) + "): "
		switch {
		case sf.ID == catalog.SurfaceAPI:
			description = "aistatus's status of the " + sf.Name + " (" + string(sf.Status) +
				"): the official status page's word for the API, checked by aistatus's own probe."
		case sf.Basis == api.BasisOfficial:
			description += "the official status page's word alone (aistatus's probe tests the API host only)."
		default:
			description += "the official status page gave no word on it this cycle."
		}
		group := spComponent{
			ID: id, Name: sf.Name, Status: spComponentStatus(sf.Status), CreatedAt: created, UpdatedAt: updated,
			Position: len(list) + 1, Description: description, Showcase: true, PageID: svc.Slug,
		}
		var members []spComponent
		for _, c := range sf.Components {
			if listed[c.ID] {
				continue
			}
			listed[c.ID] = true
			members = append(members, spComponent{
				ID: c.ID, Name: c.Name, Status: spComponentStatus(c.Status),
				CreatedAt: created, UpdatedAt: updated, Position: len(list) + len(members) + 2,
				Description: "As read from the official status page (" + svc.StatusPage + ") by aistatus.",
				Showcase:    true, GroupID: &group.ID, PageID: svc.Slug,
			})
			group.Components = append(group.Components, c.ID)
		}
		group.Group = len(members) > 0
		groups[sf.ID] = group
		list = append(append(list, group), members...)
	}
	return list, groups
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
