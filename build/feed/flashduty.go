package feed

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// flashduty reads a Flashduty status page (DeepSeek's, status.deepseek.com).
// Flashduty documents no public feed, and what the page serves to machines
// is unreliable: it often refuses non-browser clients with 403/429/503, a
// JavaScript challenge page, or a redirect to one. The adapter asks
// svc.Feed.URL for JSON: the page's own summary
// (/api/status-page/<page id>/summary/active, read by fdPageResult), or a
// Flashduty-like document of another shape, read defensively (see
// parseFlashduty).
//
// Fallback: an HTML body, a refusing status, or JSON with none of the known
// fields is an error saying "feed refused non-browser client" or
// "unrecognised document". Like any feed error, it makes the generator treat
// the service as probe-only for that cycle: the probe decides the status,
// the feed's source state reads "error", and the official incidents already
// recorded are left as they were, neither refreshed nor closed.
type flashduty struct{}

// fdDoc is the part of a Flashduty-like document that is used, maybe
// wrapped as {"data": {...}}. Keys match case-insensitively.
type fdDoc struct {
	OverallStatus   string                          `json:"overall_status"`
	Status          string                          `json:"status"`
	Components      []struct{ Name, Status string } `json:"components"`
	Services        []struct{ Name, Status string } `json:"services"`
	Incidents       []fdIncident                    `json:"incidents"`
	ActiveIncidents []fdIncident                    `json:"active_incidents"`
	// Page and ActiveChanges are the real status page's summary
	// (/summary/active, inside {"request_id": …, "data": {…}}): the page's
	// components carry no status of their own; a component is operational
	// unless an open change (incident or maintenance) affects it.
	Page          *fdPage    `json:"page"`
	ActiveChanges []fdChange `json:"active_changes"`
}

// fdPage is the page of the real summary: its components, some in sections.
type fdPage struct {
	Components *[]struct {
		ID        string `json:"component_id"`
		SectionID string `json:"section_id"`
		Name      string `json:"name"`
		Status    string `json:"status"`
	} `json:"components"`
	Sections []struct {
		ID   string `json:"section_id"`
		Name string `json:"name"`
	} `json:"sections"`
}

// fdChange is one change (incident or maintenance) of the real page: the
// components it affects with their status now, and its updates, whose
// component changes may name components retired from the page since.
type fdChange struct {
	ID                 json.RawMessage `json:"change_id"`
	Type               string          `json:"type"`
	Title              string          `json:"title"`
	Status             string          `json:"status"`
	Start              json.RawMessage `json:"start_at_seconds"`
	Close              json.RawMessage `json:"close_at_seconds"`
	AffectedComponents []struct {
		ID     string `json:"component_id"`
		Name   string `json:"name"`
		Status string `json:"status"`
	} `json:"affected_components"`
	Updates []struct {
		At               json.RawMessage `json:"at_seconds"`
		Status           string          `json:"status"`
		ComponentChanges []struct {
			ID     string `json:"component_id"`
			Name   string `json:"component_name"`
			Status string `json:"status"`
		} `json:"component_changes"`
	} `json:"updates"`
}

// fdIncident keeps the id and times raw: each may be a string or a number.
type fdIncident struct {
	ID                                    json.RawMessage
	Title, Name, Status, Impact, Severity string
	StartTime                             json.RawMessage `json:"start_time"`
	CreatedAt                             json.RawMessage `json:"created_at"`
	EndTime                               json.RawMessage `json:"end_time"`
	UpdatedAt                             json.RawMessage `json:"updated_at"`
}

// Read fetches and parses the page's JSON.
func (flashduty) Read(ctx context.Context, req Request) (Result, error) {
	res, err := readDocument(ctx, req, "application/json", parseFlashduty)
	var he *httpError
	if errors.As(err, &he) && (he.Code == 403 || he.Code == 429 || he.Code == 503) {
		return Result{}, &Error{Kind: api.FailureHTTP, Err: fmt.Errorf("feed refused non-browser client: %w", err)}
	}
	return res, err
}

