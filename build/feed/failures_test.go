package feed

// Every failure kind, produced through the door every read goes through
// (Read) and told by Kind, on the real Anthropic and Cloudflare summaries
// where a document is needed.

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/catalog"
	"github.com/aistatus/aistatus/outbound"
)

func TestFailureKinds(t *testing.T) {
	t.Parallel()
	// onServer reads the catalog's service slug with its feed on srv.
	type setup func(t *testing.T) (catalog.Service, *http.Client)
	onServer := func(slug string, routes map[string]reply) setup {
		return func(t *testing.T) (catalog.Service, *http.Client) {
			srv, _ := serve(t, jsonAccept, routes)
			return catalogService(t, slug, srv), &http.Client{Timeout: 10 * time.Second}
		}
	}
	// handler serves every path with h.
	handler := func(slug string, h http.HandlerFunc, timeout time.Duration) setup {
		return func(t *testing.T) (catalog.Service, *http.Client) {
			srv := httptest.NewServer(h)
			t.Cleanup(srv.Close)
			return catalogService(t, slug, srv), &http.Client{Timeout: timeout}
		}
	}
	challenge := func(code int) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Cf-Mitigated", "challenge")
			w.Header().Set("Content-Type", "text/html; charset=UTF-8")
			w.WriteHeader(code)
			w.Write([]byte("<!DOCTYPE html><html lang=\"en-US\"><head><title>Just a moment...</title></head><body></body></html>"))
		}
	}
	noReplicate := edited(t, "statuspage-cloudflare-20260729.json", func(doc jdoc) {
		var kept []any
		for _, c := range list(t, doc, "components") {
			if c["id"] != "fvgfcmy66tdr" {
				kept = append(kept, c)
			}
		}
		doc["components"] = kept
	})
	tests := []struct {
		name  string
		setup setup
		want  api.FailureKind
	}{
		{"HTTP 403", onServer("anthropic", map[string]reply{spSummary: {code: http.StatusForbidden, body: []byte("Forbidden")}}), api.FailureHTTP},
		{"moved to another host", movedSetup, api.FailureMoved},
		{"redirected to a private address, refused", func(t *testing.T) (catalog.Service, *http.Client) {
			origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "http://10.0.0.1"+r.URL.Path, http.StatusFound)
			}))
			t.Cleanup(origin.Close)
			return catalogService(t, "anthropic", origin), outbound.NewClient(outbound.Options{AllowedURLs: []string{origin.URL}})
		}, api.FailureMoved},
		{"redirected to a host that resolves inside, refused", func(t *testing.T) (catalog.Service, *http.Client) {
			origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, port, _ := net.SplitHostPort(r.Host)
				http.Redirect(w, r, "http://localhost:"+port+r.URL.Path, http.StatusFound)
			}))
			t.Cleanup(origin.Close)
			return catalogService(t, "anthropic", origin), outbound.NewClient(outbound.Options{AllowedURLs: []string{origin.URL}})
		}, api.FailureMoved},
		{"Cloudflare challenge, HTTP 403", handler("anthropic", challenge(http.StatusForbidden), 10*time.Second), api.FailureChallenge},
		{"Cloudflare challenge, HTTP 200", handler("anthropic", challenge(http.StatusOK), 10*time.Second), api.FailureChallenge},
		{"{}", onServer("anthropic", map[string]reply{spSummary: {body: []byte(`{}`)}}), api.FailureSchema},
		{"no components", onServer("anthropic", map[string]reply{spSummary: {body: []byte(`{"components":[]}`)}}), api.FailureEmpty},
		// Cloudflare's page without the Replicate component: the scope
		// matches nothing, which must not read as operational.
		{"scope matches nothing", onServer("replicate", map[string]reply{spSummary: {body: noReplicate}, spIncidentsP: {body: incidentsJSON(t)}}), api.FailureScope},
		{"body over MaxBody", onServer("anthropic", map[string]reply{spSummary: {body: oversized(realDoc(t, "statuspage-anthropic-20260729.json"))}}), api.FailureTooLarge},
		{"timeout", handler("anthropic", func(w http.ResponseWriter, r *http.Request) {
			select { // answer nothing until the client gives up
			case <-r.Context().Done():
			case <-time.After(10 * time.Second):
			}
		}, 100*time.Millisecond), api.FailureTimeout},
		{"connection refused", func(t *testing.T) (catalog.Service, *http.Client) {
			srv := httptest.NewServer(http.NotFoundHandler())
			svc := catalogService(t, "anthropic", srv)
			srv.Close() // nothing listens there any more
			return svc, &http.Client{Timeout: 10 * time.Second}
		}, api.FailureNetwork},
	}
	// suspect is no read's failure: the build's plausibility check gives
	// it to a document that proved itself (build's TestSuspectModelList).
	covered := map[api.FailureKind]bool{api.FailureSuspect: true}
	for _, tt := range tests {
		covered[tt.want] = true
	}
	for _, k := range api.FailureKinds {
		if !covered[k] {
			t.Errorf("no case for the failure kind %q", k)
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			svc, client := tt.setup(t)
			a := Adapters()[svc.Feed.Format]
			res, dropped, err := Read(context.Background(), a, Request{Client: client, Service: svc, Now: time.Now()})
			if err == nil {
				t.Fatalf("Read = %+v, %v; want a %q failure", res, dropped, tt.want)
			}
			if k := Kind(err); k != tt.want {
				t.Errorf("Kind = %q (%v), want %q", k, err, tt.want)
			}
			if res.Status != "" || res.Incidents != nil || res.Components != nil {
				t.Errorf("a failed read returned %+v", res)
			}
		})
	}
}

