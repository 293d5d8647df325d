package snapshot

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Per-model health (docs/api.md, "Models"). The catalog watches a curated
// list of models; each cycle reads what two kinds of source say of each
// model at each tracked service that serves it:
//
//   - a component of a vendor's own status page that names the model
//     (Cohere's "command-a-03-2025", Groq's "openai/gpt-oss-120b"): the
//     vendor's word, read with the service's feed;
//   - a model gateway's telemetry (OpenRouter): the share of the
//     gateway's own requests to that model at that provider that
//     succeeded. It is the gateway's traffic, not the caller's key.
//
// A model that no source reports on is unknown: never the service's status
// borrowed.

// The model gateways aistatus knows how to read.
const (
	GatewayOpenRouter = "openrouter"
)

// Gateways lists the gateway ids a catalog may name.
var Gateways = []string{GatewayOpenRouter}

// The thresholds that turn a gateway's uptime over ModelWindow into a
// status for that model at that provider: at or above ModelDegradedBelow
// it is operational, below it degraded, below ModelPartialBelow (one
// request in five failing) a partial outage, below ModelMajorBelow (most
// failing) a major outage. docs/api.md and the OpenAPI description state
// them.
const (
	ModelDegradedBelow = 95.0
	ModelPartialBelow  = 80.0
	ModelMajorBelow    = 50.0
	// ModelWindow is the gateway window the status is read from (OpenRouter's
	// uptime_last_5m): the shortest it publishes, so that a model failing
	// now reads so now.
	ModelWindow = "5m"
)

// ModelStatusOf is the status a gateway's uptime percentage over
// ModelWindow means; unknown for none (too little traffic to tell).
func ModelStatusOf(uptime *float64) Status {
	switch {
	case uptime == nil:
		return Unknown
	case *uptime < ModelMajorBelow:
		return MajorOutage
	case *uptime < ModelPartialBelow:
		return PartialOutage
	case *uptime < ModelDegradedBelow:
		return Degraded
	}
	return Operational
}

// modelRank orders statuses best first, for where a model can be used
// now; unknown is not a status to pick.
var modelRank = map[Status]int{Operational: 0, Degraded: 1, Maintenance: 2, PartialOutage: 3, MajorOutage: 4}

// ModelStatusFrom says which entry of a model's providers gives its
// status, and so where that status comes from.
type ModelStatusFrom struct {
	Service  string      `json:"service"`
	Provider string      `json:"provider"`
	Source   ModelSource `json:"source"`
}

// ModelStatusSource is the first entry (at service, "" for any) whose
// status is BestModelStatus's; nil when that is unknown.
func ModelStatusSource(providers []ModelProvider, service string) *ModelStatusFrom {
	best := BestModelStatus(providers, service)
	if best == Unknown {
		return nil
	}
	for _, p := range providers {
		if (service == "" || p.Service == service) && p.Status == best {
			return &ModelStatusFrom{Service: p.Service, Provider: p.Provider, Source: p.Source}
		}
	}
	return nil
}

// BestModelStatus is the best known status among a model's entries at
// service ("" for every service): unknown when none is known, never
// borrowed from anywhere else.
func BestModelStatus(providers []ModelProvider, service string) Status {
	best := Unknown
	for _, p := range providers {
		r, known := modelRank[p.Status]
		if (service == "" || p.Service == service) && known && (best == Unknown || r < modelRank[best]) {
			best = p.Status
		}
	}
	return best
}

// CompareModelStatus orders two statuses best first (a negative number
// when a is better), unknown last.
func CompareModelStatus(a, b Status) int {
	ra, ka := modelRank[a]
	rb, kb := modelRank[b]
	switch {
	case !ka && !kb:
		return 0
	case !ka:
		return 1
	case !kb:
		return -1
	}
	return ra - rb
}

// ModelCatalog is the catalog's section on models: the gateways read and
// the models watched.
type ModelCatalog struct {
	Gateways []Gateway `json:"gateways,omitempty"`
	Watched  []Model   `json:"watched,omitempty"`
}

