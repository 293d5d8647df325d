package history

import (
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
)

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
func ModelStatusOf(uptime *float64) api.Status {
	switch {
	case uptime == nil:
		return api.Unknown
	case *uptime < ModelMajorBelow:
		return api.MajorOutage
	case *uptime < ModelPartialBelow:
		return api.PartialOutage
	case *uptime < ModelDegradedBelow:
		return api.Degraded
	}
	return api.Operational
}

// ModelStatusSource is the first entry (at service, "" for any) whose
// status is BestModelStatus's, at a service whose agreed status it is (an
// entry of a service whose witnesses agree on worse does not give it); nil
// when that is unknown.
func ModelStatusSource(providers []api.ModelProvider, service string) *api.ModelStatusFrom {
	// Each service's agreed status, made once: the best of them is
	// BestModelStatus's.
	agreedAt := map[string]api.Status{}
	best := api.Unknown
	for _, a := range ModelAgreements(providers, nil) {
		if service == "" || a.Service == service {
			agreedAt[a.Service] = a.Status
			if api.CompareUsable(a.Status, best) < 0 {
				best = a.Status
			}
		}
	}
	if best == api.Unknown {
		return nil
	}
	for _, p := range providers {
		if agreedAt[p.Service] == best && p.Status == best {
			return &api.ModelStatusFrom{Service: p.Service, Provider: p.Provider, Source: p.Source}
		}
	}
	return nil
}

// BestModelStatus is a model's status at service, as its witnesses there
// agree (AgreeModelStatus), or for "" the best of those over every
// service, best by api.CompareUsable: unknown when none is known, never
// borrowed from anywhere else.
func BestModelStatus(providers []api.ModelProvider, service string) api.Status {
	if service != "" {
		return AgreeModelStatus(service, ModelWitnesses(providers, service)).Status
	}
	best := api.Unknown
	for _, a := range ModelAgreements(providers, nil) {
		if api.CompareUsable(a.Status, best) < 0 {
			best = a.Status
		}
	}
	return best
}

// ModelRulesStatement says the rules in words.
const ModelRulesStatement = "A gateway's uptime is the share of the gateway's own requests to that model at that provider that succeeded " +
	"over the window (OpenRouter's 5 minutes, Vercel's 15; rate-limited requests excluded, as the gateway counts them): its traffic, not your key's. " +
	"At or above degradedBelow % the model is operational at that provider, below it degraded, below partialBelow % a partial outage, " +
	"below majorBelow % a major outage; " +
	"no figure (too little traffic) is unknown. A status-page component is the vendor's word. A model's status at a service is what " +
	"its witnesses there agree on: one gateway's failures alone, while another witness sees the model working, are that gateway's " +
	"routing, not the provider's; two witnesses failing are the provider's trouble. A model's status is the best of those (where it " +
	"can be used now); a model no source reports on is unknown, never its service's status."

// CurrentModelRules returns the rules in force.
func CurrentModelRules() api.ModelRules {
	return api.ModelRules{Window: ModelWindow, DegradedBelow: ModelDegradedBelow, PartialBelow: ModelPartialBelow, MajorBelow: ModelMajorBelow,
		Statement: ModelRulesStatement}
}

// ModelHistory is what a cycle hands on about models: its word on each
// watched model (the documents are rendered from it) and the health of
// each model source, which the next cycle carries on.
type ModelHistory struct {
	At      time.Time               `json:"at"`
	Models  []api.ModelDoc          `json:"models"`
	Sources []api.ModelSourceHealth `json:"sources"`
	// Lists are the last good read of each gateway's model list, by
	// gateway id: when a read fails, the list read before stands.
	Lists map[string]*ModelList `json:"lists,omitempty"`
	// ReadAt is when each watched model's gateway documents were last
	// requested, by model id: the rotation reads the longest unread first.
	ReadAt map[string]time.Time `json:"readAt,omitempty"`
	// Retirements are the retirement calendar, by date then id.
	Retirements []api.ModelRetirement `json:"retirements,omitempty"`
	// Pages are the last good read of each maker's deprecation page, by
	// the catalog's id of the page: when a read fails, the page read
	// before stands.
	Pages map[string]*MakerPage `json:"pages,omitempty"`
}

// MakerPage is a maker's deprecation page as last read.
type MakerPage struct {
	Reads
	// Deprecations are the models the page names, each with its day.
	Deprecations []PageDeprecation `json:"deprecations"`
}

// PageDeprecation is one model a maker's page retires.
type PageDeprecation struct {
	// Model is the maker's id ("gpt-4o-2024-05-13").
	Model string `json:"model"`
	Date  string `json:"date"`
	// Alias is an id the page does not write but which names the model by
	// the maker's rule (feed.Deprecation.Alias); Of the written id it
	// stands for.
	Alias bool   `json:"alias,omitempty"`
	Of    string `json:"of,omitempty"`
}

