package history

import (
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// IncidentIndex finds the incidents of one list (the retained incidents,
// History.Incidents, or a surface's, ServiceHistory.Incidents) by id
// during one cycle, while the rules add to them and change them.
type IncidentIndex struct {
	list  *[]api.Incident
	index map[string]int
}

// IndexIncidents indexes h's retained incidents. Keep one index for a
// cycle and change the incidents only through it (Put, Merge), or Get may
// miss.
func (h *History) IndexIncidents() IncidentIndex { return indexIncidents(&h.Incidents) }

// IndexIncidents indexes a surface's incidents, as History.IndexIncidents
// does the retained ones.
func (sh *ServiceHistory) IndexIncidents() IncidentIndex { return indexIncidents(&sh.Incidents) }

func indexIncidents(list *[]api.Incident) IncidentIndex {
	x := IncidentIndex{list: list, index: make(map[string]int, len(*list))}
	for i, inc := range *list {
		x.index[inc.ID] = i
	}
	return x
}

// Get returns the incident with the given id, or nil.
func (x IncidentIndex) Get(id string) *api.Incident {
	if i, ok := x.index[id]; ok {
		return &(*x.list)[i]
	}
	return nil
}

// Put adds inc, or replaces the incident with the same id.
func (x IncidentIndex) Put(inc api.Incident) {
	if i, ok := x.index[inc.ID]; ok {
		(*x.list)[i] = inc
		return
	}
	x.index[inc.ID] = len(*x.list)
	*x.list = append(*x.list, inc)
}

// MergeOfficial folds the incidents a read page listed for the service
// slug into the retained ones (Merge), where the page speaks for the
// service's official incidents. A page that was not read changes nothing.
func (x IncidentIndex) MergeOfficial(slug string, r Reading, now time.Time) (fresh, added int) {
	if r.Feed.State != api.FeedOK {
		return 0, 0
	}
	return x.Merge(r.Incidents, func(inc api.Incident) bool {
		return inc.Service == slug && inc.Source == api.SourceOfficial
	}, now)
}

// Merge folds the incidents a page listed, read this check, into the list:
// those it lists replace what was kept of them, and an open one it no
// longer lists, of those it speaks for (speaksFor), has ended. At most
// MaxNewIncidentsPerFeed incidents not yet kept are added a check, the
// newest first: a feed that lists thousands of fresh incidents a check
// must not fill the retention caps in a few checks (the pruning is also
// fair between services, so the others' history stays whole either way);
// the rest wait for later checks. It returns how many listed incidents
// were new and how many of them were added, which differ when the cap
// applied.
func (x IncidentIndex) Merge(listed []api.Incident, speaksFor func(api.Incident) bool, now time.Time) (fresh, added int) {
	onPage := make(map[string]bool, len(listed))
	for _, inc := range listed {
		onPage[inc.ID] = true
	}
	kept, fresh, added := x.capNew(listed)
	for _, inc := range kept {
		x.Put(inc)
	}
	for i := range *x.list {
		inc := &(*x.list)[i]
		if inc.Open() && !onPage[inc.ID] && speaksFor(*inc) {
			ended := now
			inc.EndedAt, inc.Status, inc.UpdatedAt = &ended, "resolved", now
		}
	}
	return fresh, added
}

// capNew returns the listed incidents with those not yet kept cut to the
// newest MaxNewIncidentsPerFeed, and how many were new (an id listed twice
// once) and kept.
func (x IncidentIndex) capNew(listed []api.Incident) (kept []api.Incident, fresh, added int) {
	var news []api.Incident
	seen := map[string]bool{}
	for _, inc := range listed {
		if x.Get(inc.ID) == nil && !seen[inc.ID] {
			seen[inc.ID] = true
			news = append(news, inc)
		}
	}
	if len(news) <= MaxNewIncidentsPerFeed {
		return listed, len(news), len(news)
	}
	api.SortIncidents(news)
	taken := make(map[string]bool, MaxNewIncidentsPerFeed)
	for _, inc := range news[:MaxNewIncidentsPerFeed] {
		taken[inc.ID] = true
	}
	kept = make([]api.Incident, 0, len(listed)-len(news)+len(taken))
	for _, inc := range listed {
		if taken[inc.ID] || x.Get(inc.ID) != nil {
			kept = append(kept, inc)
		}
	}
	return kept, len(news), len(taken)
}

// IncidentsByID is incidents by their id: what a list was before a cycle
// changed it, for LogIncidents.
func IncidentsByID(incidents []api.Incident) map[string]api.Incident {
	byID := make(map[string]api.Incident, len(incidents))
	for _, inc := range incidents {
		byID[inc.ID] = inc
	}
	return byID
}

// LogIncidents appends to the change log what a cycle did to incidents
// (newest first, as kept), given what they were before it
// (IncidentsByID): opened (an incident already over when first seen is
// opened and resolved at once), updated (severity, status or headline, or
// reopened upstream) and resolved. Oldest first, so that the log reads in
// the order things began. A surface's incidents name it (surface), as its
// status changes do; the service's have none.
func (h *History) LogIncidents(incidents []api.Incident, before map[string]api.Incident, surface catalog.SurfaceID, now time.Time) {
	for i := len(incidents) - 1; i >= 0; i-- {
		inc := incidents[i]
		old, known := before[inc.ID]
		add := func(t api.ChangeType, changed []string) {
			c := inc
			h.AddChange(api.Change{Type: t, Service: inc.Service, Surface: surface, Time: now, Incident: &c, Changed: changed})
		}
		if !known {
			add(api.ChangeIncidentOpened, nil)
			if !inc.Open() {
				add(api.ChangeIncidentResolved, nil)
			}
			continue
		}
		var changed []string
		if old.Severity != inc.Severity {
			changed = append(changed, "severity")
		}
		if old.Status != inc.Status {
			changed = append(changed, "status")
		}
		if old.Headline != inc.Headline {
			changed = append(changed, "headline")
		}
		switch {
		case old.Open() && !inc.Open():
			add(api.ChangeIncidentResolved, changed)
		case !old.Open() && inc.Open():
			// Reopened upstream: an update that makes it open again.
			add(api.ChangeIncidentUpdated, append(changed, "endedAt"))
		case len(changed) > 0:
			add(api.ChangeIncidentUpdated, changed)
		}
	}
}
