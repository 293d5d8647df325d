package api

import (
	"strings"
	"time"

	"github.com/aistatus/aistatus/catalog"
)

// License is the licence of every document aistatus publishes.
const License = "CC-BY-4.0"

// LicenseURL is where the licence text lives.
const LicenseURL = "https://creativecommons.org/licenses/by/4.0/"

// Attribution is the credit line CC-BY-4.0 asks reusers of the data to
// give: the name, the address of the instance the data was taken from, and
// the licence. address may be "" when it is not known.
func Attribution(address string) string {
	name := "aistatus"
	if address = strings.TrimSuffix(address, "/"); address != "" {
		name += " (" + address + ")"
	}
	return name + ", from each service's official status page and aistatus's own probes; licensed " +
		License + " (" + LicenseURL + ")"
}

// StatusDoc is the response of GET /status.
type StatusDoc struct {
	// Status is the state of the API response itself: always "ok".
	Status string `json:"status"`
	// Timestamp is when this snapshot was generated.
	Timestamp time.Time        `json:"timestamp"`
	Services  []ServiceSummary `json:"services"`
	// Source names the service and its address, as CC-BY-4.0 attribution asks.
	Source  string `json:"source"`
	License string `json:"license"`
}

// ServiceSummary is one element of StatusDoc.Services.
type ServiceSummary struct {
	Slug        string     `json:"slug"`
	Name        string     `json:"name"`
	Category    string     `json:"category"`
	Domain      string     `json:"domain"`
	Status      Status     `json:"status"`
	Basis       Basis      `json:"basis"` // what Status rests on
	LastChecked *time.Time `json:"lastChecked"`
	URL         string     `json:"url"`
	StatusPage  string     `json:"statusPage"`
	LatencyMs   *float64   `json:"latencyMs"`
	// Feed is the state of the official source in the latest cycle (ok,
	// error, none, unsupported): whether the status had the page's word.
	Feed string `json:"feed"`
	// Disagreement is set while our probes overrule the official page.
	Disagreement *Disagreement `json:"disagreement"`
	// Surfaces are the service's surfaces, the API first (its status is
	// Status); only the API for a service whose page lists no other.
	Surfaces []SurfaceSummary `json:"surfaces"`
}

// ServiceDoc is the response of GET /services/{slug}.
type ServiceDoc struct {
	Slug        string     `json:"slug"`
	Name        string     `json:"name"`
	Category    string     `json:"category"`
	Domain      string     `json:"domain"`
	URL         string     `json:"url"`
	StatusPage  string     `json:"statusPage"`
	Status      Status     `json:"status"`
	Basis       Basis      `json:"basis"` // what Status rests on
	LastChecked *time.Time `json:"lastChecked"`
	LatencyMs   *float64   `json:"latencyMs"`
	Uptime      Uptime     `json:"uptime"`
	// UptimeCoverage says how much of each uptime window has data.
	UptimeCoverage Coverage `json:"uptimeCoverage"`
	// UptimeCoverageSources says where it came from (timeline.go).
	UptimeCoverageSources CoverageBreakdown `json:"uptimeCoverageSources"`
	// DataSince is the time of the first check we hold of the service; nil
	// when there is none.
	DataSince *time.Time `json:"dataSince"`
	// Incidents are the service's retained incidents, newest first.
	Incidents []Incident `json:"incidents"`
	// Components are the components of the official status page, as last
	// read, each marked in or out of the service's scope; empty for feeds
	// without components.
	Components []Component `json:"components"`
	// Surfaces are the service's surfaces, the API first (its status,
	// incidents and uptime are the service's own).
	Surfaces []SurfaceDoc `json:"surfaces"`
	// ProbeLatency is our probe's latency p50/p95 over 24 h and 7 d.
	ProbeLatency ProbeLatency `json:"probeLatency"`
	// Measured are our own completions' figures per model; empty unless
	// the operator set the service's key (catalog.CompletionProbe).
	Measured  []MeasuredModel `json:"measured"`
	Sources   Sources         `json:"sources"`
	Timestamp time.Time       `json:"timestamp"`
	License   string          `json:"license"`

	// Reliability is what the retained history says about the service's
	// incidents (predict.go).
	Reliability Reliability `json:"reliability"`
	// Reports is the crowd's live count, which only the thin server adds
	// (serve); a built service file never has it.
	Reports *Reports `json:"reports,omitempty"`
}