// Gateway is a model gateway whose public per-provider telemetry is read.
type Gateway struct {
	// ID is one of Gateways.
	ID   string `json:"id"`
	Name string `json:"name"`
	// Enabled switches the source on; a disabled gateway is never
	// requested, and its models read what the other sources say.
	Enabled bool `json:"enabled"`
	// URL is the per-model document, with ModelParam standing for the
	// model's id at the gateway ("anthropic/claude-sonnet-4.5").
	URL string `json:"url"`
	// Attribution is whose data it is, published with every figure taken
	// from it.
	Attribution string `json:"attribution"`
	// ModelPage is the gateway's human page of a model, with ModelParam.
	ModelPage string `json:"modelPage,omitempty"`
	// Providers maps the gateway's provider names ("Amazon Bedrock") to
	// tracked services' slugs; a provider not listed is not a tracked
	// service, and its figures are left out.
	Providers map[string]string `json:"providers"`
}

// ModelParam is the placeholder for a model's id in Gateway.URL.
const ModelParam = "{model}"

// Model is one watched model.
type Model struct {
	// ID is "author/model", as the gateways spell it.
	ID   string `json:"id"`
	Name string `json:"name"`
	// Author is the model's maker, the part of ID before the slash.
	Author string `json:"author"`
	// Service is the tracked service of the model's maker, where /check
	// sends a caller who names the model: "anthropic" for Claude.
	Service string `json:"service,omitempty"`
	// Aliases are what people type for it in /check ("sonnet 4.5").
	Aliases []string `json:"aliases,omitempty"`
	// Components are the status-page components that stand for the model,
	// per service.
	Components []ModelComponent `json:"components,omitempty"`
}

// ModelComponent names the component of a service's status page that
// stands for a model.
type ModelComponent struct {
	Service string `json:"service"`
	// Name is the component's name on the page, matched case-insensitively.
	Name string `json:"name"`
	// Region is the region the component stands for, where a page splits a
	// model by region ("us-east-1"); "" for none.
	Region string `json:"region,omitempty"`
}

