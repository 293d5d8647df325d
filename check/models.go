package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/snapshot"
)

// A check can be about a model: q names a watched model
// ("claude-sonnet-4.5", "anthropic/claude-sonnet-4.5", an alias), or q names
// a service and the model parameter the model. The verdict is then the
// model's at that service (q's, or else the model's maker's), from what the
// model's sources say there, never the service's status; the alternatives
// are the other services that serve the model and are up; the same rule
// table decides.

// ModelView is what the engine reads of a snapshot's models. A View that
// is also a ModelView lets a check answer for a model; with one that is
// not (an older snapshot), a model reads unknown.
type ModelView interface {
	// Model is the watched model's entry of models.json; false when the
	// snapshot has none.
	Model(id string) (api.ModelDoc, bool)
}

// modelIndex maps the normalised names of the watched models (id, the
// model part of the id, name, aliases) to the models.
func modelIndex(cat catalog.Catalog) map[string]catalog.Model {
	idx := map[string]catalog.Model{}
	for _, md := range cat.Models.Pinned {
		_, rest, _ := strings.Cut(md.ID, "/")
		for _, name := range append([]string{md.ID, rest, md.Name}, md.Aliases...) {
			if key := nameKey(name); key != "" {
				if _, taken := idx[key]; !taken {
					idx[key] = md
				}
			}
		}
	}
	return idx
}

// modelHome is the service a model check is about when q names only the
// model: its maker's service, or else the first service whose page has a
// component for it.
func (e *Engine) modelHome(md catalog.Model) (catalog.Service, bool) {
	slug := md.Service
	if slug == "" && len(md.Components) > 0 {
		slug = md.Components[0].Service
	}
	return e.cat.Lookup(slug)
}

// modelFacts is what the snapshot says of a model, for a check at svc.
type modelFacts struct {
	md   catalog.Model
	doc  api.ModelDoc
	here api.Status // the model's status at the checked service
}

// readModel gathers the model's entry of the snapshot for a check at svc.
func readModel(view View, md catalog.Model, svc catalog.Service) modelFacts {
	mf := modelFacts{md: md, here: api.Unknown,
		doc: api.ModelDoc{ID: md.ID, Name: md.Name, Author: md.Author, Status: api.Unknown, Providers: []api.ModelProvider{}}}
	if mv, ok := view.(ModelView); ok {
		if doc, found := mv.Model(md.ID); found {
			mf.doc = doc
		}
	}
	mf.here = history.BestModelStatus(mf.doc.Providers, svc.Slug)
	return mf
}

// checkModel is the model as the check document shows it.
func (mf modelFacts) checkModel() *api.CheckModel {
	return &api.CheckModel{ID: mf.md.ID, Name: mf.md.Name, Status: mf.here, Providers: mf.doc.Providers}
}

// saying phrases one entry of a model as evidence: the figure, whose it is
// and over which window.
func saying(md catalog.Model, p api.ModelProvider, serviceName string) (source, says string) {
	where := serviceName
	if p.Provider != "" && p.Provider != serviceName {
		where += " (" + p.Provider + ")"
	}
	if p.Region != nil {
		where += ", " + *p.Region
	}
	switch {
	case p.Source.Error != "":
		return p.Source.Evidence(), fmt.Sprintf("%s at %s: %s gave nothing this cycle (%s), so it reads unknown.", md.Name, where, p.Source.Name, p.Source.Error)
	case p.Source.Kind == api.ModelSourceGateway && p.Uptime != nil:
		return api.EvidenceGateway, fmt.Sprintf("%s at %s: %.1f %% of %s's requests succeeded over the last %s (%s); that is %s's traffic, not your key's.",
			md.Name, where, *p.Uptime, p.Source.Name, p.Source.Window, p.Status, p.Source.Name)
	case p.Source.Kind == api.ModelSourceGateway:
		return api.EvidenceGateway, fmt.Sprintf("%s at %s: %s has too little traffic over the last %s to tell.", md.Name, where, p.Source.Name, p.Source.Window)
	case p.Source.Kind == api.ModelSourceMeasured && p.Uptime != nil:
		return api.EvidenceMeasured, fmt.Sprintf("%s at %s: %.1f %% of our own completions succeeded over the last %s (%s), with our key, not yours.",
			md.Name, where, *p.Uptime, p.Source.Window, p.Status)
	case p.Source.Kind == api.ModelSourceMeasured:
		return api.EvidenceMeasured, fmt.Sprintf("%s at %s: our own completions say %s.", md.Name, where, p.Status)
	}
	return api.EvidenceOfficial, fmt.Sprintf("%s at %s: %s shows its component %q as %s.", md.Name, where, p.Source.Name, p.Source.Component, p.Status)
}

