package history

import (
	"cmp"
	"fmt"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// Situation is the one answer of a snapshot about every subject: each
// service's API and other surfaces, each watched model and each model at
// each service some source reports on. It reads the documents a build has
// already assembled, the same values status.json, the service documents
// and models.json are written from, and decides nothing of its own: a
// service's status and basis are its document's, a surface's its
// SurfaceDoc's, a model's its ModelDoc's, and a model at a service the
// status its witnesses there agree on (BestModelStatus, as /check's model status).
// services are in the catalog's order, models in models.json's.
func Situation(generatedAt time.Time, services []api.ServiceDoc, models []api.ModelDoc, retirements []api.ModelRetirement) api.Situation {
	retired := map[string]string{}
	for _, r := range retirements {
		if r.RetiredBy(generatedAt) {
			retired[r.ID] = r.Date
		}
	}
	out := api.Situation{GeneratedAt: generatedAt.UTC(), Subjects: []api.SituationSubject{}, License: api.License}
	measured := map[string]api.MeasuredModel{}
	for _, svc := range services {
		out.Subjects = append(out.Subjects, api.SituationSubject{
			ID: svc.Slug, Kind: api.SubjectService, Service: svc.Slug,
			Name:   catalog.Service{Name: svc.Name}.APISurfaceName(),
			Status: cmp.Or(svc.Status, api.Unknown), Basis: string(cmp.Or(svc.Basis, api.BasisNone)), Source: serviceSource(svc),
			OpenIncidents: openIDs(svc.Incidents),
		})
		for _, sf := range svc.Surfaces {
			if sf.ID == catalog.SurfaceAPI {
				continue // the service itself, above
			}
			out.Subjects = append(out.Subjects, api.SituationSubject{
				ID: api.SubjectID(svc.Slug, sf.ID), Kind: api.SubjectSurface, Service: svc.Slug, Name: sf.Name,
				Status: cmp.Or(sf.Status, api.Unknown), Basis: string(cmp.Or(sf.Basis, api.BasisNone)), Source: sf.Source,
				OpenIncidents: openIDs(sf.Incidents),
			})
		}
		for _, m := range svc.Measured {
			measured[api.ModelProviderSubjectID(m.Model, svc.Slug)] = m
		}
	}
	for _, md := range models {
		out.Subjects = append(out.Subjects, api.SituationSubject{
			ID: api.ModelSubjectID(md.ID), Kind: api.SubjectModel, Service: md.Service, Model: md.ID, Name: md.Name,
			Status: cmp.Or(md.Status, api.Unknown), Basis: fromBasis(md.StatusFrom), Source: modelSource(md), OpenIncidents: []string{},
			Retired: retired[md.ID],
		})
		seen := map[string]bool{}
		for _, p := range md.Providers {
			if seen[p.Service] {
				continue
			}
			seen[p.Service] = true
			id := api.ModelProviderSubjectID(md.ID, p.Service)
			from := ModelStatusSource(md.Providers, p.Service)
			sub := api.SituationSubject{
				ID: id, Kind: api.SubjectModelProvider, Service: p.Service, Model: md.ID, Name: md.Name + " at " + p.Service,
				Status: BestModelStatus(md.Providers, p.Service), Basis: fromBasis(from), OpenIncidents: []string{},
				Retired: retired[md.ID],
			}
			sub.Source = entrySource(md.Providers, from, sub.Status, "at "+p.Service)
			if m, ok := measured[id]; ok {
				h := m.Windows.Hour
				sub.Measured = &api.SituationMeasured{Window: "1h", Samples: h.Samples, TTFTP50Ms: h.TTFTMs.P50, ErrorRate: h.ErrorRate}
			}
			out.Subjects = append(out.Subjects, sub)
		}
	}
	return out
}

// serviceSource says where a service's status comes from, by its basis.
func serviceSource(svc api.ServiceDoc) string {
	if d := svc.Sources.Disagreement; d != nil {
		return d.Detail
	}
	switch svc.Basis {
	case api.BasisOfficial:
		if svc.Sources.Feed.State == api.FeedOK {
			return "The official status page's word for the API's scope, read this cycle."
		}
		return fmt.Sprintf("The official status page's last word for the API's scope, held while the page cannot be read (at most %d minutes).",
			int(MaxHold.Minutes()))
	case api.BasisMeasured:
		return "Our own streamed completions of the service's models (the measured figures of its models at the service), with no word from the page."
	case api.BasisProbe:
		if svc.Status == api.Unknown {
			return "Our probe of the API host alone, which cannot show that the API works: the page had no word."
		}
		return "Our probes of the API host, which failed while the page had no word."
	}
	return "Nothing to go on: no word from the official page and no probe of the API host."
}

// modelSource says where a model's status comes from: the entry that gives
// it (ModelDoc.StatusFrom).
func modelSource(md api.ModelDoc) string {
	return entrySource(md.Providers, md.StatusFrom, md.Status, "anywhere")
}

// entrySource says which entry gives status, from: "OpenRouter (gateway,
// window 5m) for Amazon Bedrock at aws-bedrock, uptime 99.9%".
// where says what no source reported on, when from is nil.
func entrySource(providers []api.ModelProvider, from *api.ModelStatusFrom, status api.Status, where string) string {
	if from == nil {
		return "No source reports a known status of the model " + where + "."
	}
	says := fmt.Sprintf("%s (%s, window %s) for %s at %s", from.Source.Name, from.Source.Kind, from.Source.Window, from.Provider, from.Service)
	for _, p := range providers {
		if p.Service == from.Service && p.Provider == from.Provider && p.Source.ID == from.Source.ID && p.Status == status && p.Uptime != nil {
			says += ", uptime " + FormatPercent(p.Uptime)
			break
		}
	}
	if from.Source.Component != "" {
		says += ", component " + from.Source.Component
	}
	return says + "."
}

// fromBasis is a model's basis: the kind of the source its status is
// from, none without one.
func fromBasis(from *api.ModelStatusFrom) string {
	if from == nil {
		return string(api.BasisNone)
	}
	return from.Source.Kind
}

// openIDs are the ids of incidents' open ones, in their order.
func openIDs(incidents []api.Incident) []string {
	ids := []string{}
	for _, inc := range incidents {
		if inc.Open() {
			ids = append(ids, inc.ID)
		}
	}
	return ids
}
