package history

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// The lifecycle of watched models (docs/api.md, "The lifecycle"). A model
// goes on the retirement calendar when a source gives it a date:
//
//   - a gateway's list announces an expiration date for it (announced
//     until the date comes, then retired), or no longer carries a pinned
//     or previously watched model that no other gateway's list carries
//     either (retired, dated the day it was noticed); only a good list
//     counts: while none was ever read,
//     nothing is retired, and a model back in the list without a date
//     loses the list's word;
//   - its maker's own deprecation page names it with the day it is shut
//     down: only for a model aistatus knows (pinned, watched, in a
//     gateway's list, or on the calendar already), matched by the maker's
//     id (feed.Deprecation) to the gateways' spelling (makerKey).
//
// Each entry carries every source's word (Sources). When they give
// different days, the maker's page is taken, being the maker's word on
// its own model, and the entry says so (Disagreement). A model no source
// dates any more leaves the calendar. Each step enters the change log:
// model.added for a model found in the list once a list was already in
// force, model.retiring for an announcement, model.retired for a
// retirement.
const (
	// KeepRetirements is how long a retirement stays on the calendar
	// after its date.
	KeepRetirements = 365 * 24 * time.Hour
	// MaxRetirements bounds the calendar: the dates nearest to today
	// are kept (capRetirements).
	MaxRetirements = 500
)