// Component is one component of an official status page.
type Component struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	// Group is the name of the group the component belongs to, if any.
	Group  string `json:"group,omitempty"`
	Status Status `json:"status"`
	// InScope tells whether the component is part of the developer API this
	// service stands for, and so counts for its status.
	InScope bool `json:"inScope"`
}

// Sources says where a service's status came from in the latest cycle.
type Sources struct {
	Feed  FeedSource  `json:"feed"`
	Probe ProbeSource `json:"probe"`
	// Disagreement is set while our own probes contradict the official page:
	// they fail while it declares the service operational or degraded.
	Disagreement *Disagreement `json:"disagreement"`
	// Vantages is what each vantage point saw of the API host and the
	// regional rule's reading; absent when the build read none (no Redis).
	Vantages *Vantages `json:"vantages,omitempty"`
}

// Disagreement is our measurement overruling the official page.
type Disagreement struct {
	// Since is when our probes (or completions) started failing.
	Since time.Time `json:"since"`
	// By is what overrules the page: "probe" (our probe of the API host)
	// or "measured" (our completions).
	By string `json:"by"`
	// Official is what the status page declares; Measured what we report.
	Official Status `json:"official"`
	Measured Status `json:"measured"`
	Detail   string `json:"detail"`
}

// FeedSource is the outcome of reading the official feed, and the health of
// that source over time.
type FeedSource struct {
	Format catalog.FeedFormat `json:"format"`
	// URL is the document read.
	URL string `json:"url,omitempty"`
	// State is "ok", "error" (the feed could not be read or parsed),
	// "unsupported" (aistatus has no reader for this format yet) or "none"
	// (no machine-readable source: Note says why).
	State string `json:"state"`
	// Status is what the feed declared, when it was read.
	Status Status `json:"status,omitempty"`
	Error  string `json:"error,omitempty"`
	// Failure is the kind of the latest failure, while the source fails.
	Failure FailureKind `json:"failure,omitempty"`
	Note    string      `json:"note,omitempty"`
	// LastOKAt is the latest successful read; nil when there has been none.
	LastOKAt *time.Time `json:"lastOkAt"`
	// ConsecutiveFailures counts the failed reads since the last good one,
	// the first of them at FailingSince.
	ConsecutiveFailures int        `json:"consecutiveFailures"`
	FailingSince        *time.Time `json:"failingSince"`
	// RosterChangedAt is when the set of in-scope components last changed,
	// and RosterAdded/RosterRemoved how ("name (id)").
	RosterChangedAt *time.Time `json:"rosterChangedAt,omitempty"`
	RosterAdded     []string   `json:"rosterAdded,omitempty"`
	RosterRemoved   []string   `json:"rosterRemoved,omitempty"`
	// Unplaced are the components the page lists, and the tags of a feed's
	// items, that the catalog places nowhere (not in the API's scope, no
	// surface's, not in otherComponents): added since the catalog was
	// written, they count for no status until someone places them. Only
	// for a service whose catalog places its components (it has surfaces
	// or otherComponents).
	Unplaced []UnplacedComponent `json:"unplaced,omitempty"`
}

// UnplacedComponent is a component of an official page, or a tag of a
// feed's items, that the catalog places nowhere, and since when the build
// has seen it there.
type UnplacedComponent struct {
	// ID is the page's id for a component; empty for a tag.
	ID   string `json:"id"`
	Name string `json:"name"`
	// Kind is UnplacedTag for a tag of the feed's items (xAI's "[Voice]"),
	// what a feed of events has for components; empty for a component.
	Kind      string    `json:"kind,omitempty"`
	FirstSeen time.Time `json:"firstSeen"`
}

// UnplacedTag is the Kind of an unplaced tag.
const UnplacedTag = "tag"

// FailureKind classifies a failed read of an official feed, so that a
// source that moved or changed shape is told apart from a passing error.
type FailureKind string

