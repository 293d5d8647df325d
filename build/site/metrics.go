package site

import (
	"bytes"
	"fmt"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/promtext"
	"github.com/aistatus/aistatus/snapshot"
)

// FileMetrics is the Prometheus text exposition (format 0.0.4, which
// OpenMetrics parsers read too) of every service's status, uptime windows,
// their coverage and the probe's latency, every surface's status and
// uptime, every watched model's status at each provider, and the measured
// completions' figures, as of the snapshot. The thin server answers
// /metrics with it.
//
// Every label's values are bounded by the catalog: services, surfaces,
// models, the gateways' provider names it maps, the sources' ids and their
// windows, and the fixed statuses and windows; never a free text a feed
// or a gateway sent (a gateway's region is left out for that reason).
const FileMetrics = snapshot.FileMetrics

// metrics renders FileMetrics. Every family's HELP says where its values
// come from. A figure that is not known (no uptime data, no probe answer)
// is left out rather than given as 0, which would read as a measurement.
// The families come by what they tell of: the services, the vantage
// points, the services' incidents, the surfaces, the models and our
// measured completions.
func (m *model) metrics() ([]byte, error) {
	var b bytes.Buffer
	w := metricsWriter{promtext.NewWriter(&b)}
	w.family("aistatus_snapshot_generated_timestamp_seconds",
		"When the snapshot these metrics come from was built (Unix time).")
	w.Sample(float64(m.now.Unix()))
	m.serviceMetrics(w)
	m.vantageMetrics(w)
	m.incidentMetrics(w)
	m.surfaceMetrics(w)
	m.modelMetrics(w)
	m.agreementMetrics(w)
	m.measuredMetrics(w)
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("%s: %w", FileMetrics, err)
	}
	return b.Bytes(), nil
}

// metricsWriter writes gauges: every family of FileMetrics is one.
type metricsWriter struct{ *promtext.Writer }

func (w metricsWriter) family(name, help string) { w.Family(name, help) }

// stateSet writes one sample per status: 1 for current, 0 for the
// others, labelled as given and then with the status.
func (w metricsWriter) stateSet(current api.Status, labels ...string) {
	for _, st := range api.Statuses {
		v := 0.0
		if current == st {
			v = 1
		}
		w.Sample(v, append(labels, "status", string(st))...)
	}
}

// serviceMetrics are each service's: what it is, its status (the
// situation's), its uptime windows and their coverage, and our probe's
// latency.
func (m *model) serviceMetrics(w metricsWriter) {
	w.family("aistatus_service_info",
		"Always 1: a tracked service, its name, category, the basis of its status (official page, probe or none) and the state of its official feed.")
	for _, svc := range m.services {
		w.Sample(1, "service", svc.Slug, "name", svc.Name, "category", svc.Category,
			"basis", string(svc.Basis), "feed", svc.Sources.Feed.State)
	}

	w.family("aistatus_service_status",
		"1 for the service's current status, 0 for the others (a state set); the status merges the official status page and aistatus's probe, see aistatus_service_info's basis.")
	for _, svc := range m.services {
		w.stateSet(svc.State.Key, "service", svc.Slug) // the situation's
	}

	w.family("aistatus_service_uptime_ratio",
		"Share of the window (24h, 7d, 30d, ending at the snapshot) the service was up, of the time with data; absent when there is no data.")
	for _, svc := range m.services {
		for _, f := range uptimeWindows(svc.Uptime, svc.UptimeCoverage) {
			if f.value != nil {
				w.Sample(*f.value/100, "service", svc.Slug, "window", f.window)
			}
		}
	}

	w.family("aistatus_service_uptime_coverage_ratio",
		"Share of the window (24h, 7d, 30d) with data behind aistatus_service_uptime_ratio; below 0.5 the page says not enough data.")
	for _, svc := range m.services {
		for _, f := range uptimeWindows(svc.Uptime, svc.UptimeCoverage) {
			w.Sample(f.coverage, "service", svc.Slug, "window", f.window)
		}
	}

	w.family("aistatus_service_probe_latency_seconds",
		"Time aistatus's probe of the service's API host took to answer in the latest build; absent when the probe failed or there is none.")
	for _, svc := range m.services {
		if svc.LatencyMs != nil {
			w.Sample(*svc.LatencyMs/1000, "service", svc.Slug)
		}
	}
}

