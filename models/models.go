package models

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build/feed"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/history"
	"github.com/rs/zerolog"
)

// maxGatewayReads bounds the requests in flight to one gateway: the
// watched models' documents are read concurrently, but a gateway is one
// host and ~40 requests at once would look like a burst to rate-limit.
const maxGatewayReads = 8

// GatewayRead is one gateway's answer about one model this cycle.
type GatewayRead struct {
	// Endpoints are those of tracked providers, one per provider and
	// region (trackedEndpoints).
	Endpoints []feed.GatewayEndpoint
	// Err is the failed read (feed.Kind classifies it); nil when the
	// document proved itself.
	Err error
	// Unlisted is a model the gateway's good list does not carry
	// (servedAt): it was not asked for, and the gateway says nothing of
	// it.
	Unlisted bool
}

// ObserveGateways reads every enabled gateway's document of each of models
// (the watched models due this cycle, dueForRead), with its row's reader
// (Gateways): one request per model per gateway, concurrent (at most
// maxGatewayReads at once per gateway), each bounded by opts.Timeout, so
// that the reads finish within the cycle's own bound and a slow or failing
// gateway never holds the cycle up. Failures are recorded, never returned;
// a document naming more than MaxGatewayEntries tracked provider and region
// pairs is one, and so is every read of a gateway without a row.
// A gateway is asked only for the models it serves (servedAt, by lists,
// the gateways' model lists as this cycle leaves them), each by its own id
// of it (catalog.Gateway.GatewayID). The result is by gateway id, then
// the catalog's model id.
func ObserveGateways(ctx context.Context, opts Options, models []catalog.Model, lists map[string]*history.ModelList) map[string]map[string]GatewayRead {
	out := map[string]map[string]GatewayRead{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, g := range opts.Catalog.Models.Gateways {
		if !g.Enabled {
			continue
		}
		// Each gateway's reads go into its own map, so that its
		// goroutines never touch out, which this loop writes.
		reads := map[string]GatewayRead{}
		out[g.ID] = reads
		row, ok := LookupGateway(g.ID)
		if !ok {
			// The catalog allows only the ids of catalog.Gateways, and
			// TestGateways gives each a row: never here, but never silent.
			for _, md := range models {
				reads[md.ID] = GatewayRead{Err: fmt.Errorf("no reader of gateway %q (models.Gateways)", g.ID)}
			}
			continue
		}
		read := row.ReadEndpoints
		slots := make(chan struct{}, maxGatewayReads)
		for _, md := range models {
			id, served := servedAt(g, lists[g.ID], md.ID)
			if !served {
				mu.Lock() // the gateway's reads started before write too
				reads[md.ID] = GatewayRead{Unlisted: true}
				mu.Unlock()
				continue
			}
			wg.Go(func() {
				select {
				case slots <- struct{}{}:
				case <-ctx.Done():
					mu.Lock()
					reads[md.ID] = GatewayRead{Err: ctx.Err()}
					mu.Unlock()
					return
				}
				defer func() { <-slots }()
				rctx, cancel := context.WithTimeout(ctx, opts.Timeout)
				defer cancel()
				eps, err := read(rctx, opts.Client, strings.ReplaceAll(g.URL, catalog.ModelParam, id), id)
				if err == nil {
					eps, err = trackedEndpoints(g, md.ID, eps)
				}
				mu.Lock()
				reads[md.ID] = GatewayRead{Endpoints: eps, Err: err}
				mu.Unlock()
			})
		}
	}
	wg.Wait()
	return out
}

// servedAt is the gateway's own id of the model of that catalog id, and
// whether g is to be asked for it: when its last good model list (l)
// names it (by the id the list gives), or when it has none to go by (no
// list, or none read yet: every watched model is asked for, by
// g.GatewayID). A model a gateway's list does not carry is not asked for:
// the answer is a 404, a failed read of a model the gateway never served,
// which would count against its health every cycle.
func servedAt(g catalog.Gateway, l *history.ModelList, id string) (string, bool) {
	if g.ListURL == "" || l == nil || l.ReadAt.IsZero() || len(l.Models) == 0 {
		return g.GatewayID(id), true
	}
	i := slices.IndexFunc(l.Models, func(m history.ListedModel) bool { return m.ID == id })
	switch {
	case i < 0:
		return "", false
	case l.Models[i].GatewayID != "":
		return l.Models[i].GatewayID, true
	}
	return id, true
}

// MaxGatewayEntries bounds a model's entries from one gateway: tracked
// providers, one entry per provider and region. The catalog maps 16 of a
// gateway's provider names, and a provider serves a model from a handful
// of regions at most. A document naming more pairs than this is broken or
// hostile (a tracked provider in thousands of invented regions) and fails
// as a schema failure, like one listing too many endpoints
// (feed.MaxGatewayEndpoints): not cut, for the same reasons.
const MaxGatewayEntries = 32

// trackedEndpoints keeps of a gateway's endpoints of a model those whose
// provider the catalog maps to a tracked service, one per provider and
// region: the document is the gateway's to write, and only what is
// published from it (an entry per provider and region) may count. Two
// endpoints of one pair (a provider's quantizations, "deepinfra/fp8" and
// "deepinfra/bf16", or a document repeating itself) would be two entries no
// reader could tell apart. Of those, the first the document lists wins,
// unless it has no figure over its gateway's StatusWindow and a later one has:
// the one with a figure says more. Both depend on the document alone, so
// the same document always gives the same entries.
func trackedEndpoints(g catalog.Gateway, modelID string, eps []feed.GatewayEndpoint) ([]feed.GatewayEndpoint, error) {
	var out []feed.GatewayEndpoint
	at := map[string]int{} // provider and region → index in out
	window := StatusWindow(g.ID)
	for _, ep := range eps {
		if _, tracked := g.Providers[ep.Provider]; !tracked {
			continue
		}
		key := ep.Provider
		if r := regionOf(ep.Tag, ep.Quantization); r != nil {
			key += "\x00" + *r
		}
		i, seen := at[key]
		switch {
		case !seen && len(out) == MaxGatewayEntries:
			return nil, &feed.Error{Kind: api.FailureSchema, Err: fmt.Errorf(
				"%s's document of %s names more than the %d tracked provider and region pairs a model may have", g.Name, modelID, MaxGatewayEntries)}
		case !seen:
			at[key] = len(out)
			out = append(out, ep)
		case out[i].Uptime[window] == nil && ep.Uptime[window] != nil:
			out[i] = ep
		}
	}
	return out, nil
}

// AssembleModels turns the cycle's reads into each watched model's
// providers and status, and keeps the health of every model source, in
// h.Models (the documents are rendered from it). The rules (docs/api.md,
// "Models"):
//
//   - a gateway endpoint's status comes from its uptime over
//     history.ModelWindow (history.ModelStatusOf); a provider the
//     gateway names that is not a tracked service is left out;
//   - a status-page component that stands for the model gives the page's
//     status of it, and unknown when the page could not be read or no
//     longer lists that component;
//   - a gateway document that does not prove itself is a failed read: the
//     model's entries from that gateway last cycle are kept as unknown,
//     with the error, and the source's health records the failure;
//   - the model's status is the best known status of its providers, and
//     unknown when none is known: never its service's status;
//   - a model whose status moved since the last cycle gets a
//     model.status.changed in the change log (and a model.recovered
//     after it when it is back from an outage); a model's first word (a
//     model newly watched) is no transition and gets none, so that a
//     catalog that starts watching many models at once floods no receiver.
//
// components are the status pages' components this cycle, by service
// slug, of each page that was read; a page that could not be read is
// absent.
func AssembleModels(h *history.History, cat catalog.Catalog, components map[string][]api.Component, reads map[string]map[string]GatewayRead, now time.Time, log zerolog.Logger) {
	if len(cat.Models.Pinned) == 0 {
		h.Models = nil
		return
	}
	prev := map[string]api.ModelDoc{}
	var lists map[string]*history.ModelList
	readAt := map[string]time.Time{}
	if h.Models != nil {
		for _, md := range h.Models.Models {
			prev[md.ID] = md
		}
		lists = h.Models.Lists
	}
	watched := watchList(cat, lists, now)
	var pages map[string]*history.MakerPage
	if h.Models != nil {
		pages = h.Models.Pages
	}
	mh := &history.ModelHistory{At: now, Models: []api.ModelDoc{}, Sources: []api.ModelSourceHealth{}, Lists: lists, Pages: pages}
	for _, g := range cat.Models.Gateways {
		mh.Sources = append(mh.Sources, gatewayHealth(h.Models, g, reads[g.ID], now, log))
		if g.ListURL != "" {
			// The list's health is kept by AssembleModelLists.
			health, ok := h.Models.Source(g.ID + "-models")
			if !ok {
				health = listHealth(h.Models, g, ListRead{}, false, now, log)
			}
			mh.Sources = append(mh.Sources, health)
		}
	}
	for _, p := range cat.Models.Lifecycle {
		// A page's health is kept by AssembleMakerPages.
		health, ok := h.Models.Source(p.ID)
		if !ok {
			health = makerPageHealth(h.Models, p, PageRead{}, false, now, log)
		}
		mh.Sources = append(mh.Sources, health)
	}
	measured := measuredProviders(h, cat, now)
	probes := probeWitnesses(h, cat)
	listedCreated := map[string]time.Time{}
	for _, l := range lists {
		for _, m := range l.Models {
			listedCreated[m.ID] = m.Created
		}
	}
	for _, md := range watched {
		if h.Models != nil {
			if at, ok := h.Models.ReadAt[md.ID]; ok && !at.After(now) {
				readAt[md.ID] = at
			}
		}
		providers := []api.ModelProvider{}
		for _, c := range md.Components {
			comps, read := components[c.Service]
			providers = append(providers, componentProvider(cat, c, comps, read, md, log))
		}
		providers = append(providers, measured[md.ID]...)
		for _, g := range cat.Models.Gateways {
			if !g.Enabled {
				continue
			}
			r, ok := reads[g.ID][md.ID]
			if !ok {
				// Not due this cycle (the rotation): what the gateway
				// said last stands, with its time in the history.
				providers = append(providers, previousGatewayProviders(g, prev[md.ID])...)
				continue
			}
			readAt[md.ID] = now
			if r.Unlisted {
				continue // the gateway does not serve it: no entry of its
			}
			providers = append(providers, gatewayProviders(g, md, r, prev[md.ID])...)
		}
		status := history.BestModelStatus(providers, "")
		if was, ok := prev[md.ID]; ok && was.Status != "" && was.Status != status {
			h.AddStatusChange(api.Change{Type: api.ChangeModelStatus, Service: md.Service, Model: &api.ChangeModel{ID: md.ID, Name: md.Name}, Time: now,
				OldStatus: was.Status, NewStatus: status})
		}
		firstSeen := now
		if p, ok := prev[md.ID]; ok && p.FirstSeen != nil && !p.FirstSeen.After(now) {
			firstSeen = *p.FirstSeen
		}
		var created *time.Time
		if c, ok := listedCreated[md.ID]; ok {
			created = &c
		}
		mh.Models = append(mh.Models, api.ModelDoc{
			ID: md.ID, Name: md.Name, Author: md.Author, Service: md.Service, FirstSeen: &firstSeen, Created: created,
			Status: status, StatusFrom: history.ModelStatusSource(providers, ""),
			Summary: modelSummary(providers), Providers: providers, Agreement: history.ModelAgreements(providers, probes),
		})
	}
	mh.ReadAt = readAt
	var before []api.ModelDoc
	var retirements []api.ModelRetirement
	if h.Models != nil {
		before, retirements = h.Models.Models, h.Models.Retirements
	}
	mh.Retirements = history.AssembleLifecycle(h, cat, lists, pages, before, watched, retirements, now)
	sayDisagreements(mh)
	leaveOutUnwritable(mh, log)
	h.Models = mh
}

// sayDisagreements names, on each maker's page's health, the calendar
// entries where the page and another source give different days: the
// first api.MaxDisagreements, by date then id as the calendar is.
func sayDisagreements(mh *history.ModelHistory) {
	for i, src := range mh.Sources {
		if src.Kind != api.ModelSourceLifecycle {
			continue
		}
		var said []string
		for _, r := range mh.Retirements {
			if r.Disagreement != "" && len(said) < api.MaxDisagreements &&
				slices.ContainsFunc(r.Sources, func(s api.RetirementSource) bool { return s.Source == src.ID }) {
				said = append(said, r.ID+": "+r.Disagreement)
			}
		}
		mh.Sources[i].Disagreements = said
	}
}

// leaveOutUnwritable takes out of mh each model whose document no JSON can
// hold (a time past the year 9999, a figure that is not a number), so that
// no single model can fail a build: it is left out of every file this
// cycle, logged, and named in the model lists' health (LeftOut). Each
// input passes a door first; this is the last word should one let
// something through.
func leaveOutUnwritable(mh *history.ModelHistory, log zerolog.Logger) {
	kept := mh.Models[:0]
	var left []string
	for _, m := range mh.Models {
		if _, err := json.Marshal(m); err != nil {
			log.Error().Err(err).Str("model", m.ID).Msg("a model's document could not be written: left out of this snapshot")
			left = append(left, m.ID)
			continue
		}
		kept = append(kept, m)
	}
	mh.Models = kept
	for i, src := range mh.Sources {
		if src.Kind == api.ModelSourceList {
			mh.Sources[i].LeftOut = left[:min(len(left), api.MaxFailedModels)]
		}
	}
}

// previousGatewayProviders are a model's entries from one gateway as the
// last cycle that read it gave them, bounded as a read's are.
func previousGatewayProviders(g catalog.Gateway, prev api.ModelDoc) []api.ModelProvider {
	var out []api.ModelProvider
	for _, p := range prev.Providers {
		if p.Source.ID != g.ID || p.Source.Kind != api.ModelSourceGateway {
			continue
		}
		if _, tracked := g.Providers[p.Provider]; !tracked || len(out) == MaxGatewayEntries {
			continue
		}
		out = append(out, p)
	}
	return out
}

// AssembleModelLists takes this cycle's reads of the gateways' model lists
// into the history: a good read replaces a list, a failed one leaves the
// last good list standing, and each list's health is kept as a source's.
func AssembleModelLists(h *history.History, cat catalog.Catalog, reads map[string]ListRead, now time.Time, log zerolog.Logger) {
	if len(cat.Models.Pinned) == 0 {
		return
	}
	if h.Models == nil {
		h.Models = &history.ModelHistory{At: now, Models: []api.ModelDoc{}, Sources: []api.ModelSourceHealth{}}
	}
	h.Models.Lists = listedAfter(cat, h.Models, reads, now)
	for _, g := range cat.Models.Gateways {
		if g.ListURL == "" {
			continue
		}
		r, asked := reads[g.ID]
		health := listHealth(h.Models, g, r, asked, now, log)
		i := slices.IndexFunc(h.Models.Sources, func(s api.ModelSourceHealth) bool { return s.ID == health.ID })
		if i < 0 {
			h.Models.Sources = append(h.Models.Sources, health)
		} else {
			h.Models.Sources[i] = health
		}
	}
}

// measuredProviders are the entries our own completions give, by model id:
// per service with completions configured, each measured model's status
// by the measured rule and its success share over the last hour.
func measuredProviders(h *history.History, cat catalog.Catalog, now time.Time) map[string][]api.ModelProvider {
	out := map[string][]api.ModelProvider{}
	for _, svc := range cat.Services {
		if svc.Completion == nil {
			continue
		}
		for _, m := range h.Lookup(svc.Slug).Measured(svc.Completion, now) {
			p := api.ModelProvider{Service: svc.Slug, Provider: svc.Name, Status: m.Status,
				Source: api.ModelSource{ID: "aistatus", Kind: api.ModelSourceMeasured, Name: "aistatus's own completions",
					Window: m.Windows.Hour.Window, Attribution: api.Attribution(""), Error: m.Note,
					Basis: "the share of aistatus's own streamed completions of this model at this service that succeeded over the last hour, " +
						"sent with the operator's key: its account's, not yours"}}
			if w := m.Windows.Hour; w.Samples > 0 && w.ErrorRate != nil {
				up := 100 * (1 - *w.ErrorRate)
				p.Uptime = &up
			}
			out[m.Model] = append(out[m.Model], p)
		}
	}
	return out
}

// gatewaySource describes a gateway as the source of a figure.
func gatewaySource(g catalog.Gateway, md catalog.Model) api.ModelSource {
	window := StatusWindow(g.ID)
	src := api.ModelSource{ID: g.ID, Kind: api.ModelSourceGateway, Name: g.Name, Window: window,
		Basis:       fmt.Sprintf("%s's uptime of its own requests to this model at this provider over the last %s, not your key's", g.Name, window),
		Attribution: g.Attribution}
	if g.ModelPage != "" {
		src.URL = strings.ReplaceAll(g.ModelPage, catalog.ModelParam, g.GatewayID(md.ID))
	}
	return src
}

// gatewayProviders are a model's entries from one gateway's read.
func gatewayProviders(g catalog.Gateway, md catalog.Model, r GatewayRead, prev api.ModelDoc) []api.ModelProvider {
	src := gatewaySource(g, md)
	var out []api.ModelProvider
	if r.Err != nil {
		// The gateway said nothing this cycle: what it reported last reads
		// unknown, so that the model keeps its list of providers and says
		// why it cannot tell.
		src.Error = api.Truncate(r.Err.Error(), 300)
		seen := map[string]bool{}
		for _, p := range prev.Providers {
			if p.Source.ID != g.ID {
				continue
			}
			// A history written before reads were bounded and cleaned
			// may hold thousands of entries, with escape sequences in
			// their regions, and a failed read would carry them forward
			// every cycle: they are bounded as a good read's are.
			if _, tracked := g.Providers[p.Provider]; !tracked {
				continue
			}
			region := ""
			if p.Region != nil {
				region = api.CleanText(*p.Region, feed.MaxGatewayName)
			}
			p.Region = nil
			if region != "" {
				p.Region = &region
			}
			key := p.Provider + "\x00" + region
			if seen[key] || len(out) == MaxGatewayEntries {
				continue
			}
			seen[key] = true
			p.Status, p.Uptime, p.Uptimes, p.Source = api.Unknown, nil, nil, src
			p.Latency, p.Throughput, p.InferenceRegions = nil, nil, nil // last cycle's figures are not this one's
			out = append(out, p)
		}
		return out
	}
	for _, ep := range r.Endpoints {
		slug, tracked := g.Providers[ep.Provider]
		if !tracked {
			continue
		}
		up := ep.Uptime[src.Window]
		status := history.ModelStatusOf(up)
		// A non-zero status is OpenRouter marking the endpoint as not in its
		// normal state (the values' meanings are not documented: see
		// feed.GatewayEndpoint.Status). Its uptime may still be high, being
		// of past minutes: the endpoint reads at most degraded, and worse
		// when its figure says so.
		if ep.Status != 0 && status == api.Operational {
			status = api.Degraded
		}
		out = append(out, api.ModelProvider{Service: slug, Provider: ep.Provider, Region: regionOf(ep.Tag, ep.Quantization),
			Status: status, Uptime: up, Source: src,
			Uptimes:    &api.ModelUptimes{Last30m: ep.Uptime["30m"], Last1h: ep.Uptime["1h"], Last1d: ep.Uptime["1d"]},
			Latency:    percentiles(ep.LatencyP50Ms, ep.LatencyP95Ms),
			Throughput: percentiles(ep.ThroughputP50, ep.ThroughputP95), InferenceRegions: inferenceRegions(ep.Regions)})
	}
	return out
}

// percentiles is a gateway's p50 and p95 over the last hour, the window
// its reader reads them for; nil when it gives none.
func percentiles(p50, p95 *float64) *api.ModelPercentiles {
	if p50 == nil || p95 == nil {
		return nil
	}
	return &api.ModelPercentiles{P50: *p50, P95: *p95, Window: "1h"}
}

// inferenceRegions writes an endpoint's regions as the documents give
// them: the geography, and the provider's region after a slash for a
// specific one ("us", "us/us-east-1").
func inferenceRegions(regions []feed.GatewayRegion) []string {
	var out []string
	for _, r := range regions {
		if r.ProviderRegion != "" {
			out = append(out, r.Geo+"/"+r.ProviderRegion)
		} else {
			out = append(out, r.Geo)
		}
	}
	return out
}

// probeWitnesses are our keyless probes of each tracked service's API
// host as a model's witnesses, from the history as the last cycle left
// it: failing or answering; a service not probed yet has none.
func probeWitnesses(h *history.History, cat catalog.Catalog) map[string]api.ModelWitness {
	out := map[string]api.ModelWitness{}
	for _, svc := range cat.Services {
		sh := h.Lookup(svc.Slug)
		if sh == nil || svc.ProbeURL == "" {
			continue
		}
		w := api.ModelWitness{Source: svc.Slug, Kind: api.ModelSourceProbe, Name: "aistatus's keyless probe of " + svc.Name + "'s API host",
			Window: "current", Attribution: api.Attribution("")}
		switch {
		case sh.FailedProbes > 0:
			w.Status = api.MajorOutage
		case sh.OKProbes > 0:
			w.Status = api.Operational
		default:
			continue
		}
		out[svc.Slug] = w
	}
	return out
}

// quantizations are the suffixes of OpenRouter tags that name a
// quantization ("deepinfra/fp8"), not a region.
var quantizations = []string{"int4", "int8", "fp4", "fp6", "fp8", "fp16", "bf16", "fp32", "unknown"}

// variants are the suffixes of OpenRouter tags that name a variant of a
// provider's endpoint, not where it runs: a faster or cheaper tier of the
// same provider ("fireworks/fast", "google-vertex/global/flex").
var variants = []string{"fast", "turbo", "flex"}

// regionOf reads the region from a gateway endpoint's tag: the parts after
// the provider ("google-vertex/us-east5" → "us-east5") but those naming a
// quantization (the known ones, or the endpoint's own) or a variant
// ("google-vertex/global/flex" → "global"); nil when none is left.
func regionOf(tag, quantization string) *string {
	parts := strings.Split(tag, "/")[1:]
	var region []string
	for _, p := range parts {
		// The reader turned control characters into spaces: a part is
		// what is left between them.
		p = strings.TrimSpace(p)
		l := strings.ToLower(p)
		if p == "" || slices.Contains(quantizations, l) || slices.Contains(variants, l) || (quantization != "" && strings.EqualFold(p, quantization)) {
			continue
		}
		region = append(region, p)
	}
	if len(region) == 0 {
		return nil
	}
	r := strings.Join(region, "/")
	return &r
}

// componentProvider is a model's entry from its service's status page:
// components are the page's this cycle, read whether it was read at all.
func componentProvider(cat catalog.Catalog, c catalog.ModelComponent, components []api.Component, read bool, md catalog.Model, log zerolog.Logger) api.ModelProvider {
	svc, _ := cat.Lookup(c.Service)
	var region *string
	if c.Region != "" {
		region = &c.Region
	}
	p := api.ModelProvider{Service: c.Service, Provider: svc.Name, Region: region, Status: api.Unknown,
		Source: api.ModelSource{ID: c.Service, Kind: api.ModelSourceComponent, Name: svc.Name + "'s status page",
			Window: "current", Basis: "the status the vendor's own page gives its component for this model",
			Attribution: svc.Name + "'s official status page", URL: svc.StatusPage, Component: c.Name}}
	if !read {
		p.Source.Error = "the status page could not be read this cycle"
		return p
	}
	for _, comp := range components {
		if strings.EqualFold(comp.Name, c.Name) {
			p.Status = comp.Status
			return p
		}
	}
	p.Source.Error = "the page lists no component of that name (renamed or removed?)"
	log.Warn().Str("service", c.Service).Str("model", md.ID).Str("component", c.Name).
		Msg("a model's component is not on its status page: the catalog may need the new name")
	return p
}

// gatewayHealth keeps a gateway's health across cycles, as build's
// trackFeed does for a feed: the last good cycle, the run of failing ones,
// and an alarm in the log once it has failed for SourceAlarmAfter.
func gatewayHealth(mh *history.ModelHistory, g catalog.Gateway, reads map[string]GatewayRead, now time.Time, log zerolog.Logger) api.ModelSourceHealth {
	prev, _ := mh.Source(g.ID)
	out := api.ModelSourceHealth{ID: g.ID, Kind: api.ModelSourceGateway, Name: g.Name, Enabled: g.Enabled,
		URL: g.URL, Attribution: g.Attribution, LastOKAt: prev.LastOKAt,
		ConsecutiveFailures: prev.ConsecutiveFailures, FailingSince: prev.FailingSince}
	if prev.LastOKAt != nil && prev.LastOKAt.After(now) {
		// A clock that went back: a time from the future would freeze the
		// health; start it afresh.
		out.LastOKAt, out.ConsecutiveFailures, out.FailingSince = nil, 0, nil
	}
	if !g.Enabled {
		out.State, out.ConsecutiveFailures, out.FailingSince = api.ModelSourceDisabled, 0, nil
		return out
	}
	var first error
	ids := make([]string, 0, len(reads))
	for id := range reads {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	var failed []string
	for _, id := range ids {
		if reads[id].Unlisted {
			continue // not asked for
		}
		out.Reads++
		if err := reads[id].Err; err != nil {
			out.Failed++
			if first == nil {
				first = err
			}
			failed = append(failed, id)
		}
	}
	if out.Reads == 0 && len(reads) > 0 {
		// Its list carries none of the models due this cycle: it was
		// asked nothing, and its health stands as it was.
		out.State, out.Error, out.Failure = prev.State, prev.Error, prev.Failure
		if out.State == "" || out.State == api.ModelSourceDisabled {
			out.State, out.Error = api.FeedError, "not read yet"
		}
		return out
	}
	trackSource(&out, first, failed, now, log)
	return out
}

// trackSource records a model source's cycle in its health, as build's
// trackFeed does for a feed: the last good cycle, the run of failing ones,
// and an alarm in the log once it has failed for SourceAlarmAfter. first
// is the cycle's first failure (nil for none), failed the models whose
// read failed.
func trackSource(out *api.ModelSourceHealth, first error, failed []string, now time.Time, log zerolog.Logger) {
	out.FailedModels = failed[:min(len(failed), api.MaxFailedModels)]
	if len(out.FailedModels) == 0 {
		out.FailedModels = nil
	}
	if prev := out.LastOKAt; prev != nil && prev.After(now) {
		// A clock that went back: a time from the future would freeze the
		// health; start it afresh.
		out.LastOKAt, out.ConsecutiveFailures, out.FailingSince = nil, 0, nil
	}
	if first == nil && out.Reads > 0 {
		t := now
		out.State, out.LastOKAt, out.ConsecutiveFailures, out.FailingSince, out.Error, out.Failure = api.FeedOK, &t, 0, nil, "", ""
		return
	}
	out.State = api.FeedError
	if first != nil {
		out.Error, out.Failure = api.Truncate(first.Error(), 300), feed.Kind(first)
	} else {
		out.Error = "no model was read"
	}
	if out.ConsecutiveFailures == 0 || out.FailingSince == nil {
		t := now
		out.FailingSince = &t
	}
	out.ConsecutiveFailures++
	if now.Sub(*out.FailingSince) >= SourceAlarmAfter {
		log.Error().Str("source", out.ID).Str("failure", string(out.Failure)).Int("failures", out.ConsecutiveFailures).
			Int("failed", out.Failed).Int("reads", out.Reads).Time("since", *out.FailingSince).
			Msg("model source failing for over an hour: it may have moved, changed shape or be rate-limiting us")
	} else {
		log.Warn().Str("source", out.ID).Str("failure", string(out.Failure)).Int("failed", out.Failed).Int("reads", out.Reads).
			Msg("model source reads failed")
	}
}

// modelSummary says in a sentence how a model fares at each provider.
func modelSummary(providers []api.ModelProvider) string {
	if len(providers) == 0 {
		return "No source reports on this model: its status is unknown."
	}
	parts := make([]string, 0, len(providers))
	for _, p := range providers {
		where := p.Provider
		if p.Region != nil {
			where += " (" + *p.Region + ")"
		}
		switch {
		case p.Uptime != nil:
			parts = append(parts, fmt.Sprintf("%s at %s: %.1f %% over %s per %s", p.Status, where, *p.Uptime, p.Source.Window, p.Source.Name))
		case p.Source.Error != "":
			parts = append(parts, fmt.Sprintf("unknown at %s: %s", where, p.Source.Error))
		default:
			parts = append(parts, fmt.Sprintf("%s at %s per %s", p.Status, where, p.Source.Name))
		}
	}
	return strings.Join(parts, "; ") + "."
}

// maxModelIncidents bounds the incidents in a model's document.
const maxModelIncidents = 20

// Doc renders models.json from the catalog and the latest cycle's
// word on each model (h.Models); a watched model the history has nothing
// on (a first cycle, a model just added) reads unknown.
func Doc(cat catalog.Catalog, h *history.History, now time.Time) api.ModelsDoc {
	doc := api.ModelsDoc{Models: []api.ModelDoc{}, Sources: []api.ModelSourceHealth{},
		Rules: history.CurrentModelRules(), Timestamp: now, License: api.License}
	known := map[string]api.ModelDoc{}
	var lists map[string]*history.ModelList
	if h.Models != nil {
		for _, md := range h.Models.Models {
			known[md.ID] = md
		}
		doc.Sources = append(doc.Sources, h.Models.Sources...)
		lists = h.Models.Lists
	}
	leftOut := map[string]bool{}
	for _, src := range doc.Sources {
		for _, id := range src.LeftOut {
			leftOut[id] = true
		}
	}
	for _, md := range watchList(cat, lists, now) {
		if leftOut[md.ID] {
			continue
		}
		m, ok := known[md.ID]
		if !ok {
			m = api.ModelDoc{ID: md.ID, Status: api.Unknown, Summary: modelSummary(nil), Providers: []api.ModelProvider{}}
		}
		m.Name, m.Author, m.Service, m.Incidents, m.Timestamp, m.License = md.Name, md.Author, md.Service, nil, nil, ""
		doc.Models = append(doc.Models, m)
	}
	return doc
}

// watchedModel is the catalog's model of a watched model's document: the
// pinned model, or one found in a gateway's list, which has only what its
// document says.
func watchedModel(cat catalog.Catalog, m api.ModelDoc) catalog.Model {
	if md, ok := cat.Models.Lookup(m.ID); ok {
		return md
	}
	return catalog.Model{ID: m.ID, Name: m.Name, Author: m.Author, Service: m.Service}
}

// Headlines are the retained incidents as the model documents read them:
// by service, each incident's headline in words, made once and shared by
// every model's document, which would otherwise each pass over every
// incident (150 models × 100 000 incidents at the caps).
type Headlines struct {
	incidents []api.Incident
	// byService are the indices of each service's incidents, in order.
	byService map[string][]int
	// words[i] memoises the words of incidents[i]'s headline.
	words []string
}

// NewHeadlines indexes incidents (newest first, as published).
func NewHeadlines(incidents []api.Incident) *Headlines {
	h := &Headlines{incidents: incidents, byService: map[string][]int{}, words: make([]string, len(incidents))}
	for i, inc := range incidents {
		h.byService[inc.Service] = append(h.byService[inc.Service], i)
	}
	return h
}

// Document is one model's own document: its entry of models.json and
// the retained incidents, of the services it is watched at, whose headline
// names it, newest first, at most maxModelIncidents.
func Document(cat catalog.Catalog, m api.ModelDoc, h *Headlines, now time.Time) api.ModelDoc {
	md := watchedModel(cat, m)
	services := map[string]bool{md.Service: md.Service != ""}
	for _, c := range md.Components {
		services[c.Service] = true
	}
	for _, p := range m.Providers {
		services[p.Service] = true
	}
	// The incidents of those services, merged back into the published
	// order: each list is in it already.
	var lists [][]int
	for slug, ok := range services {
		if ok && h != nil && len(h.byService[slug]) > 0 {
			lists = append(lists, h.byService[slug])
		}
	}
	names := modelWords(md)
	m.Incidents = []api.Incident{}
	for len(lists) > 0 && len(m.Incidents) < maxModelIncidents {
		first := 0
		for k := range lists {
			if lists[k][0] < lists[first][0] {
				first = k
			}
		}
		i := lists[first][0]
		if lists[first] = lists[first][1:]; len(lists[first]) == 0 {
			lists = slices.Delete(lists, first, first+1)
		}
		if h.words[i] == "" {
			h.words[i] = " " + wordsOf(h.incidents[i].Headline) + " "
		}
		if namedIn(h.words[i], names) {
			m.Incidents = append(m.Incidents, h.incidents[i])
		}
	}
	m.Timestamp, m.License = &now, api.License
	return m
}

// modelWords are the words of the names a headline may call the model by.
func modelWords(md catalog.Model) []string {
	_, slug, _ := strings.Cut(md.ID, "/")
	var out []string
	for _, name := range append([]string{md.Name, slug}, md.Aliases...) {
		if w := wordsOf(name); w != "" {
			out = append(out, " "+w+" ")
		}
	}
	return out
}

// namedIn reports whether headline (its words, space-framed) contains one
// of names as whole words.
func namedIn(headline string, names []string) bool {
	for _, w := range names {
		if strings.Contains(headline, w) {
			return true
		}
	}
	return false
}

// wordsOf lowers s and turns every run of characters other than letters,
// digits, dots and hyphens into one space, so that "Claude Sonnet 4.5:"
// and "claude sonnet 4.5" compare equal while "claude-sonnet-4.5-preview"
// stays one word, another model's.
func wordsOf(s string) string {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r > 127)
	})
	for i, w := range words {
		words[i] = strings.TrimRight(w, ".") // the end of a sentence
	}
	return strings.Join(words, " ")
}
