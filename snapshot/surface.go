package snapshot

import (
	"fmt"
	"iter"
	"strings"
	"time"
)

// SurfaceID names a surface of a service: the part of it people use in one
// way. The API is every service's first surface; the others exist only
// where the service's status page lists them.
type SurfaceID string

// The surfaces.
const (
	// SurfaceAPI is the developer API: the service's feed scope
	// (Feed.Scope) and its top-level status.
	SurfaceAPI SurfaceID = "api"
	// SurfaceApp is the consumer product: claude.ai, ChatGPT, Perplexity's app.
	SurfaceApp SurfaceID = "app"
	// SurfaceAgent is a coding agent or IDE product: Claude Code, Codex.
	SurfaceAgent SurfaceID = "agent"
	// SurfaceConsole is the developer console, playground or billing.
	SurfaceConsole SurfaceID = "console"
)

// SurfaceIDs lists every surface, in the order a service lists them.
var SurfaceIDs = []SurfaceID{SurfaceAPI, SurfaceApp, SurfaceAgent, SurfaceConsole}

// Surface is a part of a service other than its API that its status page
// lists on its own (the API's scope is Feed.Scope). Its status, components
// and incidents are read from the same page as the API's, through its own
// scope, by the same rules.
type Surface struct {
	// ID is one of app, agent or console.
	ID SurfaceID `json:"id"`
	// Name is the surface as people call it: "claude.ai", "Claude Code".
	Name string `json:"name"`
	// Aliases are names that mean this surface rather than the service's
	// API ("claude code", "codex"); /check answers for the surface.
	Aliases []string `json:"aliases,omitempty"`
	// Domains are hosts of this surface (claude.ai, chatgpt.com); /check
	// also matches their subdomains.
	Domains []string `json:"domains,omitempty"`
	// Scope is the part of the page that is this surface, in the terms of
	// the feed's scope. It must name something: a surface is never the
	// whole page.
	Scope Scope `json:"scope"`
}

// APISurfaceName is the name of a service's API surface: its name, with
// "API" added unless the name already says it ("Google Gemini API").
func (s Service) APISurfaceName() string {
	for _, w := range strings.Fields(s.Name) {
		if w == "API" {
			return s.Name
		}
	}
	return s.Name + " API"
}

// SurfaceName is the name of the service's surface id; "" when the service
// has no such surface.
func (s Service) SurfaceName(id SurfaceID) string {
	if id == SurfaceAPI {
		return s.APISurfaceName()
	}
	for _, sf := range s.Surfaces {
		if sf.ID == id {
			return sf.Name
		}
	}
	return ""
}

// surfaceProblems lists what is wrong with a service's surfaces.
func (s Service) surfaceProblems() []string {
	var out []string
	seen := map[SurfaceID]bool{}
	for i, sf := range s.Surfaces {
		where := fmt.Sprintf("surfaces[%d] (%q)", i, sf.ID)
		switch {
		case sf.ID == SurfaceAPI:
			out = append(out, where+": the api surface is the feed's scope, not listed here")
		case !contains(SurfaceIDs, sf.ID):
			out = append(out, fmt.Sprintf("%s: unknown id (want app, agent or console)", where))
		case seen[sf.ID]:
			out = append(out, where+": listed twice")
		}
		seen[sf.ID] = true
		if strings.TrimSpace(sf.Name) == "" {
			out = append(out, where+": name is empty")
		}
		if s.Feed.Format == FormatNone {
			out = append(out, where+": a service with no feed has no page to read a surface from")
		}
		if !sf.Scope.SelectsComponents() && len(sf.Scope.IncidentKeywords) == 0 {
			// A surface scope with neither would be the whole page, which
			// is not a surface of it.
			out = append(out, where+": scope must name components or incident keywords")
		}
		for _, e := range sf.Scope.problems() {
			out = append(out, where+": scope: "+e)
		}
		for _, d := range sf.Domains {
			if d == "" || strings.ContainsAny(d, "/: *") || d != strings.ToLower(d) {
				out = append(out, fmt.Sprintf("%s: domains: %q must be a lower-case host name", where, d))
			}
		}
		for _, a := range sf.Aliases {
			if strings.TrimSpace(a) == "" {
				out = append(out, where+": an alias is empty")
			}
		}
	}
	return out
}

