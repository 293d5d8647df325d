package site

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/snapshot"
)

// FileMetrics is the Prometheus text exposition (format 0.0.4, which
// OpenMetrics parsers read too) of every service's status, uptime windows,
// their coverage and the probe's latency, as of the snapshot. The thin
// server answers /metrics with it.
const FileMetrics = snapshot.FileMetrics

// metrics renders FileMetrics. Every family's HELP says where its values
// come from. A figure that is not known (no uptime data, no probe answer)
// is left out rather than given as 0, which would read as a measurement.
func (m *model) metrics() []byte {
	var b strings.Builder
	family := func(name, kind, help string) {
		fmt.Fprintf(&b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, kind)
	}
	sample := func(name string, value float64, labels ...string) {
		b.WriteString(name)
		if len(labels) > 0 {
			b.WriteByte('{')
			for i := 0; i < len(labels); i += 2 {
				if i > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, "%s=\"%s\"", labels[i], labelEscape.Replace(labels[i+1]))
			}
			b.WriteByte('}')
		}
		b.WriteByte(' ')
		b.WriteString(strconv.FormatFloat(value, 'f', -1, 64))
		b.WriteByte('\n')
	}

	family("aistatus_snapshot_generated_timestamp_seconds", "gauge",
		"When the snapshot these metrics come from was built (Unix time).")
	sample("aistatus_snapshot_generated_timestamp_seconds", float64(m.now.Unix()))

	family("aistatus_service_info", "gauge",
		"Always 1: a tracked service, its name, category, the basis of its status (official page, probe or none) and the state of its official feed.")
	for _, svc := range m.services {
		sample("aistatus_service_info", 1, "service", svc.Slug, "name", svc.Name, "category", svc.Category,
			"basis", string(svc.Basis), "feed", svc.Sources.Feed.State)
	}

	family("aistatus_service_status", "gauge",
		"1 for the service's current status, 0 for the others (a state set); the status merges the official status page and aistatus's probe, see aistatus_service_info's basis.")
	for _, svc := range m.services {
		for _, st := range api.Statuses {
			v := 0.0
			if svc.Status == st {
				v = 1
			}
			sample("aistatus_service_status", v, "service", svc.Slug, "status", string(st))
		}
	}

	family("aistatus_service_uptime_ratio", "gauge",
		"Share of the window (24h, 7d, 30d, ending at the snapshot) the service was up, of the time with data; absent when there is no data.")
	for _, svc := range m.services {
		for _, f := range uptimeWindows(svc) {
			if f.value != nil {
				sample("aistatus_service_uptime_ratio", *f.value/100, "service", svc.Slug, "window", f.window)
			}
		}
	}

	family("aistatus_service_uptime_coverage_ratio", "gauge",
		"Share of the window (24h, 7d, 30d) with data behind aistatus_service_uptime_ratio; below 0.5 the page says not enough data.")
	for _, svc := range m.services {
		for _, f := range uptimeWindows(svc) {
			sample("aistatus_service_uptime_coverage_ratio", f.coverage, "service", svc.Slug, "window", f.window)
		}
	}

	family("aistatus_service_probe_latency_seconds", "gauge",
		"Time aistatus's probe of the service's API host took to answer in the latest build; absent when the probe failed or there is none.")
	for _, svc := range m.services {
		if svc.LatencyMs != nil {
			sample("aistatus_service_probe_latency_seconds", *svc.LatencyMs/1000, "service", svc.Slug)
		}
	}

	family("aistatus_service_open_incidents", "gauge",
		"Incidents of the service not ended, official and aistatus's probe incidents together.")
	for _, svc := range m.services {
		open := 0
		for _, inc := range svc.Incidents {
			if inc.Open() {
				open++
			}
		}
		sample("aistatus_service_open_incidents", float64(open), "service", svc.Slug)
	}
	return []byte(b.String())
}

type metricWindow struct {
	window   string
	value    *float64
	coverage float64
}

func uptimeWindows(svc *service) []metricWindow {
	return []metricWindow{
		{"24h", svc.Uptime.H24, svc.UptimeCoverage.H24},
		{"7d", svc.Uptime.D7, svc.UptimeCoverage.D7},
		{"30d", svc.Uptime.D30, svc.UptimeCoverage.D30},
	}
}

var labelEscape = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
