package serve

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/aistatus/aistatus/api"
	"github.com/aistatus/aistatus/build"
	"github.com/aistatus/aistatus/history"
	"github.com/aistatus/aistatus/snapshot"
)

// TestCheckExpectedResolution publishes snapshots whose history holds n
// ended major incidents of openai beside its open major one, and asks
// /check and /reliability: the figures reach /check through
// reliability.json from history.MinBasis incidents on, and not below.
func TestCheckExpectedResolution(t *testing.T) {
	t.Parallel()
	for _, n := range []int{history.MinBasis - 1, history.MinBasis} {
		t.Run(fmt.Sprint(n, " incidents"), func(t *testing.T) {
			ts := newTestServer(t, 0)
			h := history.New()
			h.Incidents = testIncidents()
			for i := range n {
				start := genTime.Add(-time.Duration(i+3) * 24 * time.Hour)
				end := start.Add(time.Duration(10*(i+1)) * time.Minute)
				h.Incidents = append(h.Incidents, api.Incident{ID: fmt.Sprint("openai-old", i), Service: "openai", Headline: "Errors",
					Severity: api.Major, StartedAt: start, EndedAt: &end, Status: "resolved", Source: api.SourceOfficial, UpdatedAt: end})
			}
			api.SortIncidents(h.Incidents)
			states := map[string]build.ServiceState{}
			for _, svc := range ts.cat.Services {
				states[svc.Slug] = build.ServiceState{Status: api.Operational, Basis: api.BasisOfficial}
			}
			files, err := build.Render(build.Site{BaseURL: "https://aistatus.example", StaleAfter: 15 * time.Minute, Generator: "test"}, ts.cat, h, states, genTime.Add(time.Second))
			if err != nil {
				t.Fatal(err)
			}
			if err := snapshot.Publish(ts.dir, files); err != nil {
				t.Fatal(err)
			}
			// A newer generation time, or the store keeps the snapshot it holds.
			if ok, err := ts.Store().Reload(); !ok || err != nil {
				t.Fatalf("reload: %v %v", ok, err)
			}

			var check api.CheckDoc
			decodeResponse(t, ts.do(t, http.MethodGet, snapshot.PathCheck+"?q=openai", nil), &check)
			got := check.Verdict.ExpectedResolution
			if n < history.MinBasis {
				if got != nil {
					t.Errorf("expectedResolution %+v with %d incidents behind it", *got, n)
				}
			} else {
				want := api.ExpectedResolution{Incident: "openai-01", Severity: api.Major, StartedAt: genTime.Add(-time.Hour),
					P50Minutes: 30, P90Minutes: 50, Basis: n}
				if got == nil || *got != want {
					t.Errorf("expectedResolution = %+v, want %+v", got, want)
				}
			}

			var rel api.ReliabilityDoc
			decodeResponse(t, ts.do(t, http.MethodGet, snapshot.PathReliability, nil), &rel)
			if len(rel.Services) != len(ts.cat.Services) || rel.Services[0].Slug != "openai" ||
				rel.Services[0].Reliability.IncidentDuration.Major.Incidents != n {
				t.Errorf("/reliability: %d services, first %+v", len(rel.Services), rel.Services[0])
			}
		})
	}
}

func decodeResponse(t *testing.T, resp *http.Response, v any) {
	t.Helper()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("HTTP %d: %s", resp.StatusCode, body)
	}
	if err := json.Unmarshal(body, v); err != nil {
		t.Fatal(err)
	}
}
