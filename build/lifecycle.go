package build

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
)

// The lifecycle of watched models (docs/api.md, "Models"). A model goes on
// the retirement calendar when a gateway's list announces an expiration
// date for it (announced until the date comes, then retired), or when a
// pinned or previously watched model is no longer in the list (retired,
// dated the day it was noticed). Only a good list counts: while none was
// ever read, nothing is retired. A model that comes back to the list
// leaves the calendar. Each step enters the change log: model.added for a
// model found in the list once a list was already in force, model.retiring
// for an announcement, model.retired for a retirement.
const (
	// KeepRetirements is how long a retirement stays on the calendar
	// after its date.
	KeepRetirements = 365 * 24 * time.Hour
	// MaxRetirements bounds the calendar: the dates nearest to today
	// are kept (capRetirements).
	MaxRetirements = 500
)

// assembleLifecycle updates the retirement calendar and logs the cycle's
// lifecycle changes. prev are the models watched last cycle, watched those
// watched now.
func assembleLifecycle(h *history.History, cat catalog.Catalog, lists map[string]*history.ModelList, prev []api.ModelDoc,
	watched []catalog.Model, retirements []api.ModelRetirement, now time.Time) []api.ModelRetirement {
	today := now.UTC().Format(time.DateOnly)
	byID := map[string]api.ModelRetirement{}
	for _, r := range retirements {
		byID[r.ID] = r
	}
	next := map[string]api.ModelRetirement{}
	for id, r := range byID {
		next[id] = r
	}
	pinnedOrMapped := func(id string) bool {
		author, _, _ := strings.Cut(id, "/")
		_, pinned := cat.Models.Lookup(id)
		return pinned || (catalog.ValidModelID(id) && cat.Models.Makers[author] != "")
	}
	for _, g := range cat.Models.Gateways {
		l := lists[g.ID]
		if !g.Enabled || l == nil || l.ReadAt.IsZero() || len(l.Models) == 0 {
			continue
		}
		source := g.ID + "-models"
		listed := map[string]bool{}
		for _, m := range l.Models {
			listed[m.ID] = true
			if !pinnedOrMapped(m.ID) {
				continue
			}
			r, had := next[m.ID]
			switch {
			case m.Expires != "":
				r = lifecycleEntry(cat, m.ID, listedName(m), source)
				r.Date, r.State = m.Expires, api.RetirementAnnounced
				r.Reason = g.Name + "'s model list announces that it may remove the model after this date"
				if m.Expires <= today {
					r.State = api.RetirementRetired
				}
				next[m.ID] = r
			case had && r.Source == source:
				// Back in the list, with no date announced: not retired.
				delete(next, m.ID)
			}
		}
		gone := map[string]string{} // id → name
		for _, md := range cat.Models.Pinned {
			gone[md.ID] = md.Name
		}
		for _, d := range prev {
			gone[d.ID] = d.Name
		}
		for id, name := range gone {
			if listed[id] {
				continue
			}
			r, had := next[id]
			if had && r.State == api.RetirementRetired {
				continue
			}
			r = lifecycleEntry(cat, id, name, source)
			r.Date, r.State = today, api.RetirementRetired
			r.Reason = g.Name + "'s model list no longer carries the model (noticed on this date)"
			next[id] = r
		}
	}
	// The calendar is capped before anything is logged, so that what the
	// cap leaves out is never announced (and announced again at each read
	// that brings it back).
	out := capRetirements(next, now)
	// The changes, in id order so that the log is the same for the same
	// cycle; each fact (type, model, date) once, however often a list
	// comes and goes.
	logged := loggedLifecycle(h.Changes)
	for _, r := range out {
		old := byID[r.ID]
		var typ api.ChangeType
		switch {
		case r.State == old.State && r.Date == old.Date:
			continue
		case r.State == api.RetirementAnnounced:
			typ = api.ChangeModelRetiring
		case old.State != api.RetirementRetired:
			typ = api.ChangeModelRetired
		default:
			continue
		}
		if fact := lifecycleFact(typ, r.ID, r.Date); !logged[fact] {
			logged[fact] = true
			logLifecycle(h, typ, r.Service, r.ID, r.Name, r.Date, now)
		}
	}
	// model.added: only once a list was in force (a model of the list was
	// watched last cycle), so that the first list read does not announce
	// every model it brings as new.
	listInForce := slices.ContainsFunc(prev, func(d api.ModelDoc) bool { _, pinned := cat.Models.Lookup(d.ID); return !pinned })
	seen := map[string]bool{}
	for _, d := range prev {
		seen[d.ID] = true
	}
	for _, md := range watched {
		if _, pinned := cat.Models.Lookup(md.ID); listInForce && !pinned && !seen[md.ID] {
			logLifecycle(h, api.ChangeModelAdded, md.Service, md.ID, md.Name, "", now)
		}
	}
	slices.SortFunc(out, func(a, b api.ModelRetirement) int {
		return cmp.Or(strings.Compare(a.Date, b.Date), strings.Compare(a.ID, b.ID))
	})
	return out
}

