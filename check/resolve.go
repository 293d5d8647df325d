package check

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/snapshot"
)

// The first stage of a check: the request's parameters are checked, and
// the query resolved to its subject (a service's API, another of its
// surfaces, one component of a surface, or a model at a service), with
// the status the verdict says of it.

// Request is one question to the engine: what the caller asks about, and
// what the caller just saw.
type Request struct {
	// Query names the service: a slug, name, alias, domain or URL.
	Query string
	// Error is what the caller's own call got: an HTTP status from 100 to
	// 599, "timeout" or "connection"; "" for none.
	Error string
	// Code is the error code or type in the provider's error body
	// (insufficient_quota, overloaded_error, RESOURCE_EXHAUSTED); "" for
	// none. A code the service's table lists decides the class of error
	// over the HTTP status.
	Code string
	// RetryAfter is the Retry-After the caller got, in seconds; nil for none.
	RetryAfter *int
	// Model names a watched model (its id, name or an alias) to check at
	// the service q names; "" for none. q may also name a model by itself.
	Model string
	// Client is the caller's address in the crowd (the rate limit's key: an
	// IPv4 address or an IPv6 /64), whose network is its voice (Network);
	// "" when the caller is not counted (the local CLI, an unknown
	// address). Only a request with Error counts.
	Client string
}

// MaxRetryAfter bounds the retryAfter parameter: a day.
const MaxRetryAfter = 86400

// InputError is a request the engine refuses as it stands: the caller's
// mistake, for a 400 that names the parameter.
type InputError struct {
	Param, Detail string
}

func (e *InputError) Error() string { return e.Param + ": " + e.Detail }

// validate checks the request's parameters, the same for every client.
func (req Request) validate() (errorClass, error) {
	switch q := req.Query; {
	case q == "":
		return "", &InputError{"q", "q is required: a service name, domain or URL, e.g. ?q=openai"}
	case len(q) > MaxQuery:
		return "", &InputError{"q", fmt.Sprintf("q is longer than %d bytes", MaxQuery)}
	case !utf8.ValidString(q):
		return "", &InputError{"q", "q is not valid UTF-8"}
	}
	if m := req.Model; len(m) > MaxQuery || !utf8.ValidString(m) {
		return "", &InputError{"model", fmt.Sprintf("model must be a watched model's id or name, valid UTF-8 of at most %d bytes", MaxQuery)}
	}
	class, ok := classifyObserved(req.Error)
	if !ok {
		return "", &InputError{"error", ObservedHelp}
	}
	if req.Code != "" && !catalog.ValidErrorCode(req.Code) {
		return "", &InputError{"code", "code must be the error code or type from the provider's error body: 1 to 64 letters, digits or _.:- (e.g. insufficient_quota, overloaded_error, RESOURCE_EXHAUSTED)"}
	}
	if r := req.RetryAfter; r != nil && (*r < 0 || *r > MaxRetryAfter) {
		return "", &InputError{"retryAfter", fmt.Sprintf("retryAfter must be the Retry-After you got, in whole seconds from 0 to %d", MaxRetryAfter)}
	}
	return class, nil
}

// resolve checks req's parameters and resolves its subject, with the
// class of error the caller saw as the error parameter says it (gather
// reads it again through the service's own table).
func (e *Engine) resolve(view View, req Request) (said, errorClass, error) {
	class, err := req.validate()
	if err != nil {
		return said{}, "", err
	}
	s, err := e.say(view, req)
	return s, class, err
}

// said is what a check says of its subject before any probe or advice:
// which service, surface or model q names, under what name, and its
// status. Check and Statusline both read it, so that the line and the
// verdict cannot say different things of one name.
type said struct {
	// tracked is false when q names nothing aistatus tracks, or the
	// snapshot has no word on the service; the rest is then empty.
	tracked bool
	svc     catalog.Service
	// summary is the service's entry of the snapshot, every surface
	// included; subj.sum is the part the verdict reads.
	summary api.ServiceSummary
	subj    surfaceSubject
	// md is the model q names (or the model parameter), and mf what the
	// snapshot says of it; nil when none.
	md *catalog.Model
	mf *modelFacts
	// name is the verdict's subject: "claude.ai", "Anthropic API", "Groq"
	// (a service that has only its API), "Claude Sonnet 4.5 at Anthropic".
	name   string
	status api.Status
}