// watchedModelIDPattern is what a watched model's id may be: author/model, each a path
// segment of letters, digits and ._- (also the file name of its document).
var watchedModelIDPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}/[a-z0-9][a-z0-9._-]{0,127}$`)

// ValidModelID reports whether id has the shape of a watched model's id.
func ValidModelID(id string) bool {
	return watchedModelIDPattern.MatchString(id) && !strings.Contains(id, "..")
}

// validate checks the models section against the catalog's services.
func (m ModelCatalog) validate(services map[string]bool) []error {
	var errs []error
	seen := map[string]bool{}
	for i, g := range m.Gateways {
		where := fmt.Sprintf("catalog: models.gateways[%d] (%q)", i, g.ID)
		bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(where+": "+format, args...)) }
		switch {
		case !slices.Contains(Gateways, g.ID):
			bad("unknown gateway (want one of %s)", strings.Join(Gateways, ", "))
		case seen[g.ID]:
			bad("listed twice")
		}
		seen[g.ID] = true
		if strings.TrimSpace(g.Name) == "" || strings.TrimSpace(g.Attribution) == "" {
			bad("name and attribution are required: every figure says whose it is")
		}
		if !strings.Contains(g.URL, ModelParam) {
			bad("url must hold %s", ModelParam)
		} else if err := checkAbsoluteURL(strings.ReplaceAll(g.URL, ModelParam, "a/b")); err != nil {
			bad("url: %v", err)
		}
		for name, slug := range g.Providers {
			if !services[slug] {
				bad("providers[%q]: %q is not a slug of this catalog", name, slug)
			}
		}
	}
	ids := map[string]bool{}
	for i, md := range m.Watched {
		where := fmt.Sprintf("catalog: models.watched[%d] (%q)", i, md.ID)
		bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(where+": "+format, args...)) }
		switch {
		case !ValidModelID(md.ID):
			bad("id must be author/model in lower-case letters, digits and ._-")
		case ids[md.ID]:
			bad("listed twice")
		case md.Author != strings.SplitN(md.ID, "/", 2)[0]:
			bad("author %q is not the id's first part", md.Author)
		}
		ids[md.ID] = true
		if strings.TrimSpace(md.Name) == "" {
			bad("name is empty")
		}
		if md.Service != "" && !services[md.Service] {
			bad("service %q is not a slug of this catalog", md.Service)
		}
		for _, c := range md.Components {
			if !services[c.Service] || strings.TrimSpace(c.Name) == "" || strings.TrimSpace(c.Region) != c.Region {
				bad("components: %q of %q: a tracked service and a component name are required, and a region without surrounding spaces", c.Name, c.Service)
			}
		}
	}
	return errs
}

// Gateway returns the catalog's gateway of that id.
func (m ModelCatalog) Gateway(id string) (Gateway, bool) {
	for _, g := range m.Gateways {
		if g.ID == id {
			return g, true
		}
	}
	return Gateway{}, false
}

// Lookup returns the watched model of that id.
func (m ModelCatalog) Lookup(id string) (Model, bool) {
	for _, md := range m.Watched {
		if md.ID == id {
			return md, true
		}
	}
	return Model{}, false
}

// The files of the model documents.
const (
	FileModels = "models.json"
	DirModels  = "models"
)

// ModelFile is the path of a model's document inside a snapshot.
func ModelFile(id string) string { return DirModels + "/" + id + ".json" }

// The kinds of model source.
const (
	ModelSourceComponent = "component"
	ModelSourceGateway   = "gateway"
	// ModelSourceMeasured is aistatus's own streamed completions of the
	// model at a service, where the operator configured them (measured.go).
	ModelSourceMeasured = "measured"
)

// ModelsDoc is the response of GET /models.
type ModelsDoc struct {
	Models []ModelDoc `json:"models"`
	// Sources are the health of every model source this cycle.
	Sources []ModelSourceHealth `json:"sources"`
	// Rules states how a figure becomes a status.
	Rules     ModelRules `json:"rules"`
	Timestamp time.Time  `json:"timestamp"`
	License   string     `json:"license"`
}

// ModelRules are the thresholds, published with the data they apply to.
type ModelRules struct {
	Window        string  `json:"window"`
	DegradedBelow float64 `json:"degradedBelow"`
	PartialBelow  float64 `json:"partialBelow"`
	MajorBelow    float64 `json:"majorBelow"`
	Statement     string  `json:"statement"`
}

// ModelRulesStatement says the rules in words.
const ModelRulesStatement = "A gateway's uptime is the share of the gateway's own requests to that model at that provider that succeeded " +
	"over the window (rate-limited requests excluded, as the gateway counts them): its traffic, not your key's. " +
	"At or above degradedBelow % the model is operational at that provider, below it degraded, below partialBelow % a partial outage, " +
	"below majorBelow % a major outage; " +
	"no figure (too little traffic) is unknown. A status-page component is the vendor's word. A model's status is the best of its " +
	"providers' known statuses (where it can be used now); a model no source reports on is unknown, never its service's status."

// CurrentModelRules returns the rules in force.
func CurrentModelRules() ModelRules {
	return ModelRules{Window: ModelWindow, DegradedBelow: ModelDegradedBelow, PartialBelow: ModelPartialBelow, MajorBelow: ModelMajorBelow,
		Statement: ModelRulesStatement}
}

// ModelDoc is one watched model: an element of ModelsDoc.Models and, with
// Incidents, the response of GET /models/{author}/{model}.
type ModelDoc struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Author string `json:"author"`
	// Status is the best known status among Providers; unknown when none
	// is known. StatusFrom is the entry that gives it; nil when unknown.
	Status     Status           `json:"status"`
	StatusFrom *ModelStatusFrom `json:"statusFrom"`
	// Summary says per provider how the model fares, in one sentence.
	Summary   string          `json:"summary"`
	Providers []ModelProvider `json:"providers"`
	// Incidents are the retained incidents of the model's services whose
	// headline names the model, newest first; only in the model's own
	// document.
	Incidents []Incident `json:"incidents,omitempty"`
	// Timestamp and License are only in the model's own document.
	Timestamp *time.Time `json:"timestamp,omitempty"`
	License   string     `json:"license,omitempty"`
}

// ModelProvider is what one source says of a model at one tracked service.
type ModelProvider struct {
	// Service is the tracked service's slug.
	Service string `json:"service"`
	// Provider is the source's name of the provider ("Amazon Bedrock",
	// "Google Vertex"), which tells apart two offers of one service.
	Provider string `json:"provider"`
	// Region is the gateway endpoint's region or variant (OpenRouter's tag
	// after the slash: "us-east-1"); nil when there is none.
	Region *string `json:"region"`
	Status Status  `json:"status"`
	// Uptime is the percentage over Source.Window; nil when the source has
	// no figure (a component, or too little traffic).
	Uptime *float64 `json:"uptime"`
	// Uptimes are a gateway's longer windows, as it publishes them; absent
	// for a component.
	Uptimes *ModelUptimes `json:"uptimes,omitempty"`
	Source  ModelSource   `json:"source"`
}

// ModelUptimes are a gateway's uptime percentages over its longer windows;
// nil for a window with too little traffic to tell.
type ModelUptimes struct {
	Last30m *float64 `json:"30m"`
	Last1d  *float64 `json:"1d"`
}

// ModelSource says where a model figure comes from.
type ModelSource struct {
	// ID is a gateway's id, or the service's slug for its status page.
	ID   string `json:"id"`
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Window is what the figure covers: ModelWindow for a gateway,
	// "current" for a status page's component.
	Window string `json:"window"`
	// Basis says what the figure is, in words.
	Basis string `json:"basis"`
	// Attribution is whose data it is.
	Attribution string `json:"attribution"`
	// URL is where a person can see it.
	URL string `json:"url,omitempty"`
	// Component is the status page's component name, for a component.
	Component string `json:"component,omitempty"`
	// Error says why the source gave nothing for this model this cycle.
	Error string `json:"error,omitempty"`
}

// ModelSourceHealth is the health of one model source, as FeedSource is of
// a service's feed: a gateway that moved, walled itself off or changed
// shape shows here and in the log.
type ModelSourceHealth struct {
	ID          string `json:"id"`
	Kind        string `json:"kind"`
	Name        string `json:"name"`
	Enabled     bool   `json:"enabled"`
	URL         string `json:"url"`
	Attribution string `json:"attribution"`
	// State is FeedOK (every read proved its document), FeedError (at least
	// one read failed) or "disabled".
	State string `json:"state"`
	// Failed counts this cycle's failed reads, of Reads; FailedModels names
	// the first MaxFailedModels of those models (a renamed id shows here).
	Reads        int      `json:"reads"`
	Failed       int      `json:"failed"`
	FailedModels []string `json:"failedModels,omitempty"`
	Error        string   `json:"error,omitempty"`
	// Failure is the kind of the latest failure, while the source fails.
	Failure             FailureKind `json:"failure,omitempty"`
	LastOKAt            *time.Time  `json:"lastOkAt"`
	ConsecutiveFailures int         `json:"consecutiveFailures"`
	FailingSince        *time.Time  `json:"failingSince"`
}

// MaxFailedModels bounds ModelSourceHealth.FailedModels.
const MaxFailedModels = 10

// ModelSourceDisabled is the State of a gateway switched off in the catalog.
const ModelSourceDisabled = "disabled"

// errNoModels is returned when a catalog has a gateway but no model to read.
var errNoModels = errors.New("catalog: models.gateways without models.watched")

// ModelHistory is what a cycle hands on about models: its word on each
// watched model (the documents are rendered from it) and the health of
// each model source, which the next cycle carries on.
type ModelHistory struct {
	At      time.Time           `json:"at"`
	Models  []ModelDoc          `json:"models"`
	Sources []ModelSourceHealth `json:"sources"`
}

// Source returns the recorded health of the source of that id.
func (m *ModelHistory) Source(id string) (ModelSourceHealth, bool) {
	if m == nil {
		return ModelSourceHealth{}, false
	}
	for _, s := range m.Sources {
		if s.ID == id {
			return s, true
		}
	}
	return ModelSourceHealth{}, false
}

// CheckModel is the model a /check answers for (q or model naming a
// watched model): its status at the checked service, and what every
// source says of it everywhere, each figure with its source.
type CheckModel struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Status is the model's status at the checked service: the best known
	// status of its entries there; unknown when no source reports on it
	// there (never the service's status).
	Status    Status          `json:"status"`
	Providers []ModelProvider `json:"providers"`
}