// capRetirements is the calendar as kept: the entries dated within
// KeepRetirements before now, and of those at most MaxRetirements, the
// nearest to today first (in id order), so that a flood of far dates,
// past or to come, cannot push out the retirements that matter now. In id
// order.
func capRetirements(next map[string]api.ModelRetirement, now time.Time) []api.ModelRetirement {
	today := now.UTC().Truncate(24 * time.Hour)
	oldest := now.Add(-KeepRetirements).UTC().Format(time.DateOnly)
	type entry struct {
		r    api.ModelRetirement
		away time.Duration
	}
	var kept []entry
	for _, r := range next {
		at, err := time.Parse(time.DateOnly, r.Date)
		if err != nil || r.Date < oldest || !api.SaneTime(at) {
			continue
		}
		kept = append(kept, entry{r, at.Sub(today).Abs()})
	}
	slices.SortFunc(kept, func(a, b entry) int { return cmp.Or(cmp.Compare(a.away, b.away), strings.Compare(a.r.ID, b.r.ID)) })
	out := make([]api.ModelRetirement, 0, min(len(kept), MaxRetirements))
	for _, e := range kept[:min(len(kept), MaxRetirements)] {
		out = append(out, e.r)
	}
	slices.SortFunc(out, func(a, b api.ModelRetirement) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// lifecycleFact names a lifecycle change by what it says.
func lifecycleFact(typ api.ChangeType, id, date string) string {
	return string(typ) + " " + id + " " + date
}

// loggedLifecycle are the lifecycle facts the change log holds already.
func loggedLifecycle(log []api.Change) map[string]bool {
	out := map[string]bool{}
	for _, c := range log {
		if c.Model != nil && (c.Type == api.ChangeModelRetiring || c.Type == api.ChangeModelRetired) {
			out[lifecycleFact(c.Type, c.Model.ID, c.Model.Date)] = true
		}
	}
	return out
}

// lifecycleEntry is a calendar entry of the model, with its name and its
// maker's service: the pinned model's, or by the catalog's makers.
func lifecycleEntry(cat catalog.Catalog, id, name, source string) api.ModelRetirement {
	author, _, _ := strings.Cut(id, "/")
	r := api.ModelRetirement{ID: id, Name: name, Service: cat.Models.Makers[author], Source: source}
	if md, ok := cat.Models.Lookup(id); ok {
		r.Name, r.Service = md.Name, modelHomeSlug(md)
	}
	return r
}

// modelHomeSlug is the service a model is checked at when named alone:
// its maker's, or the first whose page has a component for it.
func modelHomeSlug(md catalog.Model) string {
	if md.Service == "" && len(md.Components) > 0 {
		return md.Components[0].Service
	}
	return md.Service
}

// logLifecycle enters a model's lifecycle change in the change log, under
// its service: a model of no tracked service has no place in a log of
// services' changes, and is on the calendar only.
func logLifecycle(h *history.History, typ api.ChangeType, service, id, name, date string, now time.Time) {
	if service == "" {
		return
	}
	h.AddChange(api.Change{Type: typ, Service: service, Time: now, Model: &api.ChangeModel{ID: id, Name: name, Date: date}})
}

// retirementsDoc is the retirement calendar as published.
func retirementsDoc(h *history.History, now time.Time) api.RetirementsDoc {
	doc := api.RetirementsDoc{Retirements: []api.ModelRetirement{}, Timestamp: now, License: api.License}
	if h.Models != nil {
		doc.Retirements = append(doc.Retirements, h.Models.Retirements...)
	}
	return doc
}
