package feed

// The code every adapter shares: reading times, and cleaning what a status
// page controls (text, links, ids) before anything of ours stores or
// renders it. A status page is run by its owner, not by us: whatever it
// says must be bounded and inert.

import (
	"fmt"
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// The caps on component text, in characters (incident text: snapshot's).
const (
	maxComponentName = 200
	maxComponentID   = 100
)

// parseTime parses an RFC 3339 time (with or without fractional seconds) and
// returns it in UTC. An empty string is the zero time; ok is false for a
// time that is present but unreadable. A readable time outside the sane
// range is returned as it is: the cleaning door (clean) drops the incident
// that carries it and names it in the log, where an adapter skipping it
// would drop it unseen.
func parseTime(s string) (t time.Time, ok bool) {
	if s == "" {
		return time.Time{}, true
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, false
	}
	return t.UTC(), true
}

// clean bounds everything in a result that came from the page, and drops
// (naming them) the incidents that cannot be published: no usable id, or a
// time outside the sane range.
func clean(svc catalog.Service, res Result, now time.Time) (Result, []string) {
	var dropped []string
	kept := res.Incidents[:0]
	for _, inc := range res.Incidents {
		why := unsafeID(svc, inc)
		if why == "" {
			why = inc.Clean(now, svc.StatusPage)
		}
		if why != "" {
			dropped = append(dropped, why)
			continue
		}
		inc.Service = svc.Slug
		kept = append(kept, inc)
	}
	res.Incidents = kept
	for i, c := range res.Components {
		res.Components[i].ID = api.CleanText(c.ID, maxComponentID)
		res.Components[i].Name = api.CleanText(c.Name, maxComponentName)
		res.Components[i].Group = api.CleanText(c.Group, maxComponentName)
		if !c.Status.Valid() {
			res.Components[i].Status = api.Unknown
		}
	}
	for i, tag := range res.Tags {
		res.Tags[i].Name = api.CleanText(tag.Name, maxComponentName)
	}
	if !res.Status.Valid() {
		res.Status = api.Unknown
	}
	return res, dropped
}

// unsafeID says why an incident's id cannot be published, or "".
func unsafeID(svc catalog.Service, inc api.Incident) string {
	prefix := svc.Slug + "-"
	if !strings.HasPrefix(inc.ID, prefix) || api.OfficialIncidentID(svc.Slug, inc.ID[len(prefix):]) != inc.ID {
		return fmt.Sprintf("incident id %q is not a safe id", api.CleanText(inc.ID, 80))
	}
	return ""
}

// severityOf is an incident's severity from the worst status it gave a
// component, for pages whose incidents carry no impact of their own.
func severityOf(worst api.Status) api.Severity {
	switch worst {
	case api.MajorOutage:
		return api.Critical
	case api.PartialOutage:
		return api.Major
	}
	return api.Minor
}