// The failure kinds.
const (
	// FailureNetwork: DNS, refused or reset connection, TLS.
	FailureNetwork FailureKind = "network"
	FailureTimeout FailureKind = "timeout"
	// FailureHTTP: an HTTP error status (403 and 404 are typical of a source
	// that moved or walled itself off).
	FailureHTTP FailureKind = "http_status"
	// FailureMoved: redirected to another host.
	FailureMoved FailureKind = "moved"
	// FailureChallenge: a bot challenge or an HTML page where a document was
	// expected.
	FailureChallenge FailureKind = "challenge"
	// FailureSchema: a document, but not of the expected shape.
	FailureSchema FailureKind = "schema"
	// FailureEmpty: the expected document, with nothing in it (no
	// components), which must not read as "all is well".
	FailureEmpty FailureKind = "empty"
	// FailureScope: read, but no component is in the service's scope.
	FailureScope FailureKind = "scope_matched_nothing"
	// FailureTooLarge: a body over the size cap.
	FailureTooLarge FailureKind = "too_large"
	// FailureSuspect: the expected document, but one that contradicts most
	// of what the last good read knew (a model list that lost more than a
	// tenth of its models): not believed, the last good read stands.
	FailureSuspect FailureKind = "suspect"
)

// FailureKinds lists every failure kind.
var FailureKinds = []FailureKind{FailureNetwork, FailureTimeout, FailureHTTP, FailureMoved, FailureChallenge,
	FailureSchema, FailureEmpty, FailureScope, FailureTooLarge, FailureSuspect}

// Feed states.
const (
	FeedOK          = "ok"
	FeedError       = "error"
	FeedUnsupported = "unsupported"
	FeedNone        = "none"
)

// ProbeSource is the outcome of our latency probe.
type ProbeSource struct {
	// State is "ok" (the host answered), "failed", "none" (no probe URL)
	// or "discarded" (most probes failed at once: our network, not theirs;
	// or it failed from the builder while MinOthersReaching other vantages
	// or more reach the host: a regional or path problem, see Vantages).
	State      string   `json:"state"`
	LatencyMs  *float64 `json:"latencyMs"`
	HTTPStatus int      `json:"httpStatus,omitempty"`
	Error      string   `json:"error,omitempty"`
	// Attempts counts the probes of this cycle when a failed one was
	// re-probed to confirm it (the last one's result is shown); omitted
	// for a single probe.
	Attempts int `json:"attempts,omitempty"`
}

// Probe states.
const (
	ProbeOK        = "ok"
	ProbeFailed    = "failed"
	ProbeNone      = "none"
	ProbeDiscarded = "discarded"
)

// IncidentList is the response of GET /incidents; incidents.json holds every
// retained incident in this shape, and the server filters it.
type IncidentList struct {
	Incidents []Incident `json:"incidents"`
	Timestamp time.Time  `json:"timestamp"`
	Filters   Filters    `json:"filters"`
	// Window is set on server responses, which are bounded; incidents.json
	// (every retained incident) has none.
	Window  *Window `json:"window,omitempty"`
	License string  `json:"license"`
}

// Filters echoes the filters of an incident list; nil for a filter not sent.
type Filters struct {
	Since    *string `json:"since"`
	Severity *string `json:"severity"`
	Service  *string `json:"service"`
}

// ExportRow is one row of export.csv, in the column order the API contract
// fixes (slug,name,category,domain,status,lastChecked).
type ExportRow struct {
	Slug        string `csv:"slug"`
	Name        string `csv:"name"`
	Category    string `csv:"category"`
	Domain      string `csv:"domain"`
	Status      Status `csv:"status"`
	LastChecked string `csv:"lastChecked"`
}

// Reports is the crowd's live count for a service, the "reports" member the
// thin server adds to a service document: from how many distinct networks
// (an IPv4 /24 or an IPv6 /48 each) callers reported an error for it
// through /check in the current 5-minute window, against the usual count
// at that hour. Reports, not a status: it never sets one. A static host cannot count, so its service files
// have no such member.
type Reports struct {
	WindowStart time.Time `json:"windowStart"`
	WindowEnd   time.Time `json:"windowEnd"`
	Count       int       `json:"count"`
	// Baseline is the mean count per window at this hour on the previous
	// days (at most 7) the counter has run; null until it has run a day.
	Baseline *float64 `json:"baseline"`
	// State is "surge" (at least 10 voices and 3 times the baseline),
	// "normal", or "unknown" while there is no baseline (no surge then).
	State string `json:"state"`
}

