// Package fallback makes fallback plans: where to send a watched model's
// requests now, best first, from what its sources say of each provider in
// a snapshot, and the same plan written as the configuration of LiteLLM,
// OpenRouter, the Vercel AI Gateway and Portkey (render.go).
//
// A plan reads a snapshot through View, as /check does through check.View:
// the thin server's Snapshot, or a test's fake.
package fallback

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/check"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/snapshot"
)

// View is what a plan reads of a snapshot.
type View interface {
	// Model is the watched model's entry of models.json.
	Model(id string) (api.ModelDoc, bool)
	// WatchedModels are models.json's models, in its order.
	WatchedModels() []api.ModelDoc
	// Retirement is the model's entry of the retirement calendar.
	Retirement(id string) (api.ModelRetirement, bool)
	// Measured is a service's measured completions.
	Measured(slug string) []api.MeasuredModel
	// Summary is a service's entry of status.json.
	Summary(slug string) (api.ServiceSummary, bool)
	// GeneratedAt is when the snapshot was built.
	GeneratedAt() time.Time
	// Reports is the crowd's count of callers reporting errors at a
	// service now (check.Crowd); false when none is kept.
	Reports(slug string) (check.ReportCount, bool)
}

// Planner makes the plans of one catalog.
type Planner struct {
	cat     catalog.Catalog
	matcher *check.Matcher
}

// New returns the planner of cat.
func New(cat catalog.Catalog) *Planner {
	return &Planner{cat: cat, matcher: check.NewMatcher(cat)}
}

// statusOrder says api.CompareUsable's order, the first step of every
// plan's: "operational, degraded, maintenance, partial_outage,
// major_outage, unknown last".
var statusOrder = func() string {
	var names []string
	for _, st := range api.ByUsability() {
		names = append(names, string(st))
	}
	return strings.Join(names, ", ") + " last"
}()

// Order is the rule the targets follow, published with them.
var Order = "Best first: by the status the target's witnesses agree on (" + statusOrder + "; one gateway's failures alone are its own routing), " +
	"then the gateways' best uptime (higher first), then our measured error rate over the last hour (lower first), " +
	"then our measured time to first token (p50, lower first). A surge of callers' reports on /check is evidence on its target (crowdSurge), never a step of this order. " +
	"The model's own providers come before the other models of its maker, " +
	"which are offered only when up."

// ForModel is the plan of the watched model id. An id the snapshot does
// not watch is a *check.InputError naming param.
func (p *Planner) ForModel(view View, id, param string) (api.FallbackPlan, error) {
	doc, ok := view.Model(id)
	if !ok {
		return api.FallbackPlan{}, &check.InputError{Param: param, Detail: fmt.Sprintf("%q is not a watched model: send its id, author/model, as %s lists it",
			api.Truncate(id, 64), snapshot.PathModels)}
	}
	md := p.modelOf(doc)
	plan := api.FallbackPlan{Model: &api.FallbackModel{ID: doc.ID, Name: doc.Name, Status: doc.Status},
		Order: Order, Timestamp: view.GeneratedAt(), License: api.License, Targets: []api.FallbackTarget{}}
	if r, ok := view.Retirement(doc.ID); ok {
		plan.Model.Retirement = &r
	}
	own := p.targets(view, md, doc)
	sortTargets(own)
	plan.Targets = append(plan.Targets, own...)
	for _, sib := range p.siblings(view, doc) {
		var up []api.FallbackTarget
		for _, t := range p.targets(view, p.modelOf(sib), sib) {
			if (t.Status == api.Operational || t.Status == api.Degraded) && len(t.Formats) > 0 {
				t.Sibling = true
				up = append(up, t)
			}
		}
		sortTargets(up)
		plan.Targets = append(plan.Targets, up...)
	}
	for i := range plan.Targets {
		plan.Targets[i].Rank = i + 1
	}
	plan.Summary = modelSummary(doc.Name, plan.Targets)
	return plan, nil
}