// parseFlashduty reads the status as the rollup of the components in scope,
// or, for a document without components, the overall status. An unreadable
// overall status, or none at all, is an error: better probe-only than a
// guess.
func parseFlashduty(data []byte, req Request) (Result, error) {
	svc := req.Service
	data = bytes.TrimPrefix(bytes.TrimSpace(data), []byte("\xef\xbb\xbf"))
	if len(data) > 0 && data[0] == '<' {
		return Result{}, failure(api.FailureChallenge, "feed refused non-browser client: got an HTML page (a browser challenge?) instead of JSON")
	}
	var env struct{ Data json.RawMessage }
	if err := json.Unmarshal(data, &env); err != nil {
		return Result{}, fmt.Errorf("unrecognised document: %w", err)
	}
	if inner := bytes.TrimSpace(env.Data); len(inner) > 0 && inner[0] == '{' {
		data = inner
	}
	var doc fdDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return Result{}, fmt.Errorf("unrecognised document: %w", err)
	}
	if doc.Page != nil {
		return fdPageResult(svc, doc)
	}
	if doc.OverallStatus == "" && doc.Status == "" && doc.Components == nil && doc.Services == nil &&
		doc.Incidents == nil && doc.ActiveIncidents == nil {
		return Result{}, errors.New("unrecognised document: none of the known Flashduty fields")
	}
	overall := cmp.Or(doc.OverallStatus, doc.Status)
	st := fdStatus(overall)
	if overall != "" && st == api.Unknown {
		return Result{}, fmt.Errorf("unrecognised document: unknown status %q", overall)
	}
	var comps []api.Component
	var refs []ref
	for _, c := range append(doc.Components, doc.Services...) {
		comps = append(comps, api.Component{ID: c.Name, Name: c.Name, Status: fdStatus(c.Status)})
		refs = append(refs, ref{ID: c.Name, Name: c.Name})
	}
	if len(comps) > 0 {
		var err error
		if st, err = scopeComponents(svc, newScoper(svc.Feed.Scope, refs, false, pageScopes(svc)...), comps, refs); err != nil {
			return Result{}, err
		}
	}
	if st == api.Unknown {
		return Result{}, errors.New("unrecognised document: no known status")
	}
	res := Result{Status: st, Components: comps}
	seen := map[string]bool{}
	for _, in := range append(doc.Incidents, doc.ActiveIncidents...) {
		if inc, ok := fdConvert(svc, in); ok && !seen[inc.ID] {
			seen[inc.ID] = true
			res.Incidents = append(res.Incidents, inc)
		}
	}
	api.SortIncidents(res.Incidents)
	return res, nil
}

// fdStatuses maps status words, lower-cased, with "_" for spaces and "-".
var fdStatuses = map[string]api.Status{
	"operational": api.Operational, "normal": api.Operational, "all_systems_operational": api.Operational,
	"degraded": api.Degraded, "degraded_performance": api.Degraded, "abnormal": api.Degraded,
	"partial_outage": api.PartialOutage, "partial": api.PartialOutage,
	"major_outage": api.MajorOutage, "full_outage": api.MajorOutage, "outage": api.MajorOutage,
	"maintenance": api.Maintenance, "under_maintenance": api.Maintenance,
}

func fdStatus(s string) api.Status {
	return cmp.Or(fdStatuses[strings.NewReplacer(" ", "_", "-", "_").Replace(strings.ToLower(strings.TrimSpace(s)))], api.Unknown)
}

// fdSeverities maps impacts; any other one is minor.
var fdSeverities = map[string]api.Severity{"critical": api.Critical, "major_outage": api.Critical,
	"major": api.Major, "partial_outage": api.Major, "warning": api.Major}

// fdConvert maps one incident. Like convert, it leaves out maintenance, an
// incident without an id or with an unreadable time, and a resolved one that
// says neither when it ended nor when it was last updated.
func fdConvert(svc catalog.Service, in fdIncident) (api.Incident, bool) {
	started, ok1 := fdTime(in.StartTime)
	if started.IsZero() && ok1 {
		started, ok1 = fdTime(in.CreatedAt)
	}
	ended, ok2 := fdTime(in.EndTime)
	updated, ok3 := fdTime(in.UpdatedAt)
	impact, status := strings.ToLower(cmp.Or(in.Impact, in.Severity)), strings.ToLower(in.Status)
	official := fdID(svc.Slug, in.ID)
	if official == "" || impact == "maintenance" || !ok1 || !ok2 || !ok3 || started.IsZero() {
		return api.Incident{}, false
	}
	if ended.IsZero() && slices.Contains([]string{"resolved", "closed", "recovered", "completed", "postmortem"}, status) {
		if ended = updated; ended.IsZero() {
			return api.Incident{}, false
		}
	}
	inc := api.Incident{
		ID: official, Service: svc.Slug, Headline: cmp.Or(in.Title, in.Name),
		Severity: cmp.Or(fdSeverities[impact], api.Minor), StartedAt: started, Status: status, Source: api.SourceOfficial,
		URL: svc.StatusPage, UpdatedAt: cmp.Or(updated, ended, started),
	}
	if !ended.IsZero() {
		inc.EndedAt = &ended
	}
	return inc, true
}

// fdID is the official id of an incident or change whose upstream id is a
// JSON number or any string; "" when it is neither, or sanitises to nothing.
func fdID(slug string, raw json.RawMessage) string {
	var id json.Number
	if json.Unmarshal(raw, &id) != nil && json.Unmarshal(raw, (*string)(&id)) != nil {
		return ""
	}
	return api.OfficialIncidentID(slug, id.String())
}