// AssembleLifecycle updates the retirement calendar and logs the cycle's
// lifecycle changes. prev are the models watched last cycle, watched those
// watched now; lists and pages the last good reads of the gateways' lists
// and of the makers' pages.
func AssembleLifecycle(h *History, cat catalog.Catalog, lists map[string]*ModelList, pages map[string]*MakerPage,
	prev []api.ModelDoc, watched []catalog.Model, retirements []api.ModelRetirement, now time.Time) []api.ModelRetirement {
	today := now.UTC().Format(time.DateOnly)
	byID := map[string]api.ModelRetirement{}
	for _, r := range retirements {
		byID[r.ID] = r
	}
	next := map[string]api.ModelRetirement{}
	for id, r := range byID {
		r.Sources = slices.Clone(r.Sources)
		if len(r.Sources) == 0 && r.Source != "" {
			// Written before entries carried their sources: the one
			// source it names.
			r.Sources = []api.RetirementSource{{Source: r.Source, Name: r.Source, Kind: api.ModelSourceList, Date: r.Date, State: r.State, Reason: r.Reason}}
		}
		next[id] = r
	}
	pinnedOrMapped := func(id string) bool {
		author, _, _ := strings.Cut(id, "/")
		_, pinned := cat.Models.Lookup(id)
		return pinned || (catalog.ValidModelID(id) && cat.Models.Makers[author] != "")
	}
	// A model one gateway's list lacks may be another's: only a model no
	// good list carries is gone (each gateway lists what it serves, and
	// Vercel's list was never OpenRouter's).
	listedSomewhere := map[string]bool{}
	for _, g := range cat.Models.Gateways {
		if l := lists[g.ID]; g.Enabled && l != nil && !l.ReadAt.IsZero() {
			for _, m := range l.Models {
				listedSomewhere[m.ID] = true
			}
		}
	}
	for _, g := range cat.Models.Gateways {
		l := lists[g.ID]
		if !g.Enabled || l == nil || l.ReadAt.IsZero() || len(l.Models) == 0 {
			continue
		}
		said := func(id, date, state, reason string) api.RetirementSource {
			src := api.RetirementSource{Source: g.ID + "-models", Name: g.Name + "'s model list", Kind: api.ModelSourceList,
				Date: date, State: state, Reason: reason, URL: g.ListURL}
			if g.ModelPage != "" {
				src.URL = strings.ReplaceAll(g.ModelPage, catalog.ModelParam, g.GatewayID(id))
			}
			return src
		}
		source := g.ID + "-models"
		for _, m := range l.Models {
			if !pinnedOrMapped(m.ID) {
				continue
			}
			r, had := next[m.ID]
			switch {
			case m.Expires != "":
				if !had {
					r = lifecycleEntry(cat, m.ID, m.DisplayName())
				}
				r.Sources = withSource(r.Sources, said(m.ID, m.Expires, api.RetirementAnnounced,
					g.Name+"'s model list announces that it may remove the model after this date"))
				next[m.ID] = r
			case had:
				// Back in the list, with no date announced: the list no
				// longer retires it.
				r.Sources = withoutSource(r.Sources, source)
				next[m.ID] = r
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
			if listedSomewhere[id] {
				continue
			}
			r, had := next[id]
			if i := slices.IndexFunc(r.Sources, func(s api.RetirementSource) bool { return s.Source == source }); i >= 0 &&
				(r.Sources[i].State == api.RetirementRetired || r.Sources[i].Date <= today) {
				continue // retired by the list already: its day stands
			}
			if !had {
				r = lifecycleEntry(cat, id, name)
			}
			r.Sources = withSource(r.Sources, said(id, today, api.RetirementRetired,
				g.Name+"'s model list no longer carries the model (noticed on this date)"))
			next[id] = r
		}
	}
	makerPagesSay(cat, lists, pages, prev, next)
	resolveRetirements(next, today)
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

// makerPagesSay puts each maker's page's word into next: for every model
// aistatus knows that the page's last good read names, the page's day;
// the page's word is withdrawn from a model it no longer names, and from
// every model when the page is switched off. A page never read well says
// nothing, and takes nothing back.
func makerPagesSay(cat catalog.Catalog, lists map[string]*ModelList, pages map[string]*MakerPage,
	prev []api.ModelDoc, next map[string]api.ModelRetirement) {
	// The models aistatus knows, by the key a maker's id is matched on,
	// with a name for each.
	known := map[string][]string{}
	names := map[string]string{}
	know := func(id, name string) {
		if _, ok := names[id]; ok || !catalog.ValidModelID(id) {
			return
		}
		names[id] = name
		known[makerKey(id)] = append(known[makerKey(id)], id)
	}
	for _, md := range cat.Models.Pinned {
		know(md.ID, md.Name)
	}
	for _, d := range prev {
		know(d.ID, d.Name)
	}
	for _, g := range cat.Models.Gateways {
		if l := lists[g.ID]; g.Enabled && l != nil {
			for _, m := range l.Models {
				know(m.ID, m.DisplayName())
			}
		}
	}
	for _, id := range slices.Sorted(maps.Keys(next)) {
		know(id, next[id].Name)
	}
	for _, p := range cat.Models.Lifecycle {
		page := pages[p.ID]
		good := p.Enabled && page != nil && !page.ReadAt.IsZero() && len(page.Deprecations) > 0
		if p.Enabled && !good {
			continue
		}
		said := map[string]PageDeprecation{}
		if good {
			for _, d := range page.Deprecations {
				for _, id := range known[makerKey(p.Maker+"/"+d.Model)] {
					if was, ok := said[id]; ok && (d.Alias || !was.Alias) {
						continue // the page's first written word on the model stands
					}
					said[id] = d
				}
			}
		}
		for id, r := range next {
			if _, ok := said[id]; !ok && slices.ContainsFunc(r.Sources, func(s api.RetirementSource) bool { return s.Source == p.ID }) {
				r.Sources = withoutSource(r.Sources, p.ID)
				next[id] = r
			}
		}
		for id, d := range said {
			r, had := next[id]
			if !had {
				r = lifecycleEntry(cat, id, names[id])
			}
			reason := fmt.Sprintf("%s announces that %s is retired on this date", p.Name, d.Model)
			if d.Alias && d.Of != "" {
				reason = fmt.Sprintf("%s announces that %s (%s) is retired on this date", p.Name, d.Of, d.Model)
			}
			r.Sources = withSource(r.Sources, api.RetirementSource{Source: p.ID, Name: p.Name, Kind: api.ModelSourceLifecycle,
				Date: d.Date, State: api.RetirementAnnounced, Reason: reason, URL: p.Page})
			next[id] = r
		}
	}
}

// makerKey is what a model's id is matched on between a maker's page and
// the gateways: lower case, dots as hyphens, so that OpenRouter's
// "anthropic/claude-opus-4.1" and Anthropic's "claude-opus-4-1" (the
// alias of "claude-opus-4-1-20250805") are one model, as
// "openai/gpt-4.1-nano" and OpenAI's "gpt-4.1-nano" are. Nothing else is
// guessed: a dated snapshot is not its undated alias unless the page's
// reader says so (feed.Deprecation.Alias).
func makerKey(id string) string {
	return strings.ReplaceAll(strings.ToLower(id), ".", "-")
}

// withSource is sources with src in place of what its source said before.
func withSource(sources []api.RetirementSource, src api.RetirementSource) []api.RetirementSource {
	out := withoutSource(sources, src.Source)
	return append(out, src)
}

// withoutSource is sources without what source said.
func withoutSource(sources []api.RetirementSource, source string) []api.RetirementSource {
	return slices.DeleteFunc(slices.Clone(sources), func(s api.RetirementSource) bool { return s.Source == source })
}

// resolveRetirements settles each entry from its sources: an entry no
// source dates any more leaves the calendar; the others take their date,
// state, source and reason from the first source, a maker's page before a
// gateway's list (then by id), each source's state moving to retired once
// its day has come; Disagreement says when the sources give different
// days.
func resolveRetirements(next map[string]api.ModelRetirement, today string) {
	for id, r := range next {
		if len(r.Sources) == 0 {
			delete(next, id)
			continue
		}
		for i, s := range r.Sources {
			if s.Date <= today {
				r.Sources[i].State = api.RetirementRetired
			}
		}
		slices.SortFunc(r.Sources, func(a, b api.RetirementSource) int {
			return cmp.Or(cmp.Compare(sourceRank(a.Kind), sourceRank(b.Kind)), strings.Compare(a.Source, b.Source))
		})
		chosen := r.Sources[0]
		r.Date, r.State, r.Source, r.Reason = chosen.Date, chosen.State, chosen.Source, chosen.Reason
		r.Disagreement = ""
		if slices.ContainsFunc(r.Sources, func(s api.RetirementSource) bool { return s.Date != chosen.Date }) {
			said := make([]string, 0, len(r.Sources))
			for _, s := range r.Sources {
				said = append(said, fmt.Sprintf("%s gives %s (%s)", s.Name, s.Date, s.State))
			}
			r.Disagreement = "The sources disagree: " + strings.Join(said, ", ") + ". The date of " + chosen.Name + " is taken"
			if chosen.Kind == api.ModelSourceLifecycle {
				r.Disagreement += ", the maker's own word on its model."
			} else {
				r.Disagreement += "."
			}
		}
		next[id] = r
	}
}

// sourceRank orders the kinds of source of a retirement: the maker's own
// page first.
func sourceRank(kind string) int {
	if kind == api.ModelSourceLifecycle {
		return 0
	}
	return 1
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
func lifecycleEntry(cat catalog.Catalog, id, name string) api.ModelRetirement {
	author, _, _ := strings.Cut(id, "/")
	if strings.TrimSpace(name) == "" {
		name = id
	}
	r := api.ModelRetirement{ID: id, Name: name, Service: cat.Models.Makers[author]}
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
func logLifecycle(h *History, typ api.ChangeType, service, id, name, date string, now time.Time) {
	if service == "" {
		return
	}
	h.AddChange(api.Change{Type: typ, Service: service, Time: now, Model: &api.ChangeModel{ID: id, Name: name, Date: date}})
}