// ForQuery is the plan q asks for: a watched model's when q is its id,
// else the service q names (by name, alias, domain or URL, as /check
// matches it): the service and its curated alternatives, by status.
func (p *Planner) ForQuery(view View, q string) (api.FallbackPlan, error) {
	if _, ok := view.Model(q); ok {
		return p.ForModel(view, q, "q")
	}
	svc, ok := p.matcher.Match(q)
	if !ok {
		detail := fmt.Sprintf("%q names no tracked service and no watched model: send a service's name, alias or domain, or a model's id (see %s)",
			api.Truncate(q, 64), snapshot.PathModels)
		if s := p.matcher.Suggest(q); len(s) > 0 {
			detail += "; did you mean " + api.JoinList(s, " or ") + "?"
		}
		return api.FallbackPlan{}, &check.InputError{Param: "q", Detail: detail}
	}
	plan := api.FallbackPlan{Order: "Best first by the service's status (" + statusOrder + "); " +
		"the service, then its curated alternatives (the same models first, then the same kind of work).",
		Timestamp: view.GeneratedAt(), License: api.License, Targets: []api.FallbackTarget{}}
	at := view.GeneratedAt()
	add := func(s catalog.Service, why string) api.FallbackTarget {
		sum, _ := view.Summary(s.Slug)
		st := cmp.Or(sum.Status, api.Unknown)
		says := fmt.Sprintf("%s is %s by aistatus's status (its official page and our probes).", s.Name, st)
		if why != "" {
			says += " " + why
		}
		t := api.FallbackTarget{Service: s.Slug, Provider: s.Name, Status: st, Formats: []string{},
			Evidence: []api.FallbackEvidence{{Source: api.EvidenceOfficial, Says: says, At: at, URL: s.StatusPage}}}
		plan.Targets = append(plan.Targets, t)
		return t
	}
	self := add(svc, "")
	plan.Service = &api.FallbackService{Slug: svc.Slug, Name: svc.Name, Status: self.Status}
	for _, alt := range svc.Alternatives {
		if s, ok := p.cat.Lookup(alt.Slug); ok {
			add(s, alt.Why)
		}
	}
	slices.SortStableFunc(plan.Targets, func(a, b api.FallbackTarget) int { return api.CompareUsable(a.Status, b.Status) })
	for i := range plan.Targets {
		plan.Targets[i].Rank = i + 1
	}
	plan.Summary = serviceSummary(svc.Name, plan.Targets)
	return plan, nil
}

// modelOf is the catalog's entry of a watched model; a model watched by
// rule (found in the gateway's list) has none, and only its id and name.
func (p *Planner) modelOf(doc api.ModelDoc) catalog.Model {
	if md, ok := p.cat.Models.Lookup(doc.ID); ok {
		return md
	}
	return catalog.Model{ID: doc.ID, Name: doc.Name, Author: doc.Author, Service: doc.Service}
}

// providerOf is the provider a model entry stands for: a gateway's entry
// names it (by the catalog's name of it: Vercel's "bedrock" is "Amazon
// Bedrock"); a status page's component or our measured completions are the
// service's, which is the provider a gateway maps to it when only one is
// (Anthropic), else the service by its name.
func (p *Planner) providerOf(e api.ModelProvider) string {
	if e.Source.Kind == api.ModelSourceGateway {
		return p.cat.Models.ProviderName(e.Source.ID, e.Provider)
	}
	if only, ok := p.onlyProvider(e.Service); ok {
		return only
	}
	return e.Provider
}

