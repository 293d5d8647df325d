package feed

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// betterStack reads a Better Stack (Better Uptime) status page's public
// index.json, a JSON:API document: the page's aggregate state in data, and
// its resources, status reports and status updates in included.
type betterStack struct{}

// bsDoc is the part of index.json that is used.
type bsDoc struct {
	Data struct {
		Attributes struct {
			AggregateState string `json:"aggregate_state"`
		} `json:"attributes"`
	} `json:"data"`
	Included []bsItem `json:"included"`
}

// bsItem is one included object. Its attributes are decoded according to
// its type, so an object of a type not used here is never looked into.
type bsItem struct {
	ID         bsID            `json:"id"`
	Type       string          `json:"type"`
	Attributes json.RawMessage `json:"attributes"`
	// Relationships link a real page's report to its updates: the updates
	// themselves carry no status_report_id there.
	Relationships struct {
		StatusUpdates struct {
			Data []struct {
				ID bsID `json:"id"`
			} `json:"data"`
		} `json:"status_updates"`
	} `json:"relationships"`
}

type bsResource struct {
	PublicName string `json:"public_name"`
	Status     string `json:"status"`
}

// bsReport keeps times as strings so that one report with a bad time is
// skipped instead of failing the whole document.
type bsReport struct {
	Title             string `json:"title"`
	ReportType        string `json:"report_type"`
	StartsAt          string `json:"starts_at"`
	EndsAt            string `json:"ends_at"`
	AggregateState    string `json:"aggregate_state"`
	AffectedResources []struct {
		ResourceID bsID `json:"status_page_resource_id"`
	} `json:"affected_resources"`
}

type bsUpdate struct {
	ReportID          bsID   `json:"status_report_id"`
	PublishedAt       string `json:"published_at"`
	AffectedResources []struct {
		Status string `json:"status"`
	} `json:"affected_resources"`
}

// bsID is a JSON:API id. The specification makes ids strings, but Better
// Stack's own API has used numbers in places, so both are read; any other
// JSON value reads as "" (an object without an id), not as an error.
type bsID string

func (id *bsID) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case len(b) > 0 && b[0] == '"':
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*id = bsID(s)
	case len(b) > 0 && (b[0] == '-' || ('0' <= b[0] && b[0] <= '9')):
		*id = bsID(b)
	default:
		*id = ""
	}
	return nil
}

// Read fetches index.json and parses it.
func (betterStack) Read(ctx context.Context, req Request) (Result, error) {
	return readDocument(ctx, req, "application/json", parseBetterStack)
}

// parseBetterStack turns an index.json document into a Result: each
// resource is a component, and the service's status is the rollup of the
// ones in scope; a document without resources proves nothing (an error).
// The page's aggregate state is not used: one model of 28 down flips it,
// and it covers resources outside the scope.
func parseBetterStack(data []byte, req Request) (Result, error) {
	svc := req.Service
	var doc bsDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return Result{}, fmt.Errorf("decoding Better Stack index: %w", err)
	}
	var (
		comps   []api.Component
		refs    []ref
		byID    = map[bsID]ref{}
		reports []bsItem
		decoded []bsReport
		updated = map[bsID]time.Time{} // latest status update per report
		worst   = map[bsID]api.Status{}
		updates = map[bsID]bsUpdate{} // by the update's own id
	)
	for _, it := range doc.Included {
		switch it.Type {
		case "status_page_resource":
			var r bsResource
			if err := bsAttributes(it, &r); err != nil {
				return Result{}, err
			}
			c := ref{ID: string(it.ID), Name: r.PublicName}
			comps = append(comps, api.Component{ID: c.ID, Name: c.Name, Status: bsResourceStatus(r.Status)})
			refs = append(refs, c)
			if it.ID != "" {
				byID[it.ID] = c
			}
		case "status_report":
			reports = append(reports, it)
		case "status_update":
			var u bsUpdate
			if err := bsAttributes(it, &u); err != nil {
				return Result{}, err
			}
			if it.ID != "" {
				updates[it.ID] = u
			}
		}
	}
	// An update refines a report's updatedAt, end and severity; it names its
	// report itself (status_report_id) or the report names it (relationships,
	// as on the real pages). One with an unreadable time is ignored rather
	// than dropping the report.
	note := func(report bsID, u bsUpdate) {
		if t, ok := parseTime(u.PublishedAt); ok && t.After(updated[report]) {
			updated[report] = t
		}
		for _, a := range u.AffectedResources {
			if st := bsResourceStatus(a.Status); st != api.Unknown {
				worst[report] = api.Worse(cmp.Or(worst[report], api.Operational), st)
			}
		}
	}
	for _, u := range updates {
		if u.ReportID != "" {
			note(u.ReportID, u)
		}
	}
	for _, it := range reports {
		for _, rel := range it.Relationships.StatusUpdates.Data {
			if u, ok := updates[rel.ID]; ok && u.ReportID != it.ID {
				note(it.ID, u)
			}
		}
	}
	for _, it := range reports {
		var r bsReport
		if err := bsAttributes(it, &r); err != nil {
			return Result{}, err
		}
		decoded = append(decoded, r)
	}
	s := newScoper(svc.Feed.Scope, refs, true, pageScopes(svc)...)
	status, err := scopeComponents(svc, s, comps, refs)
	if err != nil {
		return Result{}, err
	}
	var out []api.Incident
	for i, it := range reports {
		r := decoded[i]
		affected := make([]ref, 0, len(r.AffectedResources))
		for _, a := range r.AffectedResources {
			affected = append(affected, cmp.Or(byID[a.ResourceID], ref{ID: string(a.ResourceID)}))
		}
		if !s.incident(r.Title, affected) {
			continue
		}
		if inc, ok := bsConvert(svc, it.ID, r, updated[it.ID], worst[it.ID]); ok {
			out = append(out, inc)
		}
	}
	api.SortIncidents(out)
	return Result{Status: status, Components: comps, Incidents: out}, nil
}

