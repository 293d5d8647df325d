package feed

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/aistatus/aistatus/snapshot"
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
	ReportID    bsID   `json:"status_report_id"`
	PublishedAt string `json:"published_at"`
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
func (betterStack) Read(ctx context.Context, client *http.Client, svc snapshot.Service) (Result, error) {
	return readDocument(ctx, client, svc, "application/json", parseBetterStack)
}

// parseBetterStack turns an index.json document into a Result.
func parseBetterStack(data []byte, svc snapshot.Service) (Result, error) {
	var doc bsDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return Result{}, fmt.Errorf("decoding Better Stack index: %w", err)
	}
	filter := svc.Feed.Filter
	var (
		resources = map[bsID]bool{} // ids of the resources kept
		states    []string          // their statuses
		reports   []bsItem
		updated   = map[bsID]time.Time{} // latest status update per report
	)
	for _, it := range doc.Included {
		switch it.Type {
		case "status_page_resource":
			var r bsResource
			if err := bsAttributes(it, &r); err != nil {
				return Result{}, err
			}
			if len(filter) > 0 && !matches(r.PublicName, filter) {
				continue
			}
			if it.ID != "" {
				resources[it.ID] = true
			}
			states = append(states, r.Status)
		case "status_report":
			reports = append(reports, it)
		case "status_update":
			var u bsUpdate
			if err := bsAttributes(it, &u); err != nil {
				return Result{}, err
			}
			// An update only refines a report's updatedAt, so one with an
			// unreadable time is ignored rather than dropping the report.
			if t, ok := parseTime(u.PublishedAt); ok && u.ReportID != "" && t.After(updated[u.ReportID]) {
				updated[u.ReportID] = t
			}
		}
	}
	aggregate := doc.Data.Attributes.AggregateState
	if len(filter) > 0 {
		// The page aggregate also describes products outside the filter.
		aggregate = ""
	}
	var out []snapshot.Incident
	for _, it := range reports {
		var r bsReport
		if err := bsAttributes(it, &r); err != nil {
			return Result{}, err
		}
		if inc, ok := bsConvert(svc, it.ID, r, resources, updated[it.ID]); ok {
			out = append(out, inc)
		}
	}
	snapshot.SortIncidents(out)
	return Result{Status: bsStatus(aggregate, states), Incidents: out}, nil
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

// bsUpStates are the Better Stack states that map to one status; downtime
// depends on how many resources share it (see bsStatus).
var bsUpStates = map[string]snapshot.Status{
	"operational": snapshot.Operational,
	"degraded":    snapshot.Degraded,
	"maintenance": snapshot.Maintenance,
}

// bsStatus is the worse of the page aggregate (empty when filtered out) and
// the resource statuses. Downtime is a major outage when every monitored
// resource is down (or the page says downtime and lists none), and a partial
// outage when only some are. not_monitored and unknown states are ignored.
func bsStatus(aggregate string, states []string) snapshot.Status {
	st := snapshot.Unknown
	monitored, down := 0, 0
	for _, s := range states {
		switch known, ok := bsUpStates[s]; {
		case ok:
			st = snapshot.Worse(st, known)
		case s == "downtime":
			down++
		default:
			continue
		}
		monitored++
	}
	switch {
	case down > 0 && down == monitored:
		st = snapshot.Worse(st, snapshot.MajorOutage)
	case down > 0:
		st = snapshot.Worse(st, snapshot.PartialOutage)
	}
	switch known, ok := bsUpStates[aggregate]; {
	case ok:
		st = snapshot.Worse(st, known)
	case aggregate == "downtime":
		if monitored == 0 {
			st = snapshot.Worse(st, snapshot.MajorOutage)
		} else {
			// Resources are listed and not all of them are down (else st
			// already is a major outage): the page lags or overstates.
			st = snapshot.Worse(st, snapshot.PartialOutage)
		}
	}
	return st
}

// bsConvert maps one status report. It reports false for a report to leave
// out: a maintenance, one outside the filter, or one without an id or with
// a time that is missing (starts_at) or unreadable.
func bsConvert(svc snapshot.Service, id bsID, r bsReport, kept map[bsID]bool, lastUpdate time.Time) (snapshot.Incident, bool) {
	if id == "" || r.ReportType == "maintenance" {
		return snapshot.Incident{}, false
	}
	if f := svc.Feed.Filter; len(f) > 0 && !bsReportMatches(r, f, kept) {
		return snapshot.Incident{}, false
	}
	started, ok := parseTime(r.StartsAt)
	if !ok || started.IsZero() {
		return snapshot.Incident{}, false
	}
	ends, ok := parseTime(r.EndsAt)
	if !ok {
		return snapshot.Incident{}, false
	}
	updated := started
	var ended *time.Time
	status := "ongoing"
	if !ends.IsZero() {
		ended, status = &ends, "resolved"
		updated = bsLater(updated, ends)
	}
	updated = bsLater(updated, lastUpdate)
	sev := snapshot.Minor
	if r.AggregateState == "downtime" {
		sev = snapshot.Major
	}
	return snapshot.Incident{
		ID:        svc.Slug + "-" + string(id),
		Service:   svc.Slug,
		Headline:  r.Title,
		Severity:  sev,
		StartedAt: started,
		EndedAt:   ended,
		Status:    status,
		Source:    snapshot.SourceOfficial,
		URL:       svc.StatusPage,
		UpdatedAt: updated,
	}, true
}

// bsReportMatches reports whether a status report concerns the filtered
// resources: by an affected resource that was kept, or by its title.
func bsReportMatches(r bsReport, filter []string, kept map[bsID]bool) bool {
	for _, a := range r.AffectedResources {
		if kept[a.ResourceID] {
			return true
		}
	}
	return matches(r.Title, filter)
}

// bsLater returns the later of two times.
func bsLater(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
