package site

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/aistatus/aistatus/api"
	"golang.org/x/net/html"
)

// TestOutputsReadTheSituation: the banner, /metrics' status series and the
// façade's indicator and groups say what the situation says of a subject,
// not what the documents beside it say: given a situation that differs
// from the fixture's documents, each follows the situation.
func TestOutputsReadTheSituation(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// said are the situation's statuses that differ from the documents'.
		said         map[string]api.Status
		headline     string
		slug         string // whose façade is read
		indicator    string
		metricSeries []string
	}{
		{"claude.ai down", map[string]api.Status{"anthropic/agent": api.MajorOutage},
			"services and 2 surfaces with issues", "anthropic", "critical",
			[]string{`aistatus_surface_status{service="anthropic",surface="agent",status="major_outage"} 1`}},
		{"OpenAI up, Groq down", map[string]api.Status{"openai": api.Operational, "groq": api.MajorOutage},
			"services and 1 surface with issues", "groq", "critical",
			[]string{`aistatus_service_status{service="groq",status="major_outage"} 1`,
				`aistatus_surface_status{service="openai",surface="api",status="operational"} 1`}},
		{"a model unknown", map[string]api.Status{"model:cohere/command-a": api.Unknown},
			"services and 1 surface with issues", "openai", "minor",
			[]string{`aistatus_model_status{model="cohere/command-a",status="unknown"} 1`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			docs, h := fixture(t)
			docs.Situation.Subjects = slices.Clone(docs.Situation.Subjects)
			for i, sub := range docs.Situation.Subjects {
				if st, ok := tc.said[sub.ID]; ok {
					docs.Situation.Subjects[i].Status = st
				}
			}
			files, err := Render(docs, h)
			if err != nil {
				t.Fatal(err)
			}
			var headline string
			for _, n := range findAll(parseHTML(t, files[FileIndex]), func(n *html.Node) bool { return n.Data == "strong" }) {
				headline = text(n)
				break
			}
			if !strings.HasSuffix(headline, tc.headline) {
				t.Errorf("the banner says %q, want it to end %q", headline, tc.headline)
			}
			metrics := string(files[FileMetrics])
			for _, series := range tc.metricSeries {
				if !strings.Contains(metrics, "\n"+series+"\n") {
					t.Errorf("/metrics has no %s", series)
				}
			}
			var summary struct {
				Status     struct{ Indicator string } `json:"status"`
				Components []struct{ ID, Status string }
			}
			if err := json.Unmarshal(files[StatuspageDir(tc.slug)+"/summary.json"], &summary); err != nil {
				t.Fatal(err)
			}
			if summary.Status.Indicator != tc.indicator {
				t.Errorf("the façade of %s says %q, want %q", tc.slug, summary.Status.Indicator, tc.indicator)
			}
			for _, c := range summary.Components {
				if st, ok := tc.said[c.ID]; ok && c.Status != spComponentStatus(st) {
					t.Errorf("the façade's group %s is %q, want %q", c.ID, c.Status, spComponentStatus(st))
				}
			}
		})
	}
}
