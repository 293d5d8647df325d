// Package check is /check's engine: "is it me or them?". It resolves a
// query to a tracked service, gathers what a snapshot and our own live probe
// say about it, and advises a caller that has just seen an error.
//
// The engine reads a snapshot through View and our probes through Prober,
// both small interfaces, so that the thin server (serve), `aistatus check`
// and the MCP server ask the same engine, and its tests need no server: a
// fake view is enough. A request walks down four stages, a file each, once
// (Engine.Check):
//
//   - resolve.go: the request's parameters checked, and its subject: the
//     service, surface or model the query names, with its status;
//   - facts.go: the facts gathered: our live probes, the snapshot's
//     incidents and measurements, the caller's error as the service's
//     table reads it, the crowd, the alternatives (evidence.go says them);
//   - decide.go: the verdict phrased, and the advice of the one table of
//     rules (rules.go) that turns the facts into advice;
//   - resume.go: when to come back: how long the incident typically lasts,
//     when to ask again and what will end the wait.
//
// Beside them: match.go matches a query to a service (name, alias, domain,
// URL) and suggests for a near miss; live.go is the live probe, cached and
// coalesced; crowd.go counts callers' reports; stack.go and statusline.go
// ask the engine about several services at once.
package check

import (
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
)

// MaxQuery caps /check's q, in bytes.
const MaxQuery = 256

// View is what the engine reads of a snapshot. A view never changes while
// it is read: the server hands one snapshot to a whole request.
type View interface {
	// GeneratedAt is when the snapshot was built; the history window counts
	// back from it.
	GeneratedAt() time.Time
	// Age is how old the snapshot is at now, and whether that is too old to
	// trust (a snapshot from the future beyond the clock skew allowance is
	// stale too).
	Age(now time.Time) (age time.Duration, stale bool)
	// Summary is a service's entry of status.json; false when the snapshot
	// has none.
	Summary(slug string) (api.ServiceSummary, bool)
	// OpenIncidents are the service's open incidents, newest first. They
	// belong to the view: never modified.
	OpenIncidents(slug string) []*api.Incident
	// IncidentsSince counts the service's incidents that started at or
	// after since, and returns the newest of them (nil when none).
	IncidentsSince(slug string, since time.Time) (count int, latest *api.Incident)
	// BuildProbe is our probe of the service in the latest build, and when
	// it was made; false when the snapshot has none.
	BuildProbe(slug string) (Live, bool)
	// Measured is what our completions measured of the service's models
	// in the latest build; empty when none was measured.
	Measured(slug string) []api.MeasuredModel
	// Reliability is what the service's retained history predicts
	// (api.Reliability); false when the snapshot has none.
	Reliability(slug string) (api.Reliability, bool)
	// Vantages is what every vantage point saw of the service's API host
	// in the latest build; false when the build read none.
	Vantages(slug string) (api.Vantages, bool)
}

// ModelView is what the engine reads of a snapshot's models. A View that
// is also a ModelView lets a check answer for a model; with one that is
// not (an older snapshot), a model reads unknown.
type ModelView interface {
	// Model is the watched model's entry of models.json; false when the
	// snapshot has none.
	Model(id string) (api.ModelDoc, bool)
}

// LifecycleView is what the engine reads of a snapshot's model lifecycle.
// A View that is not one knows only the catalog's pinned models, and no
// retirement.
type LifecycleView interface {
	// WatchedModels are models.json's models, in its order.
	WatchedModels() []api.ModelDoc
	// Retirement is the model's entry of the retirement calendar; false
	// when it has none.
	Retirement(id string) (api.ModelRetirement, bool)
	// Retirements are the retirement calendar.
	Retirements() []api.ModelRetirement
}

// Vantage is where the checker runs, which says whose network its own
// probes test when they fail.
type Vantage int

const (
	// FromServer: the checker is a server (/check, the MCP server); its
	// network is its own.
	FromServer Vantage = iota
	// FromCaller: the checker runs on the caller's machine (aistatus
	// check); its network is the caller's.
	FromCaller
)

// Engine answers /check questions. It is safe for concurrent use.
type Engine struct {
	cat     catalog.Catalog
	matcher *Matcher
	// prober is our live probe of a service's API; nil means none, and the
	// snapshot's word on our probes stands alone.
	prober  Prober
	now     func() time.Time
	vantage Vantage
	// egress are, by each catalog probe URL, the other providers' probe
	// URLs the egress check probes when that one fails (egressDown),
	// picked once: a check during an outage, when everyone asks, would
	// otherwise parse every probe URL of the catalog.
	egress map[string][]string
	// models are the watched models by normalised name (modelIndex, resolve.go).
	models map[string]catalog.Model
	// crowd counts callers' reports (crowd.go); nil counts none.
	crowd Crowd
	// here is the vantage point the engine's live probes are made from
	// (serve --vantage), the region of the callers it answers; "" for none.
	here string
}

// AtVantage says the engine's live probes are made from the vantage point
// name (serve --vantage): its probe is its callers' region's, and when it
// fails while other vantages reach the host the advice is to route
// elsewhere, not to fail over. "" changes nothing. It returns e.
func (e *Engine) AtVantage(name string) *Engine {
	e.here = name
	return e
}

// CountReports makes the engine count every request with an error and a
// client as a report in crowd, and cite the count. It returns e.
func (e *Engine) CountReports(crowd Crowd) *Engine {
	e.crowd = crowd
	return e
}

// New returns an engine for a catalog. The catalog is the only source of
// URLs it ever probes, never the query.
func New(cat catalog.Catalog, prober Prober, now func() time.Time, vantage Vantage) *Engine {
	return &Engine{cat: cat, matcher: NewMatcher(cat), prober: prober, now: now, vantage: vantage, models: modelIndex(cat),
		egress: egressURLs(cat)}
}

// Check answers req against view: the service's status phrased for people
// and, with the advice of the first matching rule (see rules.go), what to
// do about the error the caller saw. A request it refuses is an
// *InputError. The request walks down the stages once: resolve its
// subject, gather the facts, decide, advise when to come back.
//
// It reads status.json and models.json (view), not the snapshot's
// situation: its answer adds what only a request knows (a live probe,
// the caller's error, the crowd), and the statuses it starts from are the
// same values the situation is made from, which the build's consistency
// tests hold equal.
func (e *Engine) Check(view View, req Request) (api.CheckDoc, error) {
	s, class, err := e.resolve(view, req)
	if err != nil {
		return api.CheckDoc{}, err
	}
	now := e.now()
	doc := s.doc(req, now)
	if !s.tracked {
		doc.Verdict = e.untracked(req.Query)
		return doc, nil
	}
	f := e.gather(view, req, s, class, now)
	decideVerdict(&doc, view, req, s, f)
	comeBack(&doc, view, s, f)
	return doc, nil
}
