package api

import (
	"time"

	"github.com/aistatus/aistatus/catalog"
)

// Situation is the response of GET /situation: every subject aistatus
// gives a status of in one snapshot, each with that status once. The other
// outputs of a build (the page's banner and cards, /metrics' status series,
// the Statuspage façade's indicator) read their statuses from it, so that
// they say the same thing of each subject (history.Situation).
type Situation struct {
	GeneratedAt time.Time          `json:"generatedAt"`
	Subjects    []SituationSubject `json:"subjects"`
	License     string             `json:"license"`
}

// The kinds of a situation's subject.
const (
	// SubjectService is a service's API: the service's own status.
	SubjectService = "service"
	// SubjectSurface is a surface other than the API (claude.ai).
	SubjectSurface = "surface"
	// SubjectModel is a watched model, its best status anywhere.
	SubjectModel = "model"
	// SubjectModelProvider is a watched model at one tracked service.
	SubjectModelProvider = "model_provider"
)

// SubjectKinds lists every kind of subject, in the order a situation lists
// them.
var SubjectKinds = []string{SubjectService, SubjectSurface, SubjectModel, SubjectModelProvider}

// SituationSubject is one subject of a situation.
type SituationSubject struct {
	// ID is stable across snapshots: the slug for a service's API
	// ("anthropic"), slug/surface for another surface ("anthropic/app"),
	// model:id for a model and model:id@slug for a model at a service
	// (SubjectID, ModelSubjectID, ModelProviderSubjectID).
	ID   string `json:"id"`
	Kind string `json:"kind"`
	// Service is the tracked service's slug: the service's, the surface's,
	// the one the model is at; for a model, its maker's ("" for a maker
	// aistatus does not track).
	Service string `json:"service"`
	// Model is the model's id, for a model and a model at a service.
	Model  string `json:"model,omitempty"`
	Name   string `json:"name"`
	Status Status `json:"status"`
	// Basis is what Status rests on: a Basis for a service or a surface;
	// for a model, the kind of the source that gives its status
	// (ModelSource.Kind: component, gateway, measured), or none.
	Basis string `json:"basis"`
	// Source says in one line where Status comes from, naming the
	// document or figure it is read from.
	Source string `json:"source"`
	// OpenIncidents are the ids of the subject's open incidents, newest
	// first (for the API, every open incident of the service); empty for a
	// model, whose incidents are its services'.
	OpenIncidents []string `json:"openIncidents"`
	// Measured are our own completions' figures of the model at the
	// service over the last hour, for a model at a service whose operator
	// set a key; absent otherwise.
	Measured *SituationMeasured `json:"measured,omitempty"`
	// Retired is, for a model (and a model at a service) that is retired,
	// the date it was (ModelRetirement.Date); absent otherwise. A model
	// nobody can call is not up, whatever Status its sources last gave.
	Retired string `json:"retired,omitempty"`
	// Reports is the crowd's live count for a service's API, which only
	// the thin server adds (as to a service document); absent from a
	// built situation.json.
	Reports *Reports `json:"reports,omitempty"`
}

// SituationMeasured are the measured figures a situation keeps of a model
// at a service: those of MeasuredModel.Windows.Hour, the window its
// status is decided on.
type SituationMeasured struct {
	Window  string `json:"window"`
	Samples int    `json:"samples"`
	// TTFTP50Ms is the time to first token's p50; nil without a success.
	TTFTP50Ms *float64 `json:"ttftP50Ms"`
	// ErrorRate is the provider's failures over Samples; nil without one.
	ErrorRate *float64 `json:"errorRate"`
}

// SubjectID is the id of a service's surface as every output names it: the
// slug for the API, slug/surface for the others.
func SubjectID(slug string, id catalog.SurfaceID) string {
	if id == catalog.SurfaceAPI || id == "" {
		return slug
	}
	return slug + "/" + string(id)
}

// ModelSubjectID is the id of a watched model ("model:anthropic/claude-sonnet-4.5").
func ModelSubjectID(model string) string { return "model:" + model }

// ModelProviderSubjectID is the id of a watched model at a tracked service
// ("model:anthropic/claude-sonnet-4.5@aws-bedrock").
func ModelProviderSubjectID(model, slug string) string { return ModelSubjectID(model) + "@" + slug }

// Subject returns the subject of id, or false.
func (s Situation) Subject(id string) (SituationSubject, bool) {
	for _, sub := range s.Subjects {
		if sub.ID == id {
			return sub, true
		}
	}
	return SituationSubject{}, false
}