// vantageMetrics are what the vantage points saw of each service's API
// host: the regional rule's reading, and each point's answer and latency.
func (m *model) vantageMetrics(w metricsWriter) {
	w.family("aistatus_service_vantage_reading",
		"1 for the regional rule's current reading of the service's API host, 0 for the others (a state set): reachable from every reporting vantage point, unreachable from all (the provider's), regional (some fail while others reach it: their region or path, never an outage) or too_few; absent without vantages (a build without --redis).")
	for _, svc := range m.services {
		if v := svc.Sources.Vantages; v != nil {
			for _, r := range api.VantageReadings {
				w.Sample(promtext.Bool(v.Reading == r), "service", svc.Slug, "reading", r)
			}
		}
	}

	w.family("aistatus_vantage_reaches",
		"1 when the vantage point's latest probe of the service's API host got an answer, 0 when it failed. The vantage label is a replica's --vantage name (validated; at most 256 read a build), an operator's own set.")
	for _, svc := range m.services {
		if v := svc.Sources.Vantages; v != nil {
			for _, p := range v.Points {
				w.Sample(promtext.Bool(p.State == string(api.ProbeOK)), "service", svc.Slug, "vantage", p.Name)
			}
		}
	}

	w.family("aistatus_vantage_probe_latency_seconds",
		"The vantage point's latest probe of the service's API host: time to the answer's headers; absent when it failed.")
	for _, svc := range m.services {
		if v := svc.Sources.Vantages; v != nil {
			for _, p := range v.Points {
				if p.LatencyMs != nil {
					w.Sample(*p.LatencyMs/1000, "service", svc.Slug, "vantage", p.Name)
				}
			}
		}
	}
}

// incidentMetrics are each service's open incidents.
func (m *model) incidentMetrics(w metricsWriter) {
	w.family("aistatus_service_open_incidents",
		"Incidents of the service not ended, official and aistatus's probe incidents together.")
	for _, svc := range m.services {
		open := 0
		for _, inc := range svc.Incidents {
			if inc.Open() {
				open++
			}
		}
		w.Sample(float64(open), "service", svc.Slug)
	}
}

// surfaceMetrics are each surface's status (the situation's), uptime
// windows and their coverage.
func (m *model) surfaceMetrics(w metricsWriter) {
	w.family("aistatus_surface_status",
		"1 for the surface's current status, 0 for the others (a state set): every service's API (surface api, the same status as aistatus_service_status), then the app, agent or console its official page lists, by the page's word alone.")
	for _, svc := range m.services {
		for _, sf := range svc.subjects() {
			w.stateSet(sf.Status, "service", svc.Slug, "surface", string(sf.ID))
		}
	}

	w.family("aistatus_surface_uptime_ratio",
		"Share of the window (24h, 7d, 30d, ending at the snapshot) the surface was up, of the time with data, by the service's rules; absent when there is no data.")
	for _, svc := range m.services {
		for _, sf := range svc.subjects() {
			for _, f := range uptimeWindows(sf.Uptime, sf.UptimeCoverage) {
				if f.value != nil {
					w.Sample(*f.value/100, "service", svc.Slug, "surface", string(sf.ID), "window", f.window)
				}
			}
		}
	}

	w.family("aistatus_surface_uptime_coverage_ratio",
		"Share of the window (24h, 7d, 30d) with data behind aistatus_surface_uptime_ratio; below 0.5 the page says not enough data.")
	for _, svc := range m.services {
		for _, sf := range svc.subjects() {
			for _, f := range uptimeWindows(sf.Uptime, sf.UptimeCoverage) {
				w.Sample(f.coverage, "service", svc.Slug, "surface", string(sf.ID), "window", f.window)
			}
		}
	}
}

