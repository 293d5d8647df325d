package check

import (
	"fmt"
	"strings"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// Surfaces: a query names a service and one of its surfaces (claude.ai is
// Anthropic's app, "claude code" its agent, a bare name or the API host its
// api). The verdict covers that surface, and names the service's other
// surfaces in trouble, so that "is Claude up?" is not answered "yes" while
// claude.ai is down, nor "claude.ai" answered with the API's status.

// surfaceSubject is the surface a verdict covers, as the snapshot has it.
type surfaceSubject struct {
	id   catalog.SurfaceID
	name string
	// sum is what the verdict reads: the service's summary for the API;
	// for another surface, the summary with the surface's status and basis
	// and without what belongs to the API alone (our probes' disagreement).
	sum api.ServiceSummary
	// open are the surface's open incidents (for the API, nil: the view's
	// are read, as before surfaces).
	open []*api.Incident
	// missing: the snapshot has no word on this surface (written before
	// surfaces, or the catalog changed since).
	missing bool
	// probeURL is the surface's own host, which /check probes (the
	// catalog's probeUrl of the surface); "" for the API, whose probe is
	// the service's, and for a surface with no host of its own.
	probeURL string
	// components are the page's components of a surface other than the
	// API, as the snapshot has them; none for the API.
	components []api.SurfaceComponent
	// component is the component the query names exactly (named), whose
	// status sum then carries; surfaceStatus is the surface's own. ""
	// when the query names the surface.
	component     string
	surfaceStatus api.Status
}

// subject finds the surface id of svc in its summary.
func subject(svc catalog.Service, sum api.ServiceSummary, id catalog.SurfaceID) surfaceSubject {
	s := surfaceSubject{id: id, name: svc.SurfaceName(id), sum: sum}
	if id == catalog.SurfaceAPI {
		if len(svc.Surfaces) == 0 {
			s.name = svc.Name // the API is all the service has: its name says it
		}
		return s
	}
	s.sum.Disagreement = nil
	s.sum.LatencyMs = nil
	for _, sf := range svc.Surfaces {
		if sf.ID == id {
			s.probeURL = sf.ProbeURL
		}
	}
	for _, sf := range sum.Surfaces {
		if sf.ID != id {
			continue
		}
		s.sum.Status, s.sum.Basis, s.components = sf.Status, sf.Basis, sf.Components
		for i := range sf.OpenIncidents {
			s.open = append(s.open, &sf.OpenIncidents[i])
		}
		return s
	}
	s.sum.Status, s.sum.Basis, s.missing = api.Unknown, api.BasisNone, true
	return s
}

// named narrows s to the component of its surface that q names exactly,
// when the surface holds several: by the component's name as the
// official page writes it, compared as every name is (case, spaces and
// punctuation aside: "claude.ai", "Claude Cowork"), or by a URL on a
// host that is the component's name (https://claude.ai/new). The verdict
// is then that component's status, as the vendor states it: claude.ai
// down is not the claude.ai surface partly down because Claude Cowork,
// which the surface also holds, is up. A query that names the surface by
// another of its names or domains ("claude app", "cowork") keeps the
// surface's status, as does a component whose status is unknown.
func (s surfaceSubject) named(q string) surfaceSubject {
	if len(s.components) < 2 {
		return s // the surface is its one component, or has none we know
	}
	key, host := nameKey(q), hostOf(q)
	for _, c := range s.components {
		if c.Status == api.Unknown || !c.Status.Valid() {
			continue
		}
		if key == nameKey(c.Name) || (host != "" && strings.EqualFold(host, c.Name)) {
			s.component, s.surfaceStatus, s.name = c.Name, s.sum.Status, c.Name
			s.sum.Status = c.Status
			return s
		}
	}
	return s
}

// componentSentence says that the verdict is one component's word, and
// what the rest of its surface says: "The verdict is the official page's
// component "claude.ai", which the query names; the claude.ai surface,
// which also holds Claude Cowork, is partly down (partial outage)."
func (s surfaceSubject) componentSentence(surface string) string {
	var others []string
	for _, c := range s.components {
		if c.Name != s.component {
			others = append(others, c.Name)
		}
	}
	return fmt.Sprintf("The verdict is the official page's component %q, which the query names; the %s surface, which also holds %s, is %s.",
		s.component, surface, api.JoinList(others, " and "), phrase(s.surfaceStatus))
}

// otherSurfaces are the surfaces of sum other than id that are in trouble.
func otherSurfaces(sum api.ServiceSummary, id catalog.SurfaceID) []api.CheckOtherSurface {
	out := []api.CheckOtherSurface{}
	for _, sf := range sum.Surfaces {
		if sf.ID != id && api.Troubled(sf.Status) {
			out = append(out, api.CheckOtherSurface{ID: sf.ID, Name: sf.Name, Status: sf.Status, Basis: sf.Basis})
		}
	}
	return out
}

// othersSentence names the other surfaces in trouble, for the verdict's
// detail: "Also: claude.ai is down (major outage) per the official status
// page." "" when none is.
func othersSentence(others []api.CheckOtherSurface) string {
	if len(others) == 0 {
		return ""
	}
	parts := make([]string, len(others))
	for i, o := range others {
		parts[i] = o.Name + " is " + phrase(o.Status)
		switch o.Basis {
		case api.BasisOfficial:
			parts[i] += " per the official status page"
		case api.BasisProbe:
			parts[i] += " per our probes"
		}
	}
	return "Also: " + api.JoinList(parts, "; and ") + "."
}

// detail says where the verdict's status came from when that matters:
// for the API, verdictDetail's word on the page and our probes; for
// another surface, that the page gave no word on it (the API's page
// being read or not says nothing of a surface whose own read succeeded).
func (s surfaceSubject) detail(service, surface string) string {
	switch {
	case s.id == catalog.SurfaceAPI:
		return verdictDetail(service, s.sum)
	case s.component != "":
		return s.componentSentence(surface)
	case s.missing:
		return fmt.Sprintf("This snapshot has no status for %s: it was written before surfaces, or the catalog changed since.", s.name)
	case s.sum.Basis == api.BasisNone && s.probeURL != "":
		return fmt.Sprintf("The official status page gave no word on %s in the latest check; our probe of its host shows only whether it answers, which cannot show that it works.", s.name)
	case s.sum.Basis == api.BasisNone:
		return fmt.Sprintf("The official status page gave no word on %s in the latest check; our probe tests the API host only, which says nothing of it.", s.name)
	}
	return ""
}

// joinSentences joins non-empty sentences with a space.
func joinSentences(parts ...string) string {
	var kept []string
	for _, p := range parts {
		if p != "" {
			kept = append(kept, p)
		}
	}
	return strings.Join(kept, " ")
}
