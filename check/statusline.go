package check

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// Statusline is the one-line answer of /statusline, for prompts, terminal
// status bars and agents, from the snapshot alone (no live probe: a status
// bar asks often and must answer at once). Stale data says so first.
//
// Each of names is matched as Check matches q, and printed as Check's
// verdict names its subject, with its status: "🔴 claude.ai major outage ·
// ⚠️ OpenAI API degraded". A surge of the crowd's reports on an API is
// marked after its status, which it leaves as it is ("✅ Groq up (👥 errors
// reported from 12 networks)"). A name that matches nothing tracked is an
// *InputError naming q.
//
// With no names, the line names what is in trouble and counts the rest:
// "✅ all 26 up", or "🔴 Anthropic: claude.ai major outage, Claude Code
// major outage · ❔ 3 unknown" (see troubleLine).
func (e *Engine) Statusline(view View, names []string) (string, error) {
	var parts []string
	age, stale := view.Age(e.now())
	if stale {
		parts = append(parts, "⏳ stale data ("+api.HumanDuration(age)+" old)")
	}
	if len(names) == 0 {
		return strings.Join(append(parts, e.troubleLine(view)...), " · "), nil
	}
	for _, name := range names {
		req := Request{Query: name}
		if _, err := req.validate(); err != nil {
			return "", err
		}
		s, err := e.say(view, req)
		if err != nil {
			return "", err
		}
		if !s.tracked {
			detail := fmt.Sprintf("%q is not a service aistatus tracks", api.Truncate(name, 64))
			if sug := e.matcher.Suggest(name); len(sug) > 0 {
				detail += "; did you mean " + api.JoinList(sug, "or") + "?"
			}
			return "", &InputError{"q", detail}
		}
		item := statuslineItem(s.name, s.status)
		if s.md != nil {
			// A model nobody can call is not up, whatever its providers
			// last said: the same word as /check's verdict.
			if r, ok := retirementAt(view, s.md.ID, e.now()); ok && r.State == api.RetirementRetired {
				parts = append(parts, api.EmojiRetired+" "+s.name+" retired "+r.Date)
				continue
			}
		}
		if s.subj.id == catalog.SurfaceAPI {
			item += surgeMarker(e.crowdSays(s.svc.Slug, Request{}, e.now()))
		}
		parts = append(parts, item)
	}
	return strings.Join(parts, " · "), nil
}

// troubleLine is the statusline of every service: one item per service with
// a subject (its API or a surface) in trouble, worst first, naming those
// subjects ("🔴 Anthropic: claude.ai major outage, Claude Code major
// outage"; the API is "API"); then how many services have a subject of
// unknown status and none in trouble ("❔ 3 unknown"), which are not named
// (a page that could not be read this cycle is not news). With nothing in
// trouble it counts those up: "✅ all 26 up", or "✅ 23 up · ❔ 3 unknown".
//
// A surge of the crowd's reports is news too, but not a status: the items
// above are what they would be without it, and each surge follows them as
// a note of its own, in the catalog's order ("✅ all 26 up · 👥 Groq: errors
// reported from 12 networks"). Callers on ten networks can add a note to
// everyone's line; they cannot name a service in trouble, change an emoji
// or take a service out of the count of those up.
func (e *Engine) troubleLine(view View) []string {
	type trouble struct {
		worst api.Status
		item  string
	}
	var troubles []trouble
	var notes []string
	up, unknown, total := 0, 0, 0
	surges := e.surges(view)
	for _, svc := range e.cat.Services {
		sum, ok := view.Summary(svc.Slug)
		if !ok {
			continue
		}
		total++
		if surge := surges[svc.Slug]; surge != nil {
			notes = append(notes, "👥 "+subject(svc, sum, catalog.SurfaceAPI).name+": "+surge.reported())
		}
		ids := []catalog.SurfaceID{catalog.SurfaceAPI}
		for _, sf := range svc.Surfaces {
			ids = append(ids, sf.ID)
		}
		var worst api.Status
		var said []string
		someUnknown := false
		for _, id := range ids {
			// The same reading of a surface as Check's.
			subj := subject(svc, sum, id)
			switch st := subj.sum.Status; {
			case api.Troubled(st):
				name := subj.name
				if id == catalog.SurfaceAPI {
					name = "API"
				}
				said = append(said, name+" "+st.Word())
				worst = api.Worse(worst, st)
			case st != api.Operational:
				someUnknown = true
			}
		}
		switch {
		case len(said) > 0:
			troubles = append(troubles, trouble{worst, worst.Emoji() + " " + svc.Name + ": " + strings.Join(said, ", ")})
		case someUnknown:
			unknown++
		default:
			up++
		}
	}
	// Worst first; the catalog's order among equals.
	slices.SortStableFunc(troubles, func(a, b trouble) int {
		switch {
		case a.worst == b.worst:
			return 0
		case api.Worse(a.worst, b.worst) == a.worst:
			return -1
		}
		return 1
	})
	var parts []string
	for _, t := range troubles {
		parts = append(parts, t.item)
	}
	switch {
	case len(troubles) == 0 && unknown == 0:
		parts = append(parts, api.Operational.Emoji()+" all "+strconv.Itoa(total)+" "+api.Operational.Word())
	case len(troubles) == 0:
		parts = append(parts, api.Operational.Emoji()+" "+strconv.Itoa(up)+" "+api.Operational.Word())
	}
	if unknown > 0 {
		parts = append(parts, api.Unknown.Emoji()+" "+strconv.Itoa(unknown)+" "+api.Unknown.Word())
	}
	return append(parts, notes...)
}

// surges are the crowd's surges among the services of view, by slug, read
// in one go (CountAll: one round trip to Redis, not one a service); none
// without a crowd.
func (e *Engine) surges(view View) map[string]*ReportCount {
	out := map[string]*ReportCount{}
	if e.crowd == nil {
		return out
	}
	var slugs []string
	for _, svc := range e.cat.Services {
		if _, ok := view.Summary(svc.Slug); ok {
			slugs = append(slugs, svc.Slug)
		}
	}
	for slug, rc := range e.crowd.CountAll(slugs, e.now()) {
		if rc.State() == ReportsSurge {
			out[slug] = &rc
		}
	}
	return out
}

// surgeMarker is a surge of the crowd's reports as the statusline marks it
// after the status it leaves as it is: " (⚠️ 40 callers report errors)";
// "" for none.
func surgeMarker(surge *ReportCount) string {
	if surge == nil {
		return ""
	}
	return " (" + surge.Marker() + ")"
}

// statuslineItem is one subject in a statusline: its status's emoji,
// the verdict's name for it and its status's word (api.StatusTable), as
// the verdict says them.
func statuslineItem(name string, s api.Status) string {
	return s.Emoji() + " " + name + " " + s.Word()
}