// Window tells which part of the retained incidents a server response covers.
type Window struct {
	// Since is the effective lower bound on startedAt: the since filter, or
	// the default window when since was not sent.
	Since time.Time `json:"since"`
	Limit int       `json:"limit"`
	// Truncated is true when more incidents matched than Limit.
	Truncated bool `json:"truncated"`
}

// CheckDoc is the response of GET /check.
type CheckDoc struct {
	// Query is q as received.
	Query string `json:"query"`
	// Error is the error parameter as received: what the caller just saw
	// (an HTTP status or timeout/connection); nil when not sent.
	Error *string `json:"error"`
	// Code is the code parameter as received: the error code or type from
	// the provider's error body; omitted when not sent.
	Code *string `json:"code,omitempty"`
	// RetryAfter is the retryAfter parameter as received: the Retry-After
	// the caller got, in seconds; omitted when not sent.
	RetryAfter *int `json:"retryAfter,omitempty"`
	Tracked    bool `json:"tracked"`
	// Model is the watched model the check answers for, when q or the
	// model parameter names one; omitted otherwise.
	Model *CheckModel `json:"model,omitempty"`
	// Service is the matched service; nil when the query is not tracked.
	Service *CheckService `json:"service"`
	// Surface is the surface of the service the verdict covers (claude.ai
	// is Anthropic's app, a bare name or the API host its api); nil when
	// the query is not tracked.
	Surface *CheckSurface `json:"surface"`
	// OtherSurfaces are the service's other surfaces that are in trouble
	// (see Troubled), with their status; empty when none is.
	OtherSurfaces []CheckOtherSurface `json:"otherSurfaces"`
	// Status is the service's current status; nil when not tracked.
	Status *Status `json:"status"`
	// Basis is what Status rests on, as in ServiceSummary; nil when not
	// tracked, or when the snapshot was written before it had one.
	Basis *Basis `json:"basis"`
	// LatencyMs is a live probe of the service's API host, at most 30 s old;
	// nil when the probe failed, the service has no probe, or it is untracked.
	LatencyMs        *float64   `json:"latencyMs"`
	LatencyCheckedAt *time.Time `json:"latencyCheckedAt"`
	Verdict          Verdict    `json:"verdict"`
	Timestamp        time.Time  `json:"timestamp"`
	License          string     `json:"license"`
}

// CheckService identifies the service a check matched.
type CheckService struct {
	Slug   string `json:"slug"`
	Name   string `json:"name"`
	Domain string `json:"domain"`
}

// Verdict is the human answer of a check.
type Verdict struct {
	Headline string `json:"headline"`
	Emoji    string `json:"emoji"`
	// Level is one of VerdictLevels.
	Level string `json:"level"`
	// Stale is true when the snapshot behind the answer is too old to trust.
	Stale bool `json:"stale"`
	// DataAgeSeconds is the age of the snapshot; nil when untracked.
	DataAgeSeconds *int `json:"dataAgeSeconds"`
	// Detail says more than the headline where there is more to say: that
	// our probes contradict the official page, or that there is no page.
	Detail string `json:"detail,omitempty"`
	// Suggestions are the closest tracked names, for an untracked query.
	Suggestions []string `json:"suggestions,omitempty"`
	// ExpectedResolution is, while an official incident is open, how long
	// the service's incidents of its severity lasted (predict.go); absent
	// below history.MinBasis of them.
	ExpectedResolution *ExpectedResolution `json:"expectedResolution,omitempty"`

	// Action, Blame, Confidence and Reason are what to do about it, from
	// the first matching rule of /check's one rule table; absent for an
	// untracked query, where there is nothing to base advice on.
	Action     string `json:"action,omitempty"`
	Blame      string `json:"blame,omitempty"`
	Confidence string `json:"confidence,omitempty"`
	Reason     string `json:"reason,omitempty"`
	// RetryAfterSeconds is how long to wait before trying again, where
	// retrying or waiting is the advice; nil otherwise.
	RetryAfterSeconds *int `json:"retryAfterSeconds"`
	// PollAfterSeconds is when to ask /check again, and ResumeWhen what
	// will end the wait, while the subject is down or the advice is to
	// wait or fail over (check/resume.go); nil and absent otherwise.
	// RetryAfterSeconds is about the caller's own call, PollAfterSeconds
	// about this question.
	PollAfterSeconds *int              `json:"pollAfterSeconds,omitempty"`
	ResumeWhen       []ResumeCondition `json:"resumeWhen,omitempty"`
	// Evidence are the facts behind the advice; empty when untracked.
	Evidence []Evidence `json:"evidence"`
	// Alternatives are tracked services that can stand in, not down, best
	// first; empty when there are none or the query is untracked.
	Alternatives []CheckAlternative `json:"alternatives"`
}