// bsAttributes decodes an included object's attributes; absent or null
// attributes leave into empty.
func bsAttributes(it bsItem, into any) error {
	if len(it.Attributes) == 0 {
		return nil
	}
	if err := json.Unmarshal(it.Attributes, into); err != nil {
		return fmt.Errorf("decoding Better Stack %s %q: %w", it.Type, it.ID, err)
	}
	return nil
}

// bsResourceStatus maps a resource's state; not_monitored and anything
// unknown are Unknown, which the rollup leaves out.
func bsResourceStatus(state string) api.Status {
	switch state {
	case "operational":
		return api.Operational
	case "degraded":
		return api.Degraded
	case "downtime":
		return api.MajorOutage
	case "maintenance":
		return api.Maintenance
	}
	return api.Unknown
}

// bsConvert maps one status report. It reports false for a report to leave
// out: a maintenance, or one without an id or with a time that is missing
// (starts_at) or unreadable. A report whose state is "resolved" but that has
// no ends_at (every manual report on Hugging Face's real page) ended at its
// last update: it must not stay open for ever. Its severity is the worst of
// its state and of what its updates said of the resources: a resolved
// report's own state no longer tells that it was downtime.
func bsConvert(svc catalog.Service, id bsID, r bsReport, lastUpdate time.Time, worst api.Status) (api.Incident, bool) {
	official := api.OfficialIncidentID(svc.Slug, string(id))
	if official == "" || r.ReportType == "maintenance" {
		return api.Incident{}, false
	}
	started, ok := parseTime(r.StartsAt)
	if !ok || started.IsZero() {
		return api.Incident{}, false
	}
	ends, ok := parseTime(r.EndsAt)
	if !ok {
		return api.Incident{}, false
	}
	updated := started
	var ended *time.Time
	status := "ongoing"
	if !ends.IsZero() {
		ended, status = &ends, "resolved"
		updated = bsLater(updated, ends)
	}
	updated = bsLater(updated, lastUpdate)
	if ended == nil && r.AggregateState == "resolved" {
		end := updated
		ended, status = &end, "resolved"
	}
	sev := api.Minor
	if r.AggregateState == "downtime" || worst == api.MajorOutage {
		sev = api.Major
	}
	return api.Incident{
		ID:        official,
		Service:   svc.Slug,
		Headline:  r.Title,
		Severity:  sev,
		StartedAt: started,
		EndedAt:   ended,
		Status:    status,
		Source:    api.SourceOfficial,
		URL:       svc.StatusPage,
		UpdatedAt: updated,
	}, true
}

// bsLater returns the later of two times.
func bsLater(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