// evidence lists what every source says of the model, the checked
// service's entries first.
func (mf modelFacts) evidence(cat catalog.Catalog, svc catalog.Service, age int) []api.Evidence {
	ev := []api.Evidence{}
	entries := slices.Clone(mf.doc.Providers)
	slices.SortStableFunc(entries, func(a, b api.ModelProvider) int {
		return boolRank(a.Service != svc.Slug) - boolRank(b.Service != svc.Slug)
	})
	for _, p := range entries {
		name := p.Service
		if s, ok := cat.Lookup(p.Service); ok {
			name = s.Name
		}
		source, says := saying(mf.md, p, name)
		ev = append(ev, api.Evidence{Source: source, Says: says, AgeSeconds: max(age, 0)})
	}
	if !slices.ContainsFunc(mf.doc.Providers, func(p api.ModelProvider) bool { return p.Service == svc.Slug }) {
		ev = append(ev, api.Evidence{Source: api.EvidenceOfficial, AgeSeconds: max(age, 0),
			Says: fmt.Sprintf("No source reports on %s at %s: its status there is unknown, whatever %s's own status.", mf.md.Name, svc.Name, svc.Name)})
	}
	return ev
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// alternatives are the other services where the model is up (operational
// or degraded) by its sources, best first, each with the figure that says
// so; the catalog's curated alternatives do not apply: they serve other
// models too.
func (mf modelFacts) alternatives(cat catalog.Catalog, svc catalog.Service) []api.CheckAlternative {
	out := []api.CheckAlternative{}
	seen := map[string]bool{}
	entries := slices.Clone(mf.doc.Providers)
	// Best status first, then the higher figure.
	slices.SortStableFunc(entries, func(a, b api.ModelProvider) int {
		if d := api.CompareUsable(a.Status, b.Status); d != 0 {
			return d
		}
		return cmpFigure(b.Uptime, a.Uptime)
	})
	for _, p := range entries {
		if p.Service == svc.Slug || seen[p.Service] || !p.Status.Usable() {
			continue
		}
		s, ok := cat.Lookup(p.Service)
		if !ok {
			continue
		}
		seen[p.Service] = true
		_, why := saying(mf.md, p, s.Name)
		out = append(out, api.CheckAlternative{Slug: s.Slug, Name: s.Name, Status: p.Status, Why: "Serves " + mf.md.Name + ". " + why})
	}
	return out
}

func cmpFigure(a, b *float64) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	case *a < *b:
		return -1
	case *a > *b:
		return 1
	}
	return 0
}

// subject resolves what a check is about: the service q names and, when
// the model parameter or q names a watched model, the model. q naming
// only a model checks it at its maker's service (modelHome).
func (e *Engine) subject(view View, req Request) (svc catalog.Service, surface catalog.SurfaceID, tracked bool, md *catalog.Model, err error) {
	svc, surface, tracked = e.matcher.MatchSurface(req.Query)
	if req.Model != "" {
		m, found := e.matchModel(view, req.Model)
		if !found {
			return svc, surface, tracked, nil, &InputError{"model", fmt.Sprintf("%q is not a watched model: see %s for the list",
				api.Truncate(req.Model, 64), snapshot.PathModels)}
		}
		if !tracked {
			if same, ok := e.matchModel(view, req.Query); ok && same.ID == m.ID {
				svc, tracked = e.modelHome(m)
			}
		}
		// A model is served by the service's API, whatever surface the
		// query named.
		return svc, catalog.SurfaceAPI, tracked, &m, nil
	}
	if !tracked {
		if m, found := e.matchModel(view, req.Query); found {
			svc, tracked = e.modelHome(m)
			return svc, catalog.SurfaceAPI, tracked, &m, nil
		}
	}
	return svc, surface, tracked, nil, nil
}

// modelDetail says what a model's verdict rests on.
func (mf modelFacts) detail(svc catalog.Service, sum api.ServiceSummary) string {
	return fmt.Sprintf("The verdict is for %s at %s, from what its sources say of the model there (see model.providers), "+
		"not %s's own status (%s).", mf.md.Name, svc.Name, svc.Name, sum.Status)
}