// ResumeCondition is one thing whose change ends a wait: an element of
// Verdict.ResumeWhen.
type ResumeCondition struct {
	// Condition is one of ResumeConditions.
	Condition string `json:"condition"`
	// Event is the change type that marks it in the change log (/changes,
	// /events, webhooks), whose subject is Subject; absent when no event
	// does, and then asking /check again tells.
	Event   ChangeType `json:"event,omitempty"`
	Subject string     `json:"subject,omitempty"`
	// Incident is the id of the open incident, for ResumeIncidentResolved.
	Incident string `json:"incident,omitempty"`
	// Threshold is the uptime percentage to reach, for ResumeModelUptime.
	Threshold *float64 `json:"threshold,omitempty"`
	// When says it in words.
	When string `json:"when"`
}

// The values of ResumeCondition.Condition.
const (
	// ResumeRecovered: the subject is back to operational (a
	// service.recovered, surface.recovered or model.recovered).
	ResumeRecovered = "recovered"
	// ResumeMaintenanceEnds: the planned maintenance ends (the subject's
	// status change).
	ResumeMaintenanceEnds = "maintenance_ends"
	// ResumeIncidentResolved: the status page resolves an open incident.
	ResumeIncidentResolved = "incident_resolved"
	// ResumeProbeAnswers: our probe of the API answers again.
	ResumeProbeAnswers = "probe_answers"
	// ResumeModelUptime: a model's uptime at the service, by a gateway,
	// reaches the threshold of operational.
	ResumeModelUptime = "model_uptime"
	// ResumeCallSucceeds: nothing we watch shows the trouble; the caller's
	// own retry tells.
	ResumeCallSucceeds = "call_succeeds"
)

// ResumeConditions lists the values of ResumeCondition.Condition.
var ResumeConditions = []string{ResumeRecovered, ResumeMaintenanceEnds, ResumeIncidentResolved, ResumeProbeAnswers,
	ResumeModelUptime, ResumeCallSucceeds}

// VerdictLevels are the values of Verdict.Level.
var VerdictLevels = []string{"up", "degraded", "down", "maintenance", "unknown", "stale", "untracked", LevelRetired}

// LevelRetired is the verdict's level, and EmojiRetired its emoji, for a
// retired model: nobody can call it, whatever its providers last said,
// so it is neither up nor down.
const (
	LevelRetired = "retired"
	EmojiRetired = "⛔"
)

// The values of Verdict.Action.
const (
	ActionProceed   = "proceed"
	ActionRetry     = "retry"
	ActionWait      = "wait"
	ActionFailover  = "failover"
	ActionFixClient = "fix_client"
	// ActionReroute: the host fails from the caller's region only (our
	// vantage there fails while the others reach it): route through
	// another region or network path, not to another provider.
	ActionReroute = "reroute"
)

// VerdictActions, VerdictBlames and VerdictConfidences list the values of
// Verdict.Action, Verdict.Blame and Verdict.Confidence.
var (
	VerdictActions     = []string{ActionProceed, ActionRetry, ActionWait, ActionFailover, ActionFixClient, ActionReroute}
	VerdictBlames      = []string{BlameProvider, BlameClient, BlameNetwork, BlameUnknown}
	VerdictConfidences = []string{ConfidenceHigh, ConfidenceMedium, ConfidenceLow}
)

