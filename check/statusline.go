package check

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aistatus/aistatus/api"
)

// Statusline is the one-line answer of /statusline, for prompts, terminal
// status bars and agents: the named services (all of them when names is
// empty) with an icon and a word each, from the snapshot alone (no live
// probe: a status bar asks often and must answer at once). With every
// service it names only those not up. Stale data says so first. A name that
// matches no tracked service is an *InputError naming q.
func (e *Engine) Statusline(view View, names []string) (string, error) {
	var parts []string
	age, stale := view.Age(e.now())
	if stale {
		parts = append(parts, "⏳ stale data ("+api.HumanDuration(age)+" old)")
	}
	if len(names) == 0 {
		up, total := 0, 0
		var trouble []string
		for _, svc := range e.cat.Services {
			sum, ok := view.Summary(svc.Slug)
			if !ok {
				continue
			}
			total++
			if sum.Status == api.Operational {
				up++
				continue
			}
			trouble = append(trouble, statuslineItem(svc.Name, sum.Status))
		}
		parts = append(parts, "AI services: "+strconv.Itoa(up)+"/"+strconv.Itoa(total)+" up")
		parts = append(parts, trouble...)
		return strings.Join(parts, " · "), nil
	}
	for _, name := range names {
		if len(name) > MaxQuery {
			return "", &InputError{"q", fmt.Sprintf("a service name in q is longer than %d bytes", MaxQuery)}
		}
		svc, ok := e.matcher.Match(name)
		sum, inSnapshot := view.Summary(svc.Slug)
		if !ok || !inSnapshot {
			detail := fmt.Sprintf("%q is not a service aistatus tracks", api.Truncate(name, 64))
			if s := e.matcher.Suggest(name); len(s) > 0 {
				detail += "; did you mean " + api.JoinList(s, "or") + "?"
			}
			return "", &InputError{"q", detail}
		}
		parts = append(parts, statuslineItem(svc.Name, sum.Status))
	}
	return strings.Join(parts, " · "), nil
}

// statuslineItem is one service in a statusline: its icon (the verdict's),
// name and status in a word or two.
func statuslineItem(name string, s api.Status) string {
	word := map[api.Status]string{
		api.Operational: "up", api.Degraded: "degraded", api.PartialOutage: "partial outage",
		api.MajorOutage: "major outage", api.Maintenance: "maintenance",
	}[s]
	if word == "" {
		word = "unknown"
	}
	return verdict(name, s, false, 0).Emoji + " " + name + " " + word
}
