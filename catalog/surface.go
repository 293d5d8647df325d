package catalog

import (
	"fmt"
	"strings"
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
	// ProbeURL is what /check's live probe of the surface requests: the
	// page people open on its own host, its first domain (https://claude.ai/).
	// Empty for a surface with no host of its own (a coding agent): /check
	// then has no latency for it. As for the API's probeUrl, an answer (a
	// bot challenge's 403 included) shows that the host answers, never
	// that the surface works.
	ProbeURL string `json:"probeUrl,omitempty"`
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
		if sf.ProbeURL != "" {
			if err := checkAbsoluteURL(sf.ProbeURL); err != nil {
				out = append(out, fmt.Sprintf("%s: probeUrl: %v", where, err))
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

// otherComponentProblems lists what is wrong with a service's
// otherComponents: an entry without a name or a reason, or one listed twice.
func (s Service) otherComponentProblems() []string {
	var out []string
	seen := map[string]bool{}
	for i, o := range s.OtherComponents {
		where := fmt.Sprintf("otherComponents[%d] (%q)", i, o.Name)
		key := "name:" + strings.ToLower(o.Name)
		if o.ID != "" {
			key = "id:" + o.ID
		}
		switch {
		case strings.TrimSpace(o.Name) == "" || strings.TrimSpace(o.Name) != o.Name || strings.TrimSpace(o.ID) != o.ID:
			out = append(out, where+": name is empty, or the name or id has surrounding spaces")
		case seen[key]:
			out = append(out, where+": listed twice")
		}
		seen[key] = true
		if strings.TrimSpace(o.Why) == "" {
			out = append(out, where+": why is empty: say why the component is in no surface")
		}
		if s.Feed.Format == FormatNone {
			out = append(out, where+": a service with no feed has no page to list components")
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