// movedSetup is a page that answers with a permanent redirect to another
// host, which serves a valid summary: what it moved to is not the document
// the catalog knows. The client resolves the other host to a second server.
func movedSetup(t *testing.T) (catalog.Service, *http.Client) {
	target, _ := serve(t, jsonAccept, map[string]reply{spSummary: {file: "real/statuspage-anthropic-20260729.json"}})
	const otherHost = "status.moved.example"
	_, port, err := net.SplitHostPort(target.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://"+otherHost+":"+port+r.URL.Path, http.StatusMovedPermanently)
	}))
	t.Cleanup(origin.Close)
	dialer := &net.Dialer{Timeout: 5 * time.Second}
	transport := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if host, _, _ := net.SplitHostPort(addr); strings.EqualFold(host, otherHost) {
			addr = target.Listener.Addr().String()
		}
		return dialer.DialContext(ctx, network, addr)
	}}
	t.Cleanup(transport.CloseIdleConnections)
	return catalogService(t, "anthropic", origin), &http.Client{Transport: transport, Timeout: 10 * time.Second}
}

// TestIncidentIOResolvedBeforeCreated: incident.io's imported incidents can
// be resolved before they were created. Read publishes one that began no
// later than it ended, with its own last update kept.
func TestIncidentIOResolvedBeforeCreated(t *testing.T) {
	t.Parallel()
	const capture = "incidentio-cohere-20260723.json"
	summary := decodeDoc(t, realDoc(t, capture))
	imported := spVariant(t, summary, "01TESTIMPORTED000000000000", "Increased latency on embed-v4.0", "2026-07-23T20:00:00Z", []any{})
	imported["status"], imported["resolved_at"], imported["updated_at"] = "resolved", "2026-07-20T10:00:00Z", "2026-07-23T20:05:00Z"
	delete(imported, "started_at") // incident.io writes created_at only
	srv, _ := serve(t, jsonAccept, map[string]reply{spSummary: {file: "real/" + capture}, spIncidentsP: {body: incidentsJSON(t, imported)}})
	svc := catalogService(t, "cohere", srv)
	res, err := read(t, statuspage{format: catalog.FormatIncidentIO}, svc)
	if err != nil {
		t.Fatal(err)
	}
	ended := ts(t, "2026-07-20T10:00:00Z")
	checkIncidents(t, res.Incidents, []api.Incident{{
		ID: "cohere-01TESTIMPORTED000000000000", Service: "cohere", Headline: "Increased latency on embed-v4.0",
		Severity: api.Major, StartedAt: *ended, EndedAt: ended, Status: "resolved", Source: api.SourceOfficial,
		URL: svc.StatusPage, UpdatedAt: *ts(t, "2026-07-23T20:05:00Z"),
	}})
}