// say resolves req's subject in view and reads its status: the
// surface's, or the model's at the service, never the service's borrowed.
func (e *Engine) say(view View, req Request) (said, error) {
	svc, surfaceID, ok, md, err := e.subject(view, req)
	if err != nil {
		return said{}, err
	}
	sum, inSnapshot := view.Summary(svc.Slug)
	if !ok || !inSnapshot {
		return said{}, nil
	}
	s := said{tracked: true, svc: svc, summary: sum, subj: subject(svc, sum, surfaceID).named(req.Query)}
	s.name, s.status = s.subj.name, s.subj.sum.Status
	if md != nil {
		// A model's verdict is the model's at this service, from its own
		// sources: never the service's status borrowed.
		facts := readModel(view, *md, svc)
		s.md, s.mf, s.status = md, &facts, facts.here
		s.name = md.Name + " at " + svc.Name
	}
	return s, nil
}

// doc is the check document as far as the subject goes: the request
// echoed and, for a tracked subject, the service, surface and model, the
// service's other surfaces in trouble, and the subject's status and basis.
func (s said) doc(req Request, now time.Time) api.CheckDoc {
	doc := api.CheckDoc{Query: req.Query, Timestamp: now.UTC(), License: api.License, OtherSurfaces: []api.CheckOtherSurface{}}
	if req.Error != "" {
		doc.Error = &req.Error
	}
	if req.Code != "" {
		doc.Code = &req.Code
	}
	doc.RetryAfter = req.RetryAfter
	if !s.tracked {
		return doc
	}
	svc, subj := s.svc, s.subj
	doc.Tracked = true
	doc.Service = &api.CheckService{Slug: svc.Slug, Name: svc.Name, Domain: svc.Domain}
	doc.Surface = &api.CheckSurface{ID: subj.id, Name: svc.SurfaceName(subj.id), Component: subj.component}
	doc.OtherSurfaces = otherSurfaces(s.summary, subj.id)
	if s.mf != nil {
		doc.Model = s.mf.checkModel()
	}
	status := s.status
	doc.Status = &status
	if basis := subj.sum.Basis; basis.Valid() && s.mf == nil {
		// A snapshot written before statuses had a basis has none: null,
		// not a guess.
		doc.Basis = &basis
	}
	return doc
}

// untracked is the verdict on a query that names nothing aistatus tracks:
// no advice for a service we know nothing of (the action fields are left
// out), the names it may have meant, and the lists empty rather than null.
func (e *Engine) untracked(q string) api.Verdict {
	return api.Verdict{
		Headline:     fmt.Sprintf("%q is not a service aistatus tracks", api.Truncate(q, 64)),
		Emoji:        "❓",
		Level:        "untracked",
		Suggestions:  e.matcher.Suggest(q),
		Evidence:     []api.Evidence{},
		Alternatives: []api.CheckAlternative{},
	}
}

// A check can be about a model: q names a watched model
// ("claude-sonnet-4.5", "anthropic/claude-sonnet-4.5", an alias), or q names
// a service and the model parameter the model. The verdict is then the
// model's at that service (q's, or else the model's maker's), from what the
// model's sources say there, never the service's status; the alternatives
// are the other services that serve the model and are up; the same rule
// table decides.

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

// modelIndex maps the normalised names of the watched models (id, the
// model part of the id, name, aliases) to the models.
// PinnedModels resolves a name to the pinned model of cat it names, as
// /check does: by its id, the model part of it, its name or an alias.
func PinnedModels(cat catalog.Catalog) func(name string) (catalog.Model, bool) {
	idx := modelIndex(cat)
	return func(name string) (catalog.Model, bool) {
		md, ok := idx[nameKey(name)]
		return md, ok
	}
}

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

// A check can be about a model the catalog does not pin: one found in a
// gateway's list and watched by rule, or one on the retirement calendar.
// A retired model's check is the caller's to fix, never an outage: the
// request names a model that is gone (or, with a 404 or a model-not-found
// code, that is announced to go), and the answer names newer models of
// the same maker that are up (applyRetirement, in decide.go).

// matchModel returns the model q names: a pinned model (by id, model part,
// name or alias), else a watched or retired model of the view (by id,
// model part or name), else the one watched or retired model whose
// people's name it is (peopleNames: "opus 5.5" for Claude Opus 5.5). A
// people's name that two models share names neither. The view's models
// are looked up in its ModelNames, made once per snapshot where the view
// keeps one (ModelNamer), else made here.
func (e *Engine) matchModel(view View, q string) (catalog.Model, bool) {
	key := nameKey(q)
	if md, ok := e.models[key]; ok {
		return md, true
	}
	if key == "" {
		return catalog.Model{}, false
	}
	switch v := view.(type) {
	case ModelNamer:
		return v.ModelNames().lookup(key)
	case LifecycleView:
		return IndexModelNames(v.WatchedModels(), v.Retirements()).lookup(key)
	}
	return catalog.Model{}, false
}

