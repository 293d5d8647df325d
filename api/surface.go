package api

import (
	"time"

	"github.com/aistatus/aistatus/catalog"
)

// SurfaceSummary is one surface of a service in status.json: enough for
// /check to answer for it and to name the others in trouble.
type SurfaceSummary struct {
	ID     catalog.SurfaceID `json:"id"`
	Name   string            `json:"name"`
	Status Status            `json:"status"`
	// Basis is what Status rests on: for the API surface, the service's;
	// for the others, the official page (official) or nothing (none): our
	// probe tests the API host only.
	Basis Basis `json:"basis"`
	// OpenIncidents are the surface's open official incidents, newest
	// first (for the API, every open incident of the service).
	OpenIncidents []Incident `json:"openIncidents"`
	// Components are the page's components that make up a surface other
	// than the API, as last read, each with its own status: /check answers
	// a query naming one of them with that component's word, not the
	// surface's. Absent for the API (its components are in the service's
	// document) and for a surface the page gave none.
	Components []SurfaceComponent `json:"components,omitempty"`
}

// SurfaceDoc is one surface of a service in its detail document.
type SurfaceDoc struct {
	ID     catalog.SurfaceID `json:"id"`
	Name   string            `json:"name"`
	Status Status            `json:"status"`
	Basis  Basis             `json:"basis"`
	// Source says where Status comes from, in words, with its window.
	Source string `json:"source"`
	// Components are the page's components that make up the surface, as
	// last read; empty for a page without components.
	Components []SurfaceComponent `json:"components"`
	// Incidents are the surface's retained incidents, newest first: for
	// the API, the service's; for the others, their own (History keeps
	// them in history.ServiceHistory.Surfaces).
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
	ID   catalog.SurfaceID `json:"id"`
	Name string            `json:"name"`
	// Component is the official page's component the query named exactly
	// ("claude.ai" in Anthropic's claude.ai surface, which also holds
	// Claude Cowork): the verdict is that component's status. Absent when
	// the query named the surface.
	Component string `json:"component,omitempty"`
}

// CheckOtherSurface is another surface of the checked service, named by a
// check because it is in trouble.
type CheckOtherSurface struct {
	ID     catalog.SurfaceID `json:"id"`
	Name   string            `json:"name"`
	Status Status            `json:"status"`
	Basis  Basis             `json:"basis"`
}

// Troubled reports whether a surface's status is trouble worth naming:
// maintenance or worse in the order of trouble (StatusTable): degraded,
// an outage or maintenance (unknown is no news).
func Troubled(s Status) bool { return s.AtLeast(Maintenance) }
