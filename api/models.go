package api

import (
	"time"
)

// Per-model health (docs/api.md, "Models"). The catalog watches a curated
// list of models; each cycle reads what two kinds of source say of each
// model at each tracked service that serves it:
//
//   - a component of a vendor's own status page that names the model
//     (Cohere's "command-a-03-2025", Groq's "openai/gpt-oss-120b"): the
//     vendor's word, read with the service's feed;
//   - a model gateway's telemetry (OpenRouter, Vercel's AI Gateway): the
//     share of the gateway's own requests to that model at that provider
//     that succeeded, and Vercel's time to first token. It is the
//     gateway's traffic, not the caller's key.
//
// At each service the witnesses' words are weighed together
// (ModelAgreement): one gateway's failures alone are its own routing.
//
// A model that no source reports on is unknown: never the service's status
// borrowed.

// ModelStatusFrom says which entry of a model's providers gives its
// status, and so where that status comes from.
type ModelStatusFrom struct {
	Service  string      `json:"service"`
	Provider string      `json:"provider"`
	Source   ModelSource `json:"source"`
}

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

// ModelDoc is one watched model: an element of ModelsDoc.Models and, with
// Incidents, the response of GET /models/{author}/{model}.
type ModelDoc struct {
	ID     string `json:"id"`
	Name   string `json:"name"`
	Author string `json:"author"`
	// Service is the tracked service of the model's maker, where a check
	// naming only the model goes; "" for a model of no tracked maker.
	Service string `json:"service,omitempty"`
	// FirstSeen is when aistatus began watching the model: for a model
	// found in a gateway's list, when it was found there.
	FirstSeen *time.Time `json:"firstSeen,omitempty"`
	// Created is when the gateway added the model to its list; absent
	// when no list carries it.
	Created *time.Time `json:"created,omitempty"`
	// Status is the best of the statuses the witnesses agree on at each
	// service (Agreement); unknown when none is known. StatusFrom is the
	// entry that gives it; nil when unknown.
	Status     Status           `json:"status"`
	StatusFrom *ModelStatusFrom `json:"statusFrom"`
	// Summary says per provider how the model fares, in one sentence.
	Summary   string          `json:"summary"`
	Providers []ModelProvider `json:"providers"`
	// Agreement is, per tracked service with an entry, what the
	// witnesses say together (history.AgreeModelStatus): the status the
	// model has there, and which witnesses stand behind it.
	Agreement []ModelAgreement `json:"agreement,omitempty"`
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
	// Latency is the gateway's time to first token of its own requests
	// over the last hour, in milliseconds, and Throughput their output
	// tokens a second (Vercel's); absent when the source gives none
	// (OpenRouter's keyless document has none), never 0.
	Latency    *ModelPercentiles `json:"latency,omitempty"`
	Throughput *ModelPercentiles `json:"throughput,omitempty"`
	// InferenceRegions are where the gateway says the endpoint runs:
	// a geography ("us"), or a geography and the provider's own region
	// ("us/us-east-1"); absent when it names none.
	InferenceRegions []string    `json:"inferenceRegions,omitempty"`
	Source           ModelSource `json:"source"`
}

// ModelPercentiles are a figure's median and 95th percentile over Window.
type ModelPercentiles struct {
	P50    float64 `json:"p50"`
	P95    float64 `json:"p95"`
	Window string  `json:"window"`
}

// ModelUptimes are a gateway's uptime percentages over its longer windows;
// nil for a window with too little traffic to tell. OpenRouter publishes
// 30m and 1d, Vercel 1h and 1d.
type ModelUptimes struct {
	Last30m *float64 `json:"30m"`
	Last1h  *float64 `json:"1h,omitempty"`
	Last1d  *float64 `json:"1d"`
}

// The verdicts of a ModelAgreement (history.AgreeModelStatus).
const (
	// AgreementNone: no witness knows.
	AgreementNone = "none"
	// AgreementSingle: one witness knows; nothing confirms or disputes it.
	AgreementSingle = "single"
	// AgreementAgreed: every witness that knows says the same side
	// (working, or in trouble), and there are two or more.
	AgreementAgreed = "agreed"
	// AgreementConfirmed: two or more witnesses see trouble while
	// another sees the model working: the trouble is the provider's.
	AgreementConfirmed = "confirmed"
	// AgreementGatewayTrouble: one gateway alone sees trouble while
	// another witness sees the model working: the gateway's own routing,
	// not the provider's, until a second witness agrees.
	AgreementGatewayTrouble = "gateway_trouble"
	// AgreementDisputed: one witness that is no gateway (the vendor's
	// component, our own completions) sees trouble while another sees
	// the model working; where it can be used now wins.
	AgreementDisputed = "disputed"
)

// ModelAgreement is what a model's witnesses at one tracked service say
// together.
type ModelAgreement struct {
	Service string `json:"service"`
	Status  Status `json:"status"`
	Verdict string `json:"verdict"`
	// Dissent names the source whose word the status does not follow (the
	// gateway of a gateway_trouble, the witness of a disputed or confirmed
	// verdict that saw otherwise); "" when none.
	Dissent   []string       `json:"dissent,omitempty"`
	Statement string         `json:"statement"`
	Witnesses []ModelWitness `json:"witnesses"`
}