// The values of Verdict.Blame: whose side the trouble is on.
const (
	BlameProvider = "provider"
	BlameClient   = "client"
	// BlameNetwork: the network between the caller's region and the
	// provider (a regional or path problem), neither side's service.
	BlameNetwork = "network"
	BlameUnknown = "unknown"
)

// The values of Verdict.Confidence.
const (
	ConfidenceHigh   = "high"
	ConfidenceMedium = "medium"
	ConfidenceLow    = "low"
)

// Evidence is one fact behind a verdict's advice.
type Evidence struct {
	// Source is EvidenceOfficial (the status page's word), EvidenceProbe
	// (our own probes) or EvidenceHistory (recent incidents).
	Source string `json:"source"`
	Says   string `json:"says"`
	// AgeSeconds is how long ago the fact was observed.
	AgeSeconds int `json:"ageSeconds"`
	// The crowd's figures, on EvidenceReports only: the window's State
	// ("normal", "surge" or "unknown"), when it was counted (ObservedAt),
	// its Count of distinct networks and the usual count at that hour
	// (Baseline, absent until counting has run a whole day).
	State      string     `json:"state,omitempty"`
	ObservedAt *time.Time `json:"observedAt,omitempty"`
	Count      *int       `json:"count,omitempty"`
	Baseline   *float64   `json:"baseline,omitempty"`
}

// Evidence sources.
const (
	EvidenceOfficial = "official"
	EvidenceProbe    = "probe"
	EvidenceHistory  = "history"
	// EvidenceMeasured is our own completions of the service's models.
	EvidenceMeasured = "measured"
	// EvidenceCaller is what the caller told us: the provider's error code
	// and what its documentation says it means.
	EvidenceCaller = "caller"
	// EvidenceReports is the crowd: from how many distinct networks callers
	// reported an error for the service through /check in the current 5
	// minutes.
	EvidenceReports = "reports"
	// EvidenceGateway is a model gateway's telemetry of its own traffic.
	EvidenceGateway = "gateway"
	// EvidenceVantage is what one vantage point (a replica probing from
	// its region) saw of the API host.
	EvidenceVantage = "vantage"
)

// EvidenceSources lists the values of Evidence.Source.
var EvidenceSources = []string{EvidenceOfficial, EvidenceProbe, EvidenceMeasured, EvidenceHistory, EvidenceCaller, EvidenceReports, EvidenceGateway, EvidenceVantage}

// CheckAlternative is a tracked service that can stand in for the checked
// one, with its current status.
type CheckAlternative struct {
	Slug   string `json:"slug"`
	Name   string `json:"name"`
	Status Status `json:"status"`
	// Why is the catalog's reason it can stand in.
	Why string `json:"why"`
}

// Problem is an RFC 9457 problem details body, used for every error.
type Problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail"`
	// Param names the query or path parameter at fault, when there is one.
	Param string `json:"param,omitempty"`
}

// SourcesDoc is the response of GET /sources: the health of every
// service's official source and of our probe, in one document, so that
// whoever runs aistatus sees at once which pages moved or stopped answering.
type SourcesDoc struct {
	Services []ServiceSources `json:"services"`
	// Vantages is the health of the vantages' reports this cycle; absent
	// when the build reads none (no Redis).
	Vantages *VantageSource `json:"vantages,omitempty"`
	// Models are the health of the model sources (as in models.json):
	// the gateways, their model lists and the makers' deprecation pages,
	// each page with the retirement dates where it and a list disagree.
	Models    []ModelSourceHealth `json:"models"`
	Timestamp time.Time           `json:"timestamp"`
	License   string              `json:"license"`
}

// ServiceSources is one service's entry in SourcesDoc.
type ServiceSources struct {
	Slug       string `json:"slug"`
	Name       string `json:"name"`
	StatusPage string `json:"statusPage"`
	Status     Status `json:"status"`
	Basis      Basis  `json:"basis"` // what Status rests on
	// The fields of Sources, inline.
	Feed         FeedSource    `json:"feed"`
	Probe        ProbeSource   `json:"probe"`
	Disagreement *Disagreement `json:"disagreement"`
	Vantages     *Vantages     `json:"vantages,omitempty"`
	// Measured is as in ServiceDoc: our completions per model.
	Measured []MeasuredModel `json:"measured"`
}