// ModelNamer is a LifecycleView that keeps its models' names indexed, made
// once (IndexModelNames), so that a check naming no model (the miss path,
// anyone's to ask) costs a lookup, not a pass over every watched and
// retired model.
type ModelNamer interface {
	LifecycleView
	ModelNames() *ModelNames
}

// ModelNames indexes a snapshot's watched and retired models by the names
// a check answers to: exact, each model by its id, the model part of it
// and its name (the first model in watch order, then the calendar's,
// wins); people, the names people use (peopleNames), "" for a name two
// models share, which names neither.
type ModelNames struct {
	exact, people map[string]catalog.Model
}

// IndexModelNames indexes watched (models.json's order) and the retirement
// calendar.
func IndexModelNames(watched []api.ModelDoc, retirements []api.ModelRetirement) *ModelNames {
	n := &ModelNames{exact: map[string]catalog.Model{}, people: map[string]catalog.Model{}}
	add := func(md catalog.Model) {
		_, rest, _ := strings.Cut(md.ID, "/")
		for _, k := range []string{nameKey(md.ID), nameKey(rest), nameKey(md.Name)} {
			if _, taken := n.exact[k]; !taken && k != "" {
				n.exact[k] = md
			}
		}
		for _, name := range peopleNames(md.Name) {
			k := nameKey(name)
			switch other, taken := n.people[k]; {
			case !taken:
				n.people[k] = md
			case other.ID != md.ID:
				n.people[k] = catalog.Model{} // shared: no one's
			}
		}
	}
	for _, d := range watched {
		add(catalog.Model{ID: d.ID, Name: d.Name, Author: d.Author, Service: d.Service})
	}
	for _, r := range retirements {
		author, _, _ := strings.Cut(r.ID, "/")
		add(catalog.Model{ID: r.ID, Name: r.Name, Author: author, Service: r.Service})
	}
	return n
}

// lookup is the model key (nameKey) names.
func (n *ModelNames) lookup(key string) (catalog.Model, bool) {
	if md, ok := n.exact[key]; ok {
		return md, true
	}
	if md, ok := n.people[key]; ok && md.ID != "" {
		return md, true
	}
	return catalog.Model{}, false
}

// peopleNames are the names people use for a model found by rule, beside
// its id and name (the gateway's, its maker's prefix already cut): the
// name without its brand word ("Claude Opus 5.5" → "Opus 5.5"), without
// a last word "Preview" ("Gemini 3 Pro Preview" → "Gemini 3 Pro"), and
// without both. The first word is a brand word only when a word follows
// it that begins with a letter and a version follows that: "Grok 4" and
// "Gemini 3 Pro" keep theirs ("4" or "3 Pro" names nothing), and so do
// "Command A" and "Sonar Pro" (no version: "A" and "Pro" would name too
// much). Pinned models carry their own aliases instead.
func peopleNames(name string) []string {
	words := strings.Fields(name)
	bases := [][]string{words}
	if n := len(words); n > 1 && strings.EqualFold(strings.Trim(words[n-1], "()"), "preview") {
		bases = append(bases, words[:n-1])
	}
	var out []string
	for i, w := range bases {
		if i > 0 {
			out = append(out, strings.Join(w, " "))
		}
		if len(w) >= 3 && unicode.IsLetter([]rune(w[1])[0]) && slices.ContainsFunc(w[2:], hasDigit) {
			out = append(out, strings.Join(w[1:], " "))
		}
	}
	return out
}

// hasDigit reports whether s has a digit: a version ("5.5", "V4", "2512").
func hasDigit(s string) bool { return strings.ContainsFunc(s, unicode.IsDigit) }

// modelFacts is what the snapshot says of a model, for a check at svc.
type modelFacts struct {
	md   catalog.Model
	doc  api.ModelDoc
	here api.Status // the model's status at the checked service
	// agreement is its witnesses' word there, which gives here; nil when
	// no source reports on it there.
	agreement *api.ModelAgreement
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
	if i := slices.IndexFunc(mf.doc.Agreement, func(a api.ModelAgreement) bool { return a.Service == svc.Slug }); i >= 0 {
		mf.agreement = &mf.doc.Agreement[i]
	} else if ws := history.ModelWitnesses(mf.doc.Providers, svc.Slug); len(ws) > 0 {
		// A document written before agreements were: the same rule on
		// its entries.
		a := history.AgreeModelStatus(svc.Slug, ws)
		mf.agreement = &a
	}
	return mf
}

// checkModel is the model as the check document shows it.
func (mf modelFacts) checkModel() *api.CheckModel {
	return &api.CheckModel{ID: mf.md.ID, Name: mf.md.Name, Status: mf.here, Providers: mf.doc.Providers, Agreement: mf.agreement}
}

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
