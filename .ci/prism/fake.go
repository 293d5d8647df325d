// Command fake is the outside world for .ci/prism.sh: it rewrites a catalog
// (as `aistatus catalog` prints it) so that every status feed and API probe
// points at itself on loopback, then serves them until it is killed.
//
// Statuspage and incident.io services are served Statuspage documents; a few
// of them declare an outage, a degradation or maintenance, with incidents,
// so that the snapshot holds every kind of value. The feeds of the other
// formats answer 500 (a feed error, which the probe covers), and one API host
// drops its connections (a failed probe). Standard library only: run it with
// `go run .ci/prism/fake.go`.
//
//	go run .ci/prism/fake.go -catalog-in all.json -catalog-out fake.json -addr-file addr
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

// scripted is what the fake declares for a few services; the others are calm.
var scripted = map[string]struct{ indicator, component, incident, impact string }{
	"openai":    {"major", "partial_outage", "Elevated error rates", "major"},
	"anthropic": {"minor", "degraded_performance", "Slow responses", "minor"},
	"cohere":    {"maintenance", "under_maintenance", "", ""},
}

// probeDown is the service whose API host drops every connection.
const probeDown = "mistral"

func main() {
	in := flag.String("catalog-in", "", "catalog to rewrite (required)")
	out := flag.String("catalog-out", "", "where to write the rewritten catalog (required)")
	addrFile := flag.String("addr-file", "", "where to write host:port once listening (required)")
	flag.Parse()
	if *in == "" || *out == "" || *addrFile == "" {
		log.Fatal("fake: -catalog-in, -catalog-out and -addr-file are required")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		log.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	if err := rewrite(*in, *out, base); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*addrFile, []byte(ln.Addr().String()+"\n"), 0o644); err != nil {
		log.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(serve), ReadHeaderTimeout: 10 * time.Second}
	log.Fatal(srv.Serve(ln))
}

// rewrite points every feed and probe of the catalog in at base.
func rewrite(in, out, base string) error {
	data, err := os.ReadFile(in)
	if err != nil {
		return err
	}
	var cat struct {
		Services   []map[string]any `json:"services"`
		ErrorCodes any              `json:"errorCodes,omitempty"` // kept as it is
		Models     map[string]any   `json:"models,omitempty"`     // its gateways pointed at the fake
	}
	if err := json.Unmarshal(data, &cat); err != nil {
		return fmt.Errorf("%s: %w", in, err)
	}
	for _, svc := range cat.Services {
		slug, _ := svc["slug"].(string)
		feed, _ := svc["feed"].(map[string]any)
		if slug == "" || feed == nil {
			return fmt.Errorf("%s: a service without slug or feed", in)
		}
		// The fake's pages have one component, "API": the real scopes
		// and component lists do not apply to them.
		delete(feed, "scope")
		delete(feed, "componentsUrl")
		delete(feed, "incidentsUrl")
		switch feed["format"] {
		case "none":
			continue // probe only: no page to fake
		case "statuspage", "incidentio":
			feed["url"] = base + "/" + slug + "/summary.json"
			feed["incidentsUrl"] = base + "/" + slug + "/incidents.json"
		default:
			feed["url"] = base + "/" + slug + "/broken"
		}
		if _, ok := svc["probeUrl"]; ok {
			svc["probeUrl"] = base + "/" + slug + "/probe"
		}
		// A surface's own host (claude.ai) is probed by /check too.
		surfaces, _ := svc["surfaces"].([]any)
		for _, sf := range surfaces {
			if sf, ok := sf.(map[string]any); ok && sf["probeUrl"] != nil {
				sf["probeUrl"] = base + "/" + slug + "/probe"
			}
		}
	}
	gateways, _ := cat.Models["gateways"].([]any)
	for _, g := range gateways {
		if g, ok := g.(map[string]any); ok {
			g["url"] = base + "/" + gatewayPath + "/{model}"
		}
	}
	data, err = json.MarshalIndent(cat, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(out, data, 0o644)
}

// gatewayPath is where the fake answers as a model gateway: the model
// scriptedModel in a partial outage at Anthropic and fine on Bedrock, every
// other model a 404 (a failed read: unknown).
const (
	gatewayPath   = "_gateway"
	scriptedModel = "anthropic/claude-sonnet-4.5"
)

func serve(w http.ResponseWriter, r *http.Request) {
	slug, rest, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if slug == gatewayPath {
		if rest != scriptedModel {
			http.NotFound(w, r)
			return
		}
		endpoint := func(provider, tag string, uptime float64) map[string]any {
			return map[string]any{"provider_name": provider, "tag": tag, "status": 0,
				"uptime_last_5m": uptime, "uptime_last_30m": uptime, "uptime_last_1d": 99.5}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"data": map[string]any{"id": scriptedModel, "endpoints": []any{
			endpoint("Anthropic", "anthropic", 60), endpoint("Amazon Bedrock", "amazon-bedrock", 99.9)}}})
		return
	}
	switch rest {
	case "probe":
		if slug == probeDown {
			if hj, ok := w.(http.Hijacker); ok {
				if conn, _, err := hj.Hijack(); err == nil {
					_ = conn.Close()
					return
				}
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized) // a healthy API refusing an unauthenticated call
		_, _ = fmt.Fprintln(w, `{"error":"missing api key"}`)
	case "summary.json", "incidents.json":
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(statuspage(slug, rest == "summary.json"))
	case "broken":
		http.Error(w, "upstream error", http.StatusInternalServerError)
	default:
		http.NotFound(w, r)
	}
}

// statuspage is a Statuspage v2 summary.json (summary) or incidents.json.
func statuspage(slug string, summary bool) map[string]any {
	s, ok := scripted[slug]
	if !ok {
		s.indicator, s.component = "none", "operational"
	}
	started := time.Now().UTC().Add(-40 * time.Minute).Truncate(time.Second)
	resolved := started.Add(20 * time.Minute)
	incidents := []map[string]any{}
	if s.incident != "" {
		incidents = append(incidents, map[string]any{
			"id": slug + "-open", "name": s.incident, "status": "investigating", "impact": s.impact,
			"created_at": started, "started_at": started, "updated_at": started, "resolved_at": nil,
			"shortlink": "https://status.example/" + slug + "/open",
		})
		if !summary {
			incidents = append(incidents, map[string]any{
				"id": slug + "-past", "name": "Earlier " + strings.ToLower(s.incident), "status": "resolved", "impact": "critical",
				"created_at": started.Add(-time.Hour), "started_at": started.Add(-time.Hour), "updated_at": resolved,
				"resolved_at": resolved.Add(-time.Hour), "shortlink": "https://status.example/" + slug + "/past",
			})
		}
	}
	doc := map[string]any{
		"page":      map[string]any{"id": slug, "name": slug, "url": "https://status.example/" + slug},
		"incidents": incidents,
	}
	if summary {
		doc["status"] = map[string]any{"indicator": s.indicator}
		doc["components"] = []map[string]any{{"id": slug + "-api", "name": "API", "group": false, "status": s.component}}
	}
	return doc
}