// modelMetrics are each watched model's status (the situation's), the
// retirement calendar, and each provider's status and uptime as its
// source says them.
func (m *model) modelMetrics(w metricsWriter) {
	w.family("aistatus_model_status",
		"1 for the watched model's current status, 0 for the others (a state set): the best known status among its providers, unknown when none is known.")
	for _, md := range m.docs.Models.Models {
		w.stateSet(m.said.status(api.ModelSubjectID(md.ID)), "model", md.ID)
	}

	// The calendar: a model nobody can call is not up, whatever
	// aistatus_model_status last said of its providers.
	w.family("aistatus_model_retired",
		"1 for a model on the retirement calendar that is retired (its date has come, or its gateway no longer lists it), 0 for one announced to be: a retired model cannot be called, whatever aistatus_model_status says of its providers.")
	for _, r := range m.docs.Retirements.Retirements {
		retired := 0.0
		if r.RetiredBy(m.docs.Manifest.GeneratedAt) {
			retired = 1
		}
		w.Sample(retired, "model", r.ID)
	}
	w.family("aistatus_model_retirement_date_seconds",
		"The model's retirement date (the start of the day, UTC) as a Unix time, for every model on the retirement calendar: announced or passed.")
	for _, r := range m.docs.Retirements.Retirements {
		if at, err := time.Parse(time.DateOnly, r.Date); err == nil {
			w.Sample(float64(at.Unix()), "model", r.ID)
		}
	}

	// Per provider and source, finer than the situation's subjects (a
	// model at a service): each entry's own status, as models.json gives it.
	w.family("aistatus_model_provider_status",
		"1 for the model's current status at the provider as the source says it, 0 for the others (a state set); source is a gateway, the service's status page or aistatus (its own completions). A provider the source lists in several regions or variants is the best of them.")
	for _, md := range m.docs.Models.Models {
		for _, p := range modelProviders(md.Providers) {
			w.stateSet(p.Status, "model", md.ID, "service", p.Service, "provider", p.Provider, "source", p.Source.ID)
		}
	}

	w.family("aistatus_model_provider_uptime_ratio",
		"The model's uptime at the provider over the source's window (its window label), as a ratio: a gateway's share of its own requests that succeeded, or aistatus's of its own completions; absent when the source gives none (a status page's component).")
	for _, md := range m.docs.Models.Models {
		for _, p := range modelProviders(md.Providers) {
			if p.Uptime != nil {
				w.Sample(*p.Uptime/100, "model", md.ID, "service", p.Service, "provider", p.Provider,
					"source", p.Source.ID, "window", p.Source.Window)
			}
		}
	}
}

// agreementMetrics say which witnesses stand behind each model's status at
// each service (models.json's agreement), and the gateways' keyless time
// to first token per provider.
func (m *model) agreementMetrics(w metricsWriter) {
	w.family("aistatus_model_agreement_witnesses",
		"How many witnesses that know (gateways, the vendor's component, aistatus's own completions; the keyless probe is never counted) stand behind the model's status at the service, labelled with their verdict: single, agreed, confirmed (two or more see trouble), gateway_trouble (one gateway alone fails: its own routing), disputed or none.")
	for _, md := range m.docs.Models.Models {
		for _, a := range md.Agreement {
			n := 0
			for _, wt := range a.Witnesses {
				if wt.Counted && wt.Status != api.Unknown {
					n++
				}
			}
			w.Sample(float64(n), "model", md.ID, "service", a.Service, "verdict", a.Verdict)
		}
	}
	w.family("aistatus_model_provider_ttft_seconds",
		"A gateway's time to first token of its own requests to the model at the provider (Vercel's, keyless), the p50 or p95 over its window; absent when the gateway gives none.")
	for _, md := range m.docs.Models.Models {
		for _, p := range md.Providers {
			if p.Latency == nil {
				continue
			}
			for _, q := range []struct {
				name  string
				value float64
			}{{"p50", p.Latency.P50}, {"p95", p.Latency.P95}} {
				w.Sample(q.value/1000, "model", md.ID, "service", p.Service, "provider", p.Provider, "source", p.Source.ID,
					"window", p.Latency.Window, "percentile", q.name)
			}
		}
	}
}