// onlyProvider is the one gateway provider name mapped to slug; false when
// none is, or several are (Google's AI Studio and Vertex are both Google
// Gemini's). A gateway switched off names nothing here: its entries are
// not in the plan either.
func (p *Planner) onlyProvider(slug string) (string, bool) {
	var names []string
	for _, g := range p.cat.Models.Gateways {
		if !g.Enabled {
			continue
		}
		for name, s := range g.Providers {
			if name = p.cat.Models.ProviderName(g.ID, name); s == slug && !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	if len(names) != 1 {
		return "", false
	}
	return names[0], true
}

// apiModel is the model's id at provider: the catalog's apiModels, else
// the name a service's measured completions send it by, where that
// service is the provider's only one.
func (p *Planner) apiModel(md catalog.Model, slug, provider string) *string {
	if am, ok := md.APIModel(provider); ok {
		return &am.Model
	}
	svc, ok := p.cat.Lookup(slug)
	if only, single := p.onlyProvider(slug); !ok || svc.Completion == nil || !single || only != provider {
		return nil
	}
	for _, m := range svc.Completion.Models {
		if m.ID == md.ID {
			return &m.Model
		}
	}
	return nil
}

// targets are the model's providers, each once (a gateway's regions of one
// provider, and its entries at two gateways, are one target, with the best
// figure), in the order found: the model's entries, then the providers only
// the catalog names. A target's status is what its witnesses agree on
// (history.AgreeModelStatus): a provider failing at one gateway only is
// that gateway's trouble, and ranks as the others see it.
func (p *Planner) targets(view View, md catalog.Model, doc api.ModelDoc) []api.FallbackTarget {
	at := view.GeneratedAt()
	var out []api.FallbackTarget
	index := map[string]int{}
	entries := map[int][]api.ModelProvider{} // by index in out
	// target is the index in out of the target of provider at slug, made
	// when new.
	target := func(slug, provider string) int {
		key := slug + "\x00" + provider
		if i, ok := index[key]; ok {
			return i
		}
		index[key] = len(out)
		out = append(out, api.FallbackTarget{Model: md.ID, ModelName: cmp.Or(md.Name, doc.Name), Service: slug, Provider: provider,
			APIModel: p.apiModel(md, slug, provider), Status: api.Unknown, Evidence: []api.FallbackEvidence{}})
		return len(out) - 1
	}
	for _, e := range doc.Providers {
		i := target(e.Service, p.providerOf(e))
		t := &out[i]
		entries[i] = append(entries[i], e)
		if e.Source.Kind == api.ModelSourceGateway {
			if t.GatewayProviders == nil {
				t.GatewayProviders = map[string]string{}
			}
			if _, named := t.GatewayProviders[e.Source.ID]; !named {
				t.GatewayProviders[e.Source.ID] = e.Provider
			}
		}
		ev := api.FallbackEvidence{Source: e.Source.Evidence(), Says: says(doc.Name, e), At: at, URL: e.Source.URL}
		if e.Source.Kind == api.ModelSourceGateway && e.Uptime != nil && (t.Uptime == nil || *e.Uptime > *t.Uptime) {
			t.Uptime = e.Uptime
		}
		if e.Source.Kind == api.ModelSourceMeasured {
			for _, m := range view.Measured(e.Service) {
				if m.Model != md.ID {
					continue
				}
				t.ErrorRate, t.TTFTMs = m.Windows.Hour.ErrorRate, m.Windows.Hour.TTFTMs.P50
				t.TTFTP95Ms = m.Windows.Day.TTFTMs.P95
				if m.LastSampleAt != nil {
					ev.At = *m.LastSampleAt
				}
				ev.Says += measuredFigures(m.Windows.Hour)
			}
		}
		t.Evidence = append(t.Evidence, ev)
	}
	for _, am := range md.APIModels {
		if slug, ok := p.cat.Models.ProviderService(am.Provider); ok {
			if _, known := index[slug+"\x00"+am.Provider]; !known {
				t := &out[target(slug, am.Provider)]
				t.Evidence = append(t.Evidence, api.FallbackEvidence{Source: api.EvidenceOfficial, At: at, URL: am.Doc,
					Says: fmt.Sprintf("%s serves %s as %s, per its documentation; no source reports on it there, so its status is unknown.", am.Provider, md.Name, am.Model)})
			}
		}
	}
	for i, es := range entries {
		a := history.AgreeModelStatus(out[i].Service, history.ModelWitnesses(es, out[i].Service))
		out[i].Status, out[i].Agreement = a.Status, &a
	}
	for i := range out {
		out[i].Formats = p.formats(md, out[i])
		out[i].Timeouts = timeoutsOf(out[i].TTFTP95Ms)
	}
	markSurges(view, out)
	return out
}

// The timing rule (docs/api.md, "Fallback plans"): a gateway fails over
// from a provider that errs at once, but waits on one that is silent, or
// slow to its first token, as long as its timeout lets it (a public
// benchmark saw gateways retry a silent provider for 91-96 s). A target's
// first token is awaited FirstTokenFactor times our measured p95 over the
// last day, and never less than FirstTokenFloor: our completions ask for
// a few tokens on a short prompt, and a long prompt's first token comes
// later; a target we do not measure gets the floor. A whole answer not
// streamed is awaited that, plus AnswerBudget for its tokens.
const (
	FirstTokenFloor  = 10 * time.Second
	FirstTokenFactor = 4
	AnswerBudget     = 60 * time.Second
)

// timeoutsOf are the waits for a target whose first token's p95 is p95Ms
// (nil: not measured), up to whole seconds.
func timeoutsOf(p95Ms *float64) *api.FallbackTimeouts {
	first := FirstTokenFloor
	if p95Ms != nil {
		first = max(first, time.Duration(FirstTokenFactor**p95Ms*float64(time.Millisecond)))
	}
	first = (first + time.Second - 1).Truncate(time.Second)
	return &api.FallbackTimeouts{FirstTokenMs: int(first.Milliseconds()), RequestMs: int((first + AnswerBudget).Milliseconds())}
}

// siblings are the other watched models of the same maker that are up and
// not retired, best status first, then the newest, at most
// api.MaxFallbackSiblings with a target some format can name.
func (p *Planner) siblings(view View, doc api.ModelDoc) []api.ModelDoc {
	var cands []api.ModelDoc
	for _, m := range view.WatchedModels() {
		if m.ID == doc.ID || m.Author != doc.Author || (m.Status != api.Operational && m.Status != api.Degraded) {
			continue
		}
		if r, ok := view.Retirement(m.ID); ok && r.State == api.RetirementRetired {
			continue
		}
		cands = append(cands, m)
	}
	slices.SortStableFunc(cands, func(a, b api.ModelDoc) int {
		if d := api.CompareUsable(a.Status, b.Status); d != 0 {
			return d
		}
		switch {
		case a.Created != nil && b.Created != nil:
			return b.Created.Compare(*a.Created)
		case a.Created != nil:
			return -1
		case b.Created != nil:
			return 1
		}
		return 0
	})
	var out []api.ModelDoc
	for _, m := range cands {
		if len(out) == api.MaxFallbackSiblings {
			break
		}
		if slices.ContainsFunc(p.targets(view, p.modelOf(m), m), func(t api.FallbackTarget) bool {
			return len(t.Formats) > 0 && (t.Status == api.Operational || t.Status == api.Degraded)
		}) {
			out = append(out, m)
		}
	}
	return out
}

// sortTargets orders targets best first (Order).
func sortTargets(ts []api.FallbackTarget) {
	slices.SortStableFunc(ts, func(a, b api.FallbackTarget) int {
		if d := api.CompareUsable(a.Status, b.Status); d != 0 {
			return d
		}
		if d := figureFirst(a.Uptime, b.Uptime, -1); d != 0 {
			return d
		}
		if d := figureFirst(a.ErrorRate, b.ErrorRate, 1); d != 0 {
			return d
		}
		return figureFirst(a.TTFTMs, b.TTFTMs, 1)
	})
}

// figureFirst orders two figures, a figure before none: the lower first
// for sign 1, the higher first for sign -1.
func figureFirst(a, b *float64, sign int) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return sign * cmp.Compare(*a, *b)
}

// says phrases one model entry: the figure, whose it is and over which
// window.
func says(model string, e api.ModelProvider) string {
	where := e.Provider
	if e.Region != nil {
		where += " (" + *e.Region + ")"
	}
	switch {
	case e.Source.Error != "":
		return fmt.Sprintf("%s at %s: %s gave nothing this cycle (%s), so it reads unknown.", model, where, e.Source.Name, e.Source.Error)
	case e.Source.Kind == api.ModelSourceGateway && e.Uptime != nil:
		return fmt.Sprintf("%s at %s: %.1f %% of %s's requests succeeded over the last %s (%s); that is %s's traffic, not your key's.",
			model, where, *e.Uptime, e.Source.Name, e.Source.Window, e.Status, e.Source.Name)
	case e.Source.Kind == api.ModelSourceGateway:
		return fmt.Sprintf("%s at %s: %s has too little traffic over the last %s to tell.", model, where, e.Source.Name, e.Source.Window)
	case e.Source.Kind == api.ModelSourceMeasured:
		return fmt.Sprintf("%s at %s: our own completions say %s, with our key, not yours.", model, where, e.Status)
	}
	return fmt.Sprintf("%s at %s: %s shows its component %q as %s.", model, where, e.Source.Name, e.Source.Component, e.Status)
}

// measuredFigures adds the hour's error rate and time to first token to a
// measured entry's words.
func measuredFigures(w api.MeasuredWindow) string {
	var parts []string
	if w.ErrorRate != nil {
		parts = append(parts, fmt.Sprintf("%.1f %% of %d completions failed", 100**w.ErrorRate, w.Samples))
	}
	if w.TTFTMs.P50 != nil {
		parts = append(parts, fmt.Sprintf("first token after %.0f ms (p50)", *w.TTFTMs.P50))
	}
	if len(parts) == 0 {
		return ""
	}
	return " Over the last hour: " + strings.Join(parts, ", ") + "."
}

// modelSummary says a model's plan in a sentence.
func modelSummary(name string, ts []api.FallbackTarget) string {
	if len(ts) == 0 {
		return fmt.Sprintf("No provider of %s is known: the catalog names none and no source reports on one.", name)
	}
	var steps []string
	for _, t := range ts[:min(len(ts), 4)] {
		s := t.Provider
		if t.Sibling {
			s = t.ModelName + " at " + s
		}
		s += " (" + string(t.Status)
		if t.Uptime != nil {
			s += fmt.Sprintf(", %.1f %%", *t.Uptime)
		}
		steps = append(steps, s+")")
	}
	more := ""
	if len(ts) > 4 {
		more = fmt.Sprintf(", and %d more", len(ts)-4)
	}
	return fmt.Sprintf("Send %s to %s%s.", name, strings.Join(steps, ", then "), more)
}

// serviceSummary says a service's plan in a sentence.
func serviceSummary(name string, ts []api.FallbackTarget) string {
	var steps []string
	for _, t := range ts {
		steps = append(steps, fmt.Sprintf("%s (%s)", t.Provider, t.Status))
	}
	return fmt.Sprintf("For %s, best first: %s. Ask with model= for a configuration: a gateway routes models, not services.", name, strings.Join(steps, ", "))
}

// markSurges marks the targets whose service the crowd of /check's callers
// reports failing in a surge now, with the count as evidence, and only
// that: it moves neither a status (the page and our probes decide that)
// nor the order (sortTargets), which every gateway's configuration written
// from the plan follows. Callers on ten networks are easy to gather, and
// an order they could change would send everyone's traffic where they
// chose; a caller reading the plan can weigh the evidence itself.
func markSurges(view View, ts []api.FallbackTarget) {
	for i := range ts {
		c, ok := view.Reports(ts[i].Service)
		if !ok || c.State() != check.ReportsSurge {
			continue
		}
		ts[i].CrowdSurge = true
		ts[i].Evidence = append(ts[i].Evidence, api.FallbackEvidence{Source: api.EvidenceReports, Says: c.Says(), At: c.Window})
	}
}