// ModelWitness is one source's word on a model at a service: a gateway,
// the vendor's component, our measured completions (each counted), or our
// keyless probe of the provider's API host (shown, not counted: the host
// answering says nothing of one model).
type ModelWitness struct {
	// Source is the source's id (a gateway's, the service's slug for its
	// page or its probe, "aistatus" for our completions), Kind its kind.
	Source string `json:"source"`
	Kind   string `json:"kind"`
	Name   string `json:"name"`
	Status Status `json:"status"`
	// Uptime is the witness's figure over Window (nil when it has none).
	Uptime *float64 `json:"uptime"`
	Window string   `json:"window"`
	// Latency is its time to first token, where it gives one.
	Latency     *ModelPercentiles `json:"latency,omitempty"`
	Attribution string            `json:"attribution"`
	// Counted is false for a witness that cannot speak for one model
	// (the probe).
	Counted bool `json:"counted"`
}

// ModelSourceProbe is the Kind of our keyless probe of a service's API
// host as a model's witness.
const ModelSourceProbe = "probe"

// ModelSource says where a model figure comes from.
type ModelSource struct {
	// ID is a gateway's id, or the service's slug for its status page.
	ID   string `json:"id"`
	Kind string `json:"kind"`
	Name string `json:"name"`
	// Window is what the figure covers: history.ModelWindow for a gateway,
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

// Evidence is the evidence source (EvidenceSources) a figure of this
// source is, wherever it is cited: a gateway's, our measured completions',
// or else a status page's, the official word.
func (s ModelSource) Evidence() string {
	switch s.Kind {
	case ModelSourceGateway:
		return EvidenceGateway
	case ModelSourceMeasured:
		return EvidenceMeasured
	}
	return EvidenceOfficial
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
	// LeftOut names, on a model list's health, the first MaxFailedModels
	// models whose document could not be written this cycle: no single
	// model can fail a build, so it is left out of every file, and said
	// here.
	LeftOut []string `json:"leftOut,omitempty"`
	// Disagreements says, on a maker's page's health, where the page and
	// a gateway's list give a model different retirement dates: the
	// first MaxDisagreements, each "id: what the calendar entry says".
	Disagreements []string `json:"disagreements,omitempty"`
	Error         string   `json:"error,omitempty"`
	// Failure is the kind of the latest failure, while the source fails.
	Failure             FailureKind `json:"failure,omitempty"`
	LastOKAt            *time.Time  `json:"lastOkAt"`
	ConsecutiveFailures int         `json:"consecutiveFailures"`
	FailingSince        *time.Time  `json:"failingSince"`
}

// MaxFailedModels bounds ModelSourceHealth.FailedModels.
const MaxFailedModels = 10

// ModelSourceList is the Kind of a gateway's model list as a source: it
// says which models exist, not how they fare.
const ModelSourceList = "list"

// ModelSourceLifecycle is the Kind of a maker's own deprecation page as a
// source: the day the maker shuts a model down.
const ModelSourceLifecycle = "lifecycle"

// MaxDisagreements bounds ModelSourceHealth.Disagreements.
const MaxDisagreements = 20

// ModelSourceDisabled is the State of a gateway switched off in the catalog.
const ModelSourceDisabled = "disabled"

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
	// Agreement is the witnesses' word at the checked service, with the
	// verdict that gives Status; nil when no source reports on it there.
	Agreement *ModelAgreement `json:"agreement,omitempty"`
	// Retirement is the model's entry of the retirement calendar, when it
	// is retired or announced to be.
	Retirement *ModelRetirement `json:"retirement,omitempty"`
}

// The states of a model on the retirement calendar.
const (
	// RetirementAnnounced: the maker or a gateway announces the model is
	// shut down, or may be removed, after Date, which has not come.
	RetirementAnnounced = "announced"
	// RetirementRetired: the model left the gateway's list (noticed on
	// Date), or its announced date has come.
	RetirementRetired = "retired"
)

// RetiredBy reports whether the model is retired at now: marked retired,
// or its announced date has come since the calendar was written (a
// snapshot is read for a while after it is built). Dates are days, UTC.
func (r ModelRetirement) RetiredBy(now time.Time) bool {
	return r.State == RetirementRetired || (r.Date != "" && r.Date <= now.UTC().Format(time.DateOnly))
}

// ModelRetirement is one model on the retirement calendar.
type ModelRetirement struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Service is the tracked service of the model's maker ("" for none).
	Service string `json:"service"`
	// Date is the announced date ("YYYY-MM-DD"), or the day the model was
	// noticed gone.
	Date  string `json:"date"`
	State string `json:"state"`
	// Source is the id of the source whose date is taken (a maker's page,
	// "openai-deprecations", or a gateway's list, "openrouter-models"),
	// and Reason what it says.
	Source string `json:"source"`
	Reason string `json:"reason"`
	// Sources are what every source says of the model, the one taken
	// first: a maker's own page before a gateway's list.
	Sources []RetirementSource `json:"sources"`
	// Disagreement says, when the sources give different dates, each
	// date and which is taken; "" when they agree or only one speaks.
	Disagreement string `json:"disagreement,omitempty"`
}

// RetirementSource is what one source says of a model's retirement.
type RetirementSource struct {
	// Source is the source's id, Name what it is ("OpenAI's deprecations
	// page"), Kind ModelSourceLifecycle (the maker's page) or
	// ModelSourceList (a gateway's list).
	Source string `json:"source"`
	Name   string `json:"name"`
	Kind   string `json:"kind"`
	// Date is the day it gives, State what that day is (announced, or
	// retired: past, or a model gone from a list, noticed that day), and
	// Reason what it says, in words.
	Date   string `json:"date"`
	State  string `json:"state"`
	Reason string `json:"reason"`
	// URL is where a person can read it.
	URL string `json:"url,omitempty"`
}

// RetirementsDoc is the response of GET /models/retirements: every model
// retired in the last year or announced to be, by date.
type RetirementsDoc struct {
	Retirements []ModelRetirement `json:"retirements"`
	Timestamp   time.Time         `json:"timestamp"`
	License     string            `json:"license"`
}