// measuredMetrics are our own completions' figures of each measured
// model: time to first token, error rate and how many they were.
func (m *model) measuredMetrics(w metricsWriter) {
	w.family("aistatus_measured_ttft_seconds",
		"Time to first token of aistatus's own streamed completions of the model at the service (the operator's key), the p50 or p95 of the successful ones over the window (1h, 24h); absent without one.")
	for _, svc := range m.services {
		for _, mm := range svc.Measured {
			for _, win := range measuredWindows(mm) {
				for _, q := range []struct {
					name  string
					value *float64
				}{{"p50", win.TTFTMs.P50}, {"p95", win.TTFTMs.P95}} {
					if q.value != nil {
						w.Sample(*q.value/1000, "service", svc.Slug, "model", mm.Model, "window", win.Window, "percentile", q.name)
					}
				}
			}
		}
	}

	w.family("aistatus_measured_error_ratio",
		"Share of aistatus's own completions of the model at the service over the window (1h, 24h) that the provider failed, of those that say something of it (aistatus_measured_completions); absent without any.")
	for _, svc := range m.services {
		for _, mm := range svc.Measured {
			for _, win := range measuredWindows(mm) {
				if win.ErrorRate != nil {
					w.Sample(*win.ErrorRate, "service", svc.Slug, "model", mm.Model, "window", win.Window)
				}
			}
		}
	}

	w.family("aistatus_measured_completions",
		"aistatus's own completions of the model at the service over the window (1h, 24h) that say something of the provider: its successes and its failures, not aistatus's own problems.")
	for _, svc := range m.services {
		for _, mm := range svc.Measured {
			for _, win := range measuredWindows(mm) {
				w.Sample(float64(win.Samples), "service", svc.Slug, "model", mm.Model, "window", win.Window)
			}
		}
	}
}

// modelProviders are a model's entries as series: one per service,
// provider and source. A source that lists a provider in several regions
// or variants (OpenRouter's "google-vertex/us-east5") gives one series, the
// best of them by the rule of a model's own status, with its uptime (the
// higher on a tie): the region is a gateway's free text, not a label.
func modelProviders(providers []api.ModelProvider) []api.ModelProvider {
	var out []api.ModelProvider
	at := map[[3]string]int{}
	for _, p := range providers {
		key := [3]string{p.Service, p.Provider, p.Source.ID}
		i, seen := at[key]
		if !seen {
			at[key] = len(out)
			out = append(out, p)
			continue
		}
		if c := api.CompareUsable(p.Status, out[i].Status); c < 0 || c == 0 && uptimeOf(p) > uptimeOf(out[i]) {
			out[i] = p
		}
	}
	return out
}

// uptimeOf is an entry's uptime, -1 without one.
func uptimeOf(p api.ModelProvider) float64 {
	if p.Uptime == nil {
		return -1
	}
	return *p.Uptime
}

// measuredWindows are a measured model's windows, labelled 1h and 24h.
func measuredWindows(mm api.MeasuredModel) []api.MeasuredWindow {
	hour, day := mm.Windows.Hour, mm.Windows.Day
	hour.Window, day.Window = "1h", "24h"
	return []api.MeasuredWindow{hour, day}
}

type metricWindow struct {
	window   string
	value    *float64
	coverage float64
}

func uptimeWindows(uptime api.Uptime, coverage api.Coverage) []metricWindow {
	return []metricWindow{
		{"24h", uptime.H24, coverage.H24},
		{"7d", uptime.D7, coverage.D7},
		{"30d", uptime.D30, coverage.D30},
	}
}