// fdTime reads an RFC 3339 string or a Unix time in seconds or, from 1e11 up
// (year 5138 in seconds), milliseconds. Absent, null, "" and 0 are the zero
// time; ok is false for a time that is present but unreadable.
func fdTime(raw json.RawMessage) (time.Time, bool) {
	var s string
	var n float64
	switch {
	case len(raw) == 0:
		return time.Time{}, true
	case json.Unmarshal(raw, &s) == nil:
		return parseTime(s)
	case json.Unmarshal(raw, &n) != nil || n < 0 || n >= 1e14:
		return time.Time{}, false
	case n == 0:
		return time.Time{}, true
	case n >= 1e11:
		n /= 1000
	}
	return time.UnixMicro(int64(n * 1e6)).UTC(), true
}

// fdPageResult reads the real summary: each page component (its section's
// name as its group) with the worst status an open change gives it, the
// rollup of those in scope, and the open changes in scope as incidents.
// Maintenance puts its components under maintenance but is no incident.
func fdPageResult(svc catalog.Service, doc fdDoc) (Result, error) {
	if doc.Page.Components == nil {
		return Result{}, errors.New("unrecognised document: a page without components")
	}
	sections := map[string]string{}
	for _, sec := range doc.Page.Sections {
		sections[sec.ID] = sec.Name
	}
	open := map[string]api.Status{} // component id → worst status an open change gives it
	for _, ch := range doc.ActiveChanges {
		if fdClosed(ch) {
			continue
		}
		for _, c := range ch.AffectedComponents {
			st := fdStatus(c.Status)
			if strings.EqualFold(ch.Type, "maintenance") && st == api.Operational {
				st = api.Maintenance
			}
			if st != api.Unknown {
				open[c.ID] = api.Worse(cmp.Or(open[c.ID], api.Operational), st)
			}
		}
	}
	var comps []api.Component
	var refs []ref
	for _, c := range *doc.Page.Components {
		st := cmp.Or(open[c.ID], api.Operational)
		if c.Status != "" { // a page that does give statuses is believed
			st = fdStatus(c.Status)
		}
		group := sections[c.SectionID]
		comps = append(comps, api.Component{ID: c.ID, Name: c.Name, Group: group, Status: st})
		refs = append(refs, ref{ID: c.ID, Name: c.Name, GroupID: c.SectionID, Group: group})
	}
	s := newScoper(svc.Feed.Scope, refs, true, pageScopes(svc)...)
	st, err := scopeComponents(svc, s, comps, refs)
	if err != nil {
		return Result{}, err
	}
	res := Result{Status: st, Components: comps}
	byID := map[string]ref{}
	for _, r := range refs {
		byID[r.ID] = r
	}
	for _, ch := range doc.ActiveChanges {
		if inc, ok := fdChangeConvert(svc, s, ch, byID); ok {
			res.Incidents = append(res.Incidents, inc)
		}
	}
	api.SortIncidents(res.Incidents)
	return res, nil
}

// fdClosed reports whether a change is over: closed at a time, or resolved.
func fdClosed(ch fdChange) bool {
	closed, ok := fdTime(ch.Close)
	return (ok && !closed.IsZero()) || slices.Contains([]string{"resolved", "closed", "completed"}, strings.ToLower(ch.Status))
}

// fdChangeConvert maps one change of the real page. It leaves out
// maintenance, a change outside the scope (by its title and the components
// it and its updates name), and one without an id or a readable start. The
// severity is the worst status the change gave a component: the affected
// components' status is the current one, operational once it is over.
func fdChangeConvert(svc catalog.Service, s scoper, ch fdChange, byID map[string]ref) (api.Incident, bool) {
	started, ok1 := fdTime(ch.Start)
	ended, ok2 := fdTime(ch.Close)
	official := fdID(svc.Slug, ch.ID)
	if official == "" || strings.EqualFold(ch.Type, "maintenance") || !ok1 || !ok2 || started.IsZero() {
		return api.Incident{}, false
	}
	var listed []ref
	worst := api.Operational
	note := func(cid, name, status string) {
		listed = append(listed, cmp.Or(byID[cid], ref{ID: cid, Name: name}))
		if st := fdStatus(status); st != api.Unknown {
			worst = api.Worse(worst, st)
		}
	}
	updated := started
	for _, c := range ch.AffectedComponents {
		note(c.ID, c.Name, c.Status)
	}
	for _, u := range ch.Updates {
		if at, ok := fdTime(u.At); ok && at.After(updated) {
			updated = at
		}
		for _, c := range u.ComponentChanges {
			note(c.ID, c.Name, c.Status)
		}
	}
	if !s.incident(ch.Title, listed) {
		return api.Incident{}, false
	}
	inc := api.Incident{
		ID: official, Service: svc.Slug, Headline: ch.Title,
		Severity: severityOf(worst), StartedAt: started, Status: strings.ToLower(ch.Status), Source: api.SourceOfficial,
		URL: svc.StatusPage, UpdatedAt: updated,
	}
	if !ended.IsZero() {
		inc.EndedAt = &ended
		if ended.After(inc.UpdatedAt) {
			inc.UpdatedAt = ended
		}
	}
	return inc, true
}