// surfaceNameClashes lists the surfaces' names, aliases and domains that
// another entry of the catalog already has (a service's slug, name, alias
// or domain, or another surface's): /check would send that query to
// whichever comes first, so a surface's name must be its own. Names are
// compared lower-cased, domains as written.
func (c Catalog) surfaceNameClashes() []error {
	owner := map[string]string{} // lower-cased name or domain → who has it
	claim := func(key, who string) string {
		if prev, taken := owner[key]; taken && prev != who {
			return prev
		}
		owner[key] = who
		return ""
	}
	for _, s := range c.Services {
		for _, n := range append([]string{s.Slug, s.Name, s.Domain}, append(s.Aliases, s.Domains...)...) {
			claim(strings.ToLower(n), s.Slug)
		}
	}
	var errs []error
	for i, s := range c.Services {
		for _, sf := range s.Surfaces {
			who := s.Slug + "/" + string(sf.ID)
			for _, n := range append(append([]string{sf.Name}, sf.Aliases...), sf.Domains...) {
				if prev := claim(strings.ToLower(n), who); prev != "" {
					errs = append(errs, fmt.Errorf("catalog: services[%d] (%q): surface %s: %q already names %s", i, s.Slug, sf.ID, n, prev))
				}
			}
		}
	}
	return errs
}

// SurfaceSummary is one surface of a service in status.json: enough for
// /check to answer for it and to name the others in trouble.
type SurfaceSummary struct {
	ID     SurfaceID `json:"id"`
	Name   string    `json:"name"`
	Status Status    `json:"status"`
	// Basis is what Status rests on: for the API surface, the service's;
	// for the others, the official page (official) or nothing (none): our
	// probe tests the API host only.
	Basis Basis `json:"basis"`
	// OpenIncidents are the surface's open official incidents, newest
	// first (for the API, every open incident of the service).
	OpenIncidents []Incident `json:"openIncidents"`
}

// SurfaceDoc is one surface of a service in its detail document.
type SurfaceDoc struct {
	ID     SurfaceID `json:"id"`
	Name   string    `json:"name"`
	Status Status    `json:"status"`
	Basis  Basis     `json:"basis"`
	// Source says where Status comes from, in words, with its window.
	Source string `json:"source"`
	// Components are the page's components that make up the surface, as
	// last read; empty for a page without components.
	Components []SurfaceComponent `json:"components"`
	// Incidents are the surface's retained incidents, newest first: for
	// the API, the service's; for the others, their own (History keeps
	// them in ServiceHistory.Surfaces).
	Incidents []Incident `json:"incidents"`
	// Uptime is the surface's uptime over 24 hours, 7 and 30 days, by the
	// service's rules (for the API, the service's own), from this
	// surface's status each cycle since DataSince; UptimeCoverage says how
	// much of each window has data.
	Uptime         Uptime   `json:"uptime"`
	UptimeCoverage Coverage `json:"uptimeCoverage"`
	// DataSince is when the surface's retained status data begins; nil
	// with none yet.
	DataSince *time.Time `json:"dataSince"`
	// CheckedAt is when the page was last read for this surface; nil when
	// it could not be.
	CheckedAt *time.Time `json:"checkedAt"`
}

// SurfaceComponent is a component of a surface.
type SurfaceComponent struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Group  string `json:"group,omitempty"`
	Status Status `json:"status"`
}

// CheckSurface is the surface of the service a check's verdict covers.
type CheckSurface struct {
	ID   SurfaceID `json:"id"`
	Name string    `json:"name"`
}

// CheckOtherSurface is another surface of the checked service, named by a
// check because it is in trouble.
type CheckOtherSurface struct {
	ID     SurfaceID `json:"id"`
	Name   string    `json:"name"`
	Status Status    `json:"status"`
	Basis  Basis     `json:"basis"`
}

// Troubled reports whether a surface's status is trouble worth naming:
// degraded, an outage or maintenance (unknown is no news).
func Troubled(s Status) bool {
	return s == Degraded || s == PartialOutage || s == MajorOutage || s == Maintenance
}

// Surface returns the history of the service's surface id for recording,
// creating it when absent.
func (sh *ServiceHistory) Surface(id SurfaceID) *ServiceHistory {
	if sh.Surfaces == nil {
		sh.Surfaces = map[SurfaceID]*ServiceHistory{}
	}
	sf := sh.Surfaces[id]
	if sf == nil {
		sf = &ServiceHistory{}
		sh.Surfaces[id] = sf
	}
	return sf
}

// LookupSurface returns the history of the service's surface id, empty
// when there is none (Surface creates it).
func (sh *ServiceHistory) LookupSurface(id SurfaceID) *ServiceHistory {
	if sf := sh.Surfaces[id]; sf != nil {
		return sf
	}
	return &ServiceHistory{}
}

// histories are every history h keeps, each service's ("anthropic") then
// its surfaces' ("anthropic/app"): what is pruned and checked for a
// service is pruned and checked for its surfaces too. Nil entries are
// skipped.
func (h *History) histories() iter.Seq2[string, *ServiceHistory] {
	return func(yield func(string, *ServiceHistory) bool) {
		for slug, sh := range h.Services {
			if sh == nil {
				continue
			}
			if !yield(slug, sh) {
				return
			}
			for id, sf := range sh.Surfaces {
				if sf != nil && !yield(slug+"/"+string(id), sf) {
					return
				}
			}
		}
	}
}