// A maker's deprecation page changes a few times a month and announces
// months ahead: it is asked for once a day (MakerPageEvery), and again
// after an hour (MakerPageRetry) when the last request failed.
const (
	MakerPageEvery = 24 * time.Hour
	MakerPageRetry = time.Hour
)

// Due reports whether the page is to be asked for at now.
func (p *MakerPage) Due(now time.Time) bool {
	if p == nil || p.CheckedAt.IsZero() || p.CheckedAt.After(now) {
		return true
	}
	every := MakerPageEvery
	if !p.ReadAt.Equal(p.CheckedAt) {
		every = MakerPageRetry
	}
	return !now.Before(p.CheckedAt.Add(every))
}

// ModelList is a gateway's model list as last read.
type ModelList struct {
	Reads
	// Models are the listed models of makers the catalog maps and of
	// pinned models: only those can be watched or retired.
	Models []ListedModel `json:"models"`
}

// Reads is what a source read conditionally keeps of its reads (a
// gateway's model list, a maker's page): when it was last asked for and
// last read, the validators of the version read, and the suspect read not
// believed since.
type Reads struct {
	// CheckedAt is the last request, good or not (see Due); ReadAt the
	// last good one.
	CheckedAt time.Time `json:"checkedAt"`
	ReadAt    time.Time `json:"readAt,omitzero"`
	// ETag and LastModified are the validators of the version read, sent
	// back to ask whether it changed.
	ETag         string `json:"etag,omitempty"`
	LastModified string `json:"lastModified,omitempty"`
	// Suspect is the read not believed since the last good one, while
	// reads keep giving it (the plausibility check); nil when the last
	// read was good.
	Suspect *SuspectList `json:"suspect,omitempty"`
}

// Took records a read at now: failed (nothing to take), suspect (not
// believed: remembered, to be taken once it has stood), unchanged (a 304:
// the version read stands) or a new version with its validators. It
// reports whether the read's content is to replace what was kept.
func (r *Reads) Took(now time.Time, failed bool, suspect *SuspectList, unchanged bool, etag, lastModified string) (replace bool) {
	r.CheckedAt = now
	switch {
	case suspect != nil:
		r.Suspect = suspect
	case failed:
	case unchanged:
		r.ReadAt, r.Suspect = now, nil
	default:
		r.ReadAt, r.ETag, r.LastModified, r.Suspect = now, etag, lastModified, nil
		return true
	}
	return false
}

// SuspectList is a model list read that contradicted most of what the
// last good read knew, and so was not taken in.
type SuspectList struct {
	// Since is the first read that gave this list, Fingerprint which
	// models it lists (a hash of their ids): the same suspect list read
	// for long enough is the world's word after all.
	Since       time.Time `json:"since"`
	Fingerprint string    `json:"fingerprint"`
	// Why says what it lost.
	Why string `json:"why"`
}

// ModelListEvery is how often a gateway's model list is asked for at most:
// it changes a few times a week, and a 304 costs little but is still a
// request.
const ModelListEvery = time.Hour

// Due reports whether the list is to be asked for at now.
func (l *ModelList) Due(now time.Time) bool {
	return l == nil || l.CheckedAt.IsZero() || !now.Before(l.CheckedAt.Add(ModelListEvery)) || l.CheckedAt.After(now)
}

// ListedModel is one model of a gateway's list.
type ListedModel struct {
	// ID is the catalog's id of the model; GatewayID the gateway's own,
	// when it spells the maker otherwise (catalog.Gateway.Makers).
	ID        string    `json:"id"`
	GatewayID string    `json:"gatewayId,omitempty"`
	Name      string    `json:"name"`
	Created   time.Time `json:"created"`
	// Expires is the date after which the gateway may remove the model,
	// "YYYY-MM-DD"; "" for none announced.
	Expires string `json:"expires,omitempty"`
}

// DisplayName is a listed model's name without the maker OpenRouter puts
// before it ("Anthropic: Claude Opus 4.7" → "Claude Opus 4.7"), or its id
// when it has none.
func (m ListedModel) DisplayName() string {
	name := m.Name
	if _, rest, ok := strings.Cut(name, ": "); ok && rest != "" {
		name = rest
	}
	if strings.TrimSpace(name) == "" {
		return m.ID
	}
	return name
}

// Source returns the recorded health of the source of that id.
func (m *ModelHistory) Source(id string) (api.ModelSourceHealth, bool) {
	if m == nil {
		return api.ModelSourceHealth{}, false
	}
	for _, s := range m.Sources {
		if s.ID == id {
			return s, true
		}
	}
	return api.ModelSourceHealth{}, false
}
